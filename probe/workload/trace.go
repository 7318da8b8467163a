package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

// A trace is a production load as NVIDIA AIPerf replays it in the Mooncake format: JSON
// Lines, one request a line, each with the moment it was sent ("timestamp", in ms from
// the trace's start) and either its lengths ("input_length" and "output_length" tokens,
// with optional "hash_ids" naming the 512-token blocks its prompt shares with other
// requests) or its text ("text_input", also read as "input_text", or chat "messages"):
//
//	{"timestamp": 0, "input_length": 1200, "output_length": 52, "hash_ids": [0, 1, 2]}
//	{"timestamp": 105, "input_length": 1800, "output_length": 26, "hash_ids": [0, 3, 4, 5]}
//	{"timestamp": 274, "messages": [{"role": "user", "content": "Hello"}], "output_length": 30}
//
// Other keys (session_id, delay, extra, tools) are read by AIPerf and ignored here.

// TraceBlockTokens is the size of a hash_ids block, in tokens (the Mooncake traces').
const TraceBlockTokens = 512

// TraceEntry is one request of a trace.
type TraceEntry struct {
	At           time.Duration // when it is sent, from the trace's start
	InputTokens  int           // the prompt's length in tokens (0 with Text or Messages)
	OutputTokens int           // max_tokens to ask for (0: the run's own, only with Text or Messages)
	HashIDs      []int64       // the prompt's 512-token blocks, in order (may be nil)
	Text         string        // the prompt as is ("" unless the line gave text_input)
	Messages     []Message     // the chat messages as they are (nil unless given)
}

// Trace is a whole trace, in time order.
type Trace struct {
	Entries []TraceEntry
}

// Duration is the time from the trace's start to its last request.
func (t *Trace) Duration() time.Duration {
	if len(t.Entries) == 0 {
		return 0
	}
	return t.Entries[len(t.Entries)-1].At
}

// Times are the moments the requests are sent, from the trace's start, sped up by speed
// (2 = twice as fast; speed must be above 0).
func (t *Trace) Times(speed float64) []time.Duration {
	out := make([]time.Duration, len(t.Entries))
	for i, e := range t.Entries {
		out[i] = time.Duration(math.Round(float64(e.At) / speed))
	}
	return out
}

// TraceLineError is a trace line that cannot be sent: its 1-based line and what is
// wrong with it, with what to do.
type TraceLineError struct {
	Line int
	Why  string
}

func (e *TraceLineError) Error() string { return fmt.Sprintf("trace line %d: %s", e.Line, e.Why) }

// ErrEmptyTrace is a trace with no request in it.
var ErrEmptyTrace = errors.New(`the trace holds no request (the file is empty, or every line is blank): write one JSON object a line, e.g. {"timestamp": 0, "input_length": 512, "output_length": 64}`)

// traceLine is the JSON a trace line may hold.
type traceLine struct {
	Timestamp    *float64        `json:"timestamp"`
	InputLength  *int            `json:"input_length"`
	OutputLength *int            `json:"output_length"`
	HashIDs      []int64         `json:"hash_ids"`
	TextInput    *string         `json:"text_input"`
	InputText    *string         `json:"input_text"`
	Messages     json.RawMessage `json:"messages"`
}

// traceExamples say what to write for each key of a trace line.
var traceExamples = map[string]string{
	"timestamp":     `"timestamp": 1500 (ms from the trace's start)`,
	"input_length":  `"input_length": 1200 (tokens)`,
	"output_length": `"output_length": 64 (tokens)`,
	"hash_ids":      `"hash_ids": [0, 1, 2]`,
	"text_input":    `"text_input": "Tell me about Go."`,
	"input_text":    `"input_text": "Tell me about Go."`,
}

// ParseTraceLine reads one trace line (see Trace). prev is the previous line's
// timestamp (0 for the first line): a timestamp before it is refused.
func ParseTraceLine(b []byte, prev time.Duration) (TraceEntry, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return TraceEntry{}, errors.New(`not a JSON object: want e.g. {"timestamp": 0, "input_length": 512, "output_length": 64}`)
	}
	var l traceLine
	if err := json.Unmarshal(b, &l); err != nil {
		if words, ok := typeWords(err, traceExamples); ok {
			return TraceEntry{}, errors.New(words)
		}
		return TraceEntry{}, fmt.Errorf("not valid JSON: %v", err)
	}
	at, err := traceTime(l.Timestamp, prev)
	if err != nil {
		return TraceEntry{}, err
	}
	e := TraceEntry{At: at, HashIDs: l.HashIDs}
	if err := l.prompt(&e); err != nil {
		return TraceEntry{}, err
	}
	if l.OutputLength != nil {
		if n := *l.OutputLength; n < 1 || n > MaxLength {
			return TraceEntry{}, fmt.Errorf(`"output_length" is %d: want a whole number of tokens from 1 to %d`, n, MaxLength)
		}
		e.OutputTokens = *l.OutputLength
	} else if e.InputTokens > 0 {
		return TraceEntry{}, errors.New(`"output_length" is missing: give the answer's length in tokens beside "input_length", e.g. "output_length": 64`)
	}
	for _, h := range e.HashIDs {
		if h < 0 {
			return TraceEntry{}, fmt.Errorf(`"hash_ids" holds %d: block ids are whole numbers of 0 or more`, h)
		}
	}
	return e, nil
}

