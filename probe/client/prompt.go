package client

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"sync/atomic"

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

// promptMark stands for the prompt in a request body template; promptMarkJSON is how
// JSON writes it, which no user value produces by accident.
const (
	promptMark     = "\x00tpsmon-prompt\x00"
	promptMarkJSON = `\u0000tpsmon-prompt\u0000`
)

// bodySource gives the body of every request of a client: the same bytes when the user
// gave the prompt (or replaced messages/prompt in the extra body), else a body whose
// prompt is the next one of the client's sequence. The cost is per request (one buffer
// the size of the body), never per token.
type bodySource struct {
	static    []byte // the whole body when the prompt never changes
	pre, post []byte // the body around the prompt otherwise
	seed      uint64
	words     int
	count     atomic.Uint64 // number of the next prompt
	work      *workBody     // the run's workload, when it has one: it writes every body
}

// newBodySource splits body (marshalled with promptMark as the prompt) around the mark.
func newBodySource(body []byte, seed uint64, words int) *bodySource {
	i := bytes.Index(body, []byte(promptMarkJSON))
	if i < 0 {
		return &bodySource{static: body}
	}
	return &bodySource{pre: body[:i], post: body[i+len(promptMarkJSON):], seed: seed, words: words}
}

// next returns the body of the next request.
func (s *bodySource) next() []byte {
	if s.work != nil {
		return s.work.body(s.count.Add(1) - 1)
	}
	if s.static != nil {
		return s.static
	}
	k := s.count.Add(1) - 1
	b := make([]byte, 0, len(s.pre)+len(s.post)+s.words*8+len(promptTail))
	b = append(b, s.pre...)
	b = appendPrompt(b, s.seed, k, s.words)
	return append(b, s.post...)
}
