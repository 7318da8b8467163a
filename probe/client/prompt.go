package client

import (
	"crypto/rand"
	"encoding/binary"

	"github.com/tpsmon/tpsmon/probe/workload"
)

// promptWords are the words synthetic prompts are made of (about one token each).
var promptWords = &workload.WordList

// promptTail asks for a long answer, so that max_tokens rather than the model decides how
// long a stream runs. It comes last: the words before it make every prompt differ from
// its first token on.
const promptTail = " Write a long story that uses these words."

// promptTailTokens is about how many tokens promptTail costs.
const promptTailTokens = 9

// promptWordCount is how many words a synthetic prompt of about n tokens has.
func promptWordCount(n int) int { return max(n-promptTailTokens, 2) }

// appendPrompt appends prompt number k of the sequence seed: words words, then
// promptTail. Its first two words spell k (base 128, each digit shifted by the seed):
// any two of 128 consecutive prompts differ from their first token on, any two of 16,384
// consecutive ones within their first two. The other words are drawn from (seed, k).
// Same seed, same sequence; every prompt of a sequence has the same number of words.
func appendPrompt(b []byte, seed, k uint64, words int) []byte {
	const n = uint64(len(promptWords))
	x := splitmix(seed ^ splitmix(k))
	for i := range words {
		var w uint64
		switch i {
		case 0:
			w = k + seed
		case 1:
			w = k/n + seed>>7
		default:
			x = splitmix(x)
			w = x >> 32
		}
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, promptWords[w%n]...)
	}
	return append(b, promptTail...)
}

// syntheticPrompt is prompt 0 of the sequence 0 for about n tokens.
func syntheticPrompt(n int) string {
	return string(appendPrompt(nil, 0, 0, promptWordCount(n)))
}

// splitmix is the SplitMix64 finalizer: a good mix of 64 bits, no state.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// randomSeed draws a prompt seed for a run that names none.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}