// traceTime reads a timestamp in ms: present, 0 or more, and not before prev.
func traceTime(ts *float64, prev time.Duration) (time.Duration, error) {
	if ts == nil {
		return 0, errors.New(`"timestamp" is missing: every line needs the moment its request is sent, in ms from the trace's start, e.g. "timestamp": 1500`)
	}
	ms := *ts
	if ms < 0 || math.IsNaN(ms) || ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, fmt.Errorf(`"timestamp" is %s: want 0 or more ms from the trace's start`, strconv.FormatFloat(ms, 'f', -1, 64))
	}
	at := time.Duration(math.Round(ms * float64(time.Millisecond)))
	if at < prev {
		return 0, fmt.Errorf(`"timestamp" %s is before the previous line's %s: a trace must be in time order (sort it, e.g. jq -s -c 'sort_by(.timestamp)[]' FILE)`,
			strconv.FormatFloat(ms, 'f', -1, 64), strconv.FormatFloat(float64(prev)/float64(time.Millisecond), 'f', -1, 64))
	}
	return at, nil
}

// prompt fills e's prompt: exactly one of input_length, text_input (input_text) and
// messages.
func (l *traceLine) prompt(e *TraceEntry) error {
	given := 0
	if l.InputLength != nil {
		given++
		if n := *l.InputLength; n < 1 || n > MaxLength {
			return fmt.Errorf(`"input_length" is %d: want a whole number of tokens from 1 to %d`, n, MaxLength)
		}
		e.InputTokens = *l.InputLength
	}
	for _, t := range []*string{l.TextInput, l.InputText} {
		if t == nil {
			continue
		}
		given++
		if *t == "" {
			return errors.New(`"text_input" is empty: give the prompt's text, or "input_length" tokens`)
		}
		e.Text = *t
	}
	if present(l.Messages) {
		given++
		msgs, err := parseMessages(l.Messages)
		if err != nil {
			return err
		}
		e.Messages = msgs
	}
	switch {
	case given == 0:
		return errors.New(`the prompt is missing: give "input_length" (tokens, with "output_length"), "text_input" or "messages"`)
	case given > 1:
		return errors.New(`give one of "input_length", "text_input" and "messages", not several`)
	}
	if e.InputTokens == 0 && len(e.HashIDs) > 0 {
		return errors.New(`"hash_ids" name blocks of a synthetic prompt: they go with "input_length", not with a text or messages`)
	}
	return nil
}

// ParseTrace reads a whole trace (blank lines are skipped; a bad line is refused with
// its number). A trace with no request is refused with ErrEmptyTrace.
func ParseTrace(r io.Reader) (*Trace, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		_, _ = br.Discard(3)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	t := &Trace{}
	var prev time.Duration
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		e, err := ParseTraceLine(b, prev)
		if err != nil {
			return nil, &TraceLineError{Line: n, Why: err.Error()}
		}
		prev = e.At
		t.Entries = append(t.Entries, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &TraceLineError{Line: n + 1, Why: fmt.Sprintf("longer than %d MiB", MaxLine>>20)}
		}
		return nil, err
	}
	if len(t.Entries) == 0 {
		return nil, ErrEmptyTrace
	}
	return t, nil
}

// LoadTrace reads the trace at path (see ParseTrace). Errors name the file.
func LoadTrace(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *fs.PathError names the file
	}
	defer f.Close()
	t, err := ParseTrace(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// TraceSource gives a trace's requests in its order: request i is line i's (after the
// last, the trace again). A line's lengths become a synthetic prompt of about that many
// tokens whose hash_ids blocks are real shared text: the same block id gives the same
// 512 words in every prompt of the run (fewer for a prompt's last, partial block), so
// requests that share blocks share a prefix a server can cache; the tokens past the
// blocks are the request's own. Texts and messages are sent as they are.
type TraceSource struct {
	t    *Trace
	seed uint64
}

// NewTraceSource returns the requests of t, their words drawn from seed.
func NewTraceSource(t *Trace, seed uint64) *TraceSource { return &TraceSource{t: t, seed: seed} }

// Len is the number of requests in the trace.
func (s *TraceSource) Len() int { return len(s.t.Entries) }

// Request implements Source.
func (s *TraceSource) Request(i uint64) Request {
	e := &s.t.Entries[i%uint64(len(s.t.Entries))]
	req := Request{MaxTokens: e.OutputTokens, PromptTokens: e.InputTokens}
	switch {
	case e.Messages != nil:
		req.Messages = e.Messages
	case e.Text != "":
		req.Prompt = e.Text
	default:
		req.Prompt = s.synthetic(i, e)
	}
	return req
}

// blockSalt and traceSalt separate the blocks' words and the requests' own words from
// the other sources'.
const (
	blockSalt = 0x626c6f636b
	traceSalt = 0x7472616365
)

// synthetic is the prompt of a length line: its blocks, then its own words.
func (s *TraceSource) synthetic(i uint64, e *TraceEntry) string {
	var b []byte
	left := e.InputTokens
	for _, h := range e.HashIDs {
		if left <= 0 {
			break
		}
		n := min(left, TraceBlockTokens)
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, Words(s.seed^blockSalt^splitmix64(uint64(h)), n)...)
		left -= n
	}
	if left > 0 {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, ownText(rand.New(rand.NewPCG(s.seed^traceSalt, i)), left)...)
	}
	return string(b)
}

// splitmix64 mixes a block id into a seed.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
