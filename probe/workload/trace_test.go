package workload

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const mooncake = `{"timestamp": 0, "input_length": 1200, "output_length": 52, "hash_ids": [0, 1, 2]}
{"timestamp": 105, "input_length": 1800, "output_length": 26, "hash_ids": [0, 3, 4, 5]}

{"timestamp": 274.5, "input_length": 1300, "output_length": 52, "hash_ids": [1, 4, 6], "session_id": "s1"}
{"timestamp": 274.5, "text_input": "Tell me about Go.", "output_length": 30}
{"timestamp": 900, "messages": [{"role": "user", "content": "Hello"}]}
{"timestamp": 1000, "input_length": 40, "output_length": 8}
`

func TestParseTrace(t *testing.T) {
	tr, err := ParseTrace(strings.NewReader(mooncake))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Entries) != 6 {
		t.Fatalf("%d entries, want 6", len(tr.Entries))
	}
	e := tr.Entries
	if e[0].At != 0 || e[0].InputTokens != 1200 || e[0].OutputTokens != 52 || len(e[0].HashIDs) != 3 {
		t.Errorf("line 1 = %+v", e[0])
	}
	if e[2].At != 274500*time.Microsecond || e[3].Text != "Tell me about Go." || e[3].OutputTokens != 30 {
		t.Errorf("lines 4-5 = %+v, %+v", e[2], e[3])
	}
	if len(e[4].Messages) != 1 || e[4].OutputTokens != 0 {
		t.Errorf("line 6 = %+v", e[4])
	}
	if tr.Duration() != time.Second {
		t.Errorf("duration %v, want 1s", tr.Duration())
	}
	if got := tr.Times(2); got[1] != 52500*time.Microsecond || got[5] != 500*time.Millisecond {
		t.Errorf("times at speed 2 = %v", got)
	}
}

// Every bad line is refused with its number, what is wrong and what to write, and the
// file's name comes first.
func TestParseTraceRefusesABadLine(t *testing.T) {
	for _, tc := range []struct{ line, why string }{
		{`{"timestamp": -5, "input_length": 10, "output_length": 5}`, `"timestamp" is -5: want 0 or more ms from the trace's start`},
		{`{"timestamp": 50, "input_length": 10, "output_length": 5}`, `"timestamp" 50 is before the previous line's 100: a trace must be in time order (sort it`},
		{`{"input_length": 10, "output_length": 5}`, `"timestamp" is missing: every line needs the moment its request is sent`},
		{`{"timestamp": 200, "output_length": 5}`, `the prompt is missing: give "input_length" (tokens, with "output_length"), "text_input" or "messages"`},
		{`{"timestamp": 200, "input_length": 10}`, `"output_length" is missing: give the answer's length in tokens beside "input_length"`},
		{`{"timestamp": 200, "input_length": 0, "output_length": 5}`, `"input_length" is 0: want a whole number of tokens from 1`},
		{`{"timestamp": 200, "input_length": 10, "output_length": -1}`, `"output_length" is -1`},
		{`{"timestamp": "200", "input_length": 10, "output_length": 5}`, `"timestamp" is a string, but it must be a number: write e.g. "timestamp": 1500 (ms from the trace's start)`},
		{`{"timestamp": 200, "input_length": 10.5, "output_length": 5}`, `"input_length" is the number 10.5, but it must be a whole number: write e.g. "input_length": 1200 (tokens)`},
		{`{"timestamp": 200, "input_length": 10, "output_length": 5, "hash_ids": ["a"]}`, `"hash_ids" is a string, but it must be a whole number`},
		{`{"timestamp": 200, "input_length": 10, "output_length": 5, "hash_ids": [-1]}`, `"hash_ids" holds -1`},
		{`{"timestamp": 200, "text_input": "a", "input_length": 5, "output_length": 5}`, `give one of "input_length", "text_input" and "messages", not several`},
		{`{"timestamp": 200, "text_input": "a", "hash_ids": [1]}`, `"hash_ids" name blocks of a synthetic prompt`},
		{`{"timestamp": 200, "messages": []}`, `"messages" is empty`},
		{`[1, 2]`, `not a JSON object`},
		{`{"timestamp": 200`, `not valid JSON`},
	} {
		in := `{"timestamp": 0, "input_length": 10, "output_length": 5}` + "\n\n" +
			`{"timestamp": 100, "input_length": 10, "output_length": 5}` + "\n" + tc.line + "\n"
		path := filepath.Join(t.TempDir(), "trace.jsonl")
		if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadTrace(path)
		var le *TraceLineError
		if !errors.As(err, &le) || le.Line != 4 || !strings.Contains(err.Error(), tc.why) ||
			!strings.HasPrefix(err.Error(), path+": trace line 4: ") {
			t.Errorf("%s:\n error %v\n want %s: trace line 4: ...%s...", tc.line, err, path, tc.why)
		}
		if err != nil && (strings.Contains(err.Error(), "unmarshal") || strings.Contains(err.Error(), "--")) {
			t.Errorf("%s: the error speaks Go or names a flag: %v", tc.line, err)
		}
	}
}

