package workload

// WordList holds 128 common short English words that the usual tokenizers encode as one token
// each (with the leading space), so a text of n words is about n tokens. tpsmon's
// synthetic prompts (probe/client) use all of them, synthetic workload lines the first 64.
var WordList = [128]string{
	"the", "of", "and", "to", "in", "is", "you", "that", "it", "he",
	"was", "for", "on", "are", "as", "with", "his", "they", "at", "be",
	"this", "have", "from", "or", "one", "had", "by", "word", "but", "not",
	"what", "all", "were", "we", "when", "your", "can", "said", "there", "use",
	"an", "each", "which", "she", "do", "how", "their", "if", "will", "up",
	"other", "about", "out", "many", "then", "them", "these", "so", "some", "her",
	"would", "make", "like", "him", "into", "time", "has", "look", "two", "more",
	"write", "go", "see", "number", "no", "way", "could", "people", "my", "than",
	"first", "water", "been", "call", "who", "its", "now", "find", "long", "down",
	"day", "did", "get", "come", "made", "may", "part", "over", "new", "sound",
	"take", "only", "little", "work", "know", "place", "year", "live", "me", "back",
	"give", "most", "very", "after", "thing", "our", "just", "name", "good", "man",
	"think", "say", "great", "where", "help", "through", "much", "before",
}
