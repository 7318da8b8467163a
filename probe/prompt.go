package probe

import "strings"

// promptWords are common short English words that most tokenizers encode as one token
// each (with the leading space), so a prompt of n words is about n tokens.
var promptWords = [...]string{
	"the", "of", "and", "to", "in", "is", "you", "that", "it", "he",
	"was", "for", "on", "are", "as", "with", "his", "they", "at", "be",
	"this", "have", "from", "or", "one", "had", "by", "word", "but", "not",
	"what", "all", "were", "we", "when", "your", "can", "said", "there", "use",
	"an", "each", "which", "she", "do", "how", "their", "if", "will", "up",
	"other", "about", "out", "many", "then", "them", "these", "so", "some", "her",
	"would", "make", "like", "him",
}

// promptLead asks for a long answer, so that max_tokens rather than the model decides
// how long a stream runs.
const promptLead = "Write a long story that uses these words:"

// syntheticPrompt returns a deterministic prompt of about n tokens: a short instruction
// followed by common words in a fixed pseudo-random order (no RNG state, no clock).
func syntheticPrompt(n int) string {
	const leadTokens = 9 // about how many tokens promptLead costs
	words := n - leadTokens
	if words < 1 {
		words = 1
	}
	var b strings.Builder
	b.Grow(len(promptLead) + words*5)
	b.WriteString(promptLead)
	x := uint32(2463534242) // xorshift32 with a fixed seed: the same prompt every run
	for range words {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b.WriteByte(' ')
		b.WriteString(promptWords[x%uint32(len(promptWords))])
	}
	b.WriteByte('.')
	return b.String()
}