func TestParseTraceRefusesAnEmptyFile(t *testing.T) {
	for _, in := range []string{"", "\n \n", "\ufeff"} {
		if _, err := ParseTrace(strings.NewReader(in)); !errors.Is(err, ErrEmptyTrace) {
			t.Errorf("ParseTrace(%q) = %v, want ErrEmptyTrace", in, err)
		}
	}
}

// The same block id is the same text in every prompt that names it, at the prompt's
// start when it comes first: the shared prefix a server can cache. The tokens past the
// blocks are the request's own.
func TestTraceSourceSharesBlocksAsRealPrefixes(t *testing.T) {
	tr, err := ParseTrace(strings.NewReader(mooncake))
	if err != nil {
		t.Fatal(err)
	}
	src := NewTraceSource(tr, 7)
	r0, r1, r2 := src.Request(0), src.Request(1), src.Request(2)
	w0, w1, w2 := strings.Fields(r0.Prompt), strings.Fields(r1.Prompt), strings.Fields(r2.Prompt)
	if len(w0) != 1200 || len(w1) != 1800 || len(w2) != 1300 {
		t.Fatalf("prompt words %d, %d, %d, want 1200, 1800, 1300 (about one token a word)", len(w0), len(w1), len(w2))
	}
	if r0.MaxTokens != 52 || r0.PromptTokens != 1200 {
		t.Errorf("request 0 = max %d, prompt %d tokens", r0.MaxTokens, r0.PromptTokens)
	}
	block := func(w []string, k int) string { return strings.Join(w[k*512:min((k+1)*512, len(w))], " ") }
	if block(w0, 0) != block(w1, 0) {
		t.Error("requests 0 and 1 both start with block 0, but their first 512 words differ")
	}
	if block(w0, 1) == block(w1, 1) {
		t.Error("blocks 1 and 3 are the same text")
	}
	if block(w0, 1) != block(w2, 0) {
		t.Error("block 1 is not the same text in requests 0 and 2")
	}
	if block(w1, 2) != block(w2, 1) {
		t.Error("block 4 is not the same text in requests 1 and 2")
	}
	// Request 0's third block is partial (1200 = 2 x 512 + 176): its 176 words begin block 2.
	if got := NewTraceSource(&Trace{Entries: []TraceEntry{{InputTokens: 1536, OutputTokens: 1, HashIDs: []int64{0, 1, 2}}}}, 7).Request(0).Prompt; !strings.HasPrefix(got, r0.Prompt) {
		t.Error("a partial block is not the start of the whole block")
	}
	if r0.Prompt != src.Request(0).Prompt || r0.Prompt == NewTraceSource(tr, 8).Request(0).Prompt {
		t.Error("the prompts do not follow the seed")
	}
	if r := src.Request(5); len(strings.Fields(r.Prompt)) < 38 || r.Prompt == NewTraceSource(tr, 7).Request(11).Prompt {
		t.Errorf("a line without blocks: %q", r.Prompt)
	}
	if r := src.Request(3); r.Prompt != "Tell me about Go." || r.MaxTokens != 30 {
		t.Errorf("a text line = %+v", r)
	}
	if r := src.Request(4); len(r.Messages) != 1 || r.MaxTokens != 0 {
		t.Errorf("a messages line = %+v", r)
	}
}
