// Package workload says what each request of a run sends: its prompt (or chat
// messages) and its max_tokens. A Source is asked once per request, never per token,
// and gives the same request for the same index, so that a seeded run repeats.
//
// Two sources: Synthetic (prompt and answer lengths drawn from Lengths, an optional
// shared prefix, every request's own text different from its first word on) and
// Sampled (the requests of a dataset file, read by Parse, in a seeded order).
//
// The package imports nothing of tpsmon's: probe and probe/engine may both use it.
package workload

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Request is what one request sends.
type Request struct {
	// Prompt is the prompt text: the completions API's prompt, or the content of the
	// chat API's single user message. Empty when Messages is set.
	Prompt string
	// Messages are a dataset's chat messages, sent as they are (nil for a prompt). A
	// client of the completions API sends their contents joined by blank lines.
	Messages []Message
	// MaxTokens is the max_tokens to ask for; 0 means the run's own setting.
	MaxTokens int
	// PromptTokens is the prompt's intended length in tokens, shared prefix included
	// (about one token per word); 0 when unknown (dataset requests).
	PromptTokens int
	// Turn is the request's turn in its conversation, 1 for the first (Conversations);
	// 0 for a request that is not part of one.
	Turn int
	// KeepAnswer asks the client for the answer's text: the conversation's next turn
	// carries it in its history (live history).
	KeepAnswer bool
}

// Text is the prompt as one text: Prompt, or the messages' contents joined by blank
// lines (what a completions-API client sends for a chat dataset).
func (r Request) Text() string {
	if r.Messages == nil {
		return r.Prompt
	}
	parts := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n\n")
}

// Source gives the request with index i (0-based, in the order requests are sent).
// It is safe for concurrent use and gives the same request for the same i.
type Source interface {
	Request(i uint64) Request
}

// Synthetic is the generated workload: each request's own text is PromptTokens words
// (drawn per request) after a shared prefix of PrefixTokens words, and it asks for
// MaxTokens (drawn per request). Build it with NewSynthetic.
type Synthetic struct {
	prompt, maxTokens Lengths
	askMax            bool
	prefixTokens      int
	seed              uint64
	prefix            string
	// Text, when set, writes a request's own text of about tokens tokens instead of
	// the package's word list (e.g. the client's own synthetic prompt). It must be safe
	// for concurrent use.
	Text func(i uint64, tokens int) string
}

// PrefixError is a shared prefix length that cannot be used.
type PrefixError struct{ Tokens int }

func (e *PrefixError) Error() string {
	return "the shared prefix must be from 0 to " + strconv.Itoa(MaxLength) + " tokens, not " + strconv.Itoa(e.Tokens)
}

// NewSynthetic returns the synthetic workload: prompt lengths (each request's own text,
// after the prefix), answer lengths (a zero Lengths{} asks for none: MaxTokens 0, the
// run's own), a shared prefix of prefixTokens tokens (0 = none: then every prompt differs
// from its first word on), and the seed of every draw.
func NewSynthetic(prompt, maxTokens Lengths, prefixTokens int, seed uint64) (*Synthetic, error) {
	if prefixTokens < 0 || prefixTokens > MaxLength {
		return nil, &PrefixError{Tokens: prefixTokens}
	}
	s := &Synthetic{
		prompt: prompt, maxTokens: maxTokens, askMax: maxTokens != Lengths{},
		prefixTokens: prefixTokens, seed: seed,
	}
	if prefixTokens > 0 {
		s.prefix = Words(seed^prefixSalt, prefixTokens)
	}
	return s, nil
}

// prefixSalt separates the prefix's words from request 0's.
const prefixSalt = 0x70726566

// Prefix is the shared prefix every prompt begins with ("" when none).
func (s *Synthetic) Prefix() string { return s.prefix }

// Request implements Source.
func (s *Synthetic) Request(i uint64) Request {
	r := rand.New(rand.NewPCG(s.seed, i))
	n := s.prompt.Draw(r)
	req := Request{PromptTokens: s.prefixTokens + n}
	if s.askMax {
		req.MaxTokens = s.maxTokens.Draw(r)
	}
	var own string
	if s.Text != nil {
		own = s.Text(i, n)
	} else {
		own = ownText(r, n)
	}
	if s.prefix == "" {
		req.Prompt = own
	} else {
		req.Prompt = s.prefix + " " + own
	}
	return req
}

// Sampled gives a dataset's requests in a seeded order: every entry once, then the same
// order again. A shared prefix, when set, goes before each prompt (or the first message).
type Sampled struct {
	entries []Entry
	order   []int
	prefix  string
}

// NewSampled returns the dataset's requests shuffled by seed, each after a shared prefix
// of prefixTokens words (0 = none). It refuses an empty dataset with ErrEmpty.
func NewSampled(entries []Entry, seed uint64, prefixTokens int) (*Sampled, error) {
	if len(entries) == 0 {
		return nil, ErrEmpty
	}
	if prefixTokens < 0 || prefixTokens > MaxLength {
		return nil, &PrefixError{Tokens: prefixTokens}
	}
	r := rand.New(rand.NewPCG(seed, 0xda7a))
	d := &Sampled{entries: entries, order: r.Perm(len(entries))}
	if prefixTokens > 0 {
		d.prefix = Words(seed^prefixSalt, prefixTokens)
	}
	return d, nil
}

// Len is the number of requests in the dataset.
func (d *Sampled) Len() int { return len(d.entries) }

// Request implements Source.
func (d *Sampled) Request(i uint64) Request {
	e := d.entries[d.order[i%uint64(len(d.order))]]
	req := Request{Prompt: e.Prompt, Messages: e.Messages, MaxTokens: e.MaxTokens}
	if d.prefix == "" {
		return req
	}
	if req.Messages == nil {
		req.Prompt = d.prefix + " " + req.Prompt
		return req
	}
	req.Messages = append([]Message(nil), e.Messages...)
	req.Messages[0].Content = d.prefix + " " + req.Messages[0].Content
	return req
}

// wordList are the words of synthetic lines: the first 64 of WordList.
var wordList = WordList[:64]

// askLong asks for a long answer, so that max_tokens rather than the model decides how
// long a stream runs. It comes last: prompts differ from their first word on.
const askLong = ". Write a long story that uses these words."

// askLongTokens is about how many tokens askLong costs.
const askLongTokens = 10

// ownText is a request's own text of about n tokens: seeded words, then askLong when
// there is room for it.
func ownText(r *rand.Rand, n int) string {
	if n < 2*askLongTokens {
		return words(r, n)
	}
	return words(r, n-askLongTokens) + askLong
}

// Words returns n words (about n tokens) drawn from seed: the same seed, the same text.
func Words(seed uint64, n int) string { return words(rand.New(rand.NewPCG(seed, 0x77)), n) }

func words(r *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n * 5)
	for k := range max(n, 1) {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(wordList[r.IntN(len(wordList))])
	}
	return b.String()
}
