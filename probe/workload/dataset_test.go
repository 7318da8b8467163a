package workload

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseJSONLines(t *testing.T) {
	in := `{"prompt": "Tell me about Go.", "id": 7}

{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}], "max_tokens": 64}
{"conversations": [{"from": "gpt", "value": "hello"}, {"from": "human", "value": "What is SSE?"}]}
`
	got, skipped, err := Parse(strings.NewReader(in))
	if err != nil || skipped != 0 {
		t.Fatalf("Parse: %v (skipped %d)", err, skipped)
	}
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3", len(got))
	}
	if got[0].Prompt != "Tell me about Go." || got[0].MaxTokens != 0 || got[0].Messages != nil {
		t.Errorf("entry 1 = %+v", got[0])
	}
	if len(got[1].Messages) != 2 || got[1].Messages[1] != (Message{"user", "Hi"}) || got[1].MaxTokens != 64 {
		t.Errorf("entry 2 = %+v", got[1])
	}
	if got[2].Prompt != "What is SSE?" {
		t.Errorf("entry 3 (ShareGPT record) = %+v, want the first human turn", got[2])
	}
}

func TestParseRefusesABadLineWithItsNumber(t *testing.T) {
	for _, tc := range []struct {
		line string
		why  string
	}{
		{`{"prompt": ""}`, `"prompt" is empty`},
		{`{"prompt": 5}`, `"prompt" is a number, but it must be a string of text in quotes: write e.g. {"prompt": "Tell me about Go."}`},
		{`{"prompt": ["a"]}`, `"prompt" is a list [...], but it must be a string of text in quotes`},
		{`{"text": "hi"}`, `no "prompt", "messages" or "conversations"`},
		{`{"prompt": "a", "messages": [{"role": "user", "content": "b"}]}`, "not several"},
		{`{"messages": []}`, `"messages" is empty`},
		{`{"messages": [{"content": "b"}]}`, "messages[0] has no role"},
		{`{"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}`, "messages[0].content holds a part that is not text"},
		{`{"messages": [{"role": "user", "content": 7}]}`, `messages[0].content is a number, not a string: write its text in quotes, e.g. {"role": "user", "content": "Hi"}`},
		{`{"prompt": "a", "max_tokens": 0}`, `"max_tokens" is 0`},
		{`{"prompt": "a", "max_tokens": 1.5}`, `"max_tokens" is 1.5`},
		{`{"prompt": "a", "max_tokens": "64"}`, `"max_tokens" is "64"`},
		{`{"conversations": [{"from": "gpt", "value": "x"}]}`, "no human turn"},
		{`["prompt"]`, "not a JSON object"},
		{`{"prompt": "a"`, "not valid JSON"},
	} {
		in := `{"prompt": "fine"}` + "\n\n" + tc.line + "\n" + `{"prompt": "after"}` + "\n"
		_, _, err := Parse(strings.NewReader(in))
		var le *LineError
		if !errors.As(err, &le) || le.Line != 3 || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%s: error %v, want line 3 saying %q", tc.line, err, tc.why)
		}
		if err != nil && strings.Contains(err.Error(), "--") {
			t.Errorf("%s: the error names a flag: %v", tc.line, err)
		}
	}
}

// A line of the wrong type says which line, which key, what it holds and what to write,
// never Go's own words (issue 14).
func TestParseWordsATypeErrorForAPerson(t *testing.T) {
	_, _, err := Parse(strings.NewReader(`{"prompt": "ok"}` + "\n" + `{"prompt": 42}` + "\n"))
	want := `dataset line 2: "prompt" is a number, but it must be a string of text in quotes: write e.g. {"prompt": "Tell me about Go."}`
	if err == nil || err.Error() != want {
		t.Fatalf("error\n %v\nwant\n %s", err, want)
	}
	for _, goWords := range []string{"unmarshal", "Go struct", "line.prompt"} {
		if strings.Contains(err.Error(), goWords) {
			t.Errorf("the error speaks Go (%q): %v", goWords, err)
		}
	}
}

func TestParseSkipsAByteOrderMark(t *testing.T) {
	for _, in := range []string{"\ufeff{\"prompt\": \"a\"}\n", "\ufeff[{\"prompt\": \"a\"}]"} {
		if got, _, err := Parse(strings.NewReader(in)); err != nil || len(got) != 1 || got[0].Prompt != "a" {
			t.Errorf("Parse(%q) = %+v, %v", in, got, err)
		}
	}
}

func TestParseRefusesAnEmptyFile(t *testing.T) {
	for _, in := range []string{"", "\n\n  \n", "[]", " [ ] "} {
		if _, _, err := Parse(strings.NewReader(in)); !errors.Is(err, ErrEmpty) {
			t.Errorf("Parse(%q) = %v, want ErrEmpty", in, err)
		}
	}
}

func TestParseShareGPTArray(t *testing.T) {
	in := `[
  {"id": "a", "conversations": [
    {"from": "human", "value": "first question"},
    {"from": "gpt", "value": "an answer"},
    {"from": "human", "value": "second question"}]},
  {"id": "b", "conversations": [{"from": "gpt", "value": "no question"}]},
  {"id": "c", "conversations": [{"from": "human", "value": "third"}]}
]`
	got, skipped, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Prompt != "first question" || got[1].Prompt != "third" || skipped != 1 {
		t.Errorf("got %+v, skipped %d; want the first human turns of a and c, b skipped", got, skipped)
	}
	bad := "[\n {\"conversations\": [{\"from\": \"human\", \"value\": \"ok\"}]},\n\n {\"prompt\": \"\"}\n]"
	_, _, err = Parse(strings.NewReader(bad))
	var le *LineError
	if !errors.As(err, &le) || le.Entry != 2 || le.Line != 4 {
		t.Errorf("bad entry: %v, want entry 2 on line 4", err)
	}
	if _, _, err := Parse(strings.NewReader(`[{"prompt": "a"}`)); err == nil {
		t.Errorf("an unterminated array was accepted")
	}
	if _, skipped, err := Parse(strings.NewReader(`[{"conversations": []}]`)); !errors.Is(err, ErrEmpty) || skipped != 1 {
		t.Errorf("only conversations without a human turn: %v, skipped %d", err, skipped)
	}
}

func TestParseLongLine(t *testing.T) {
	long := `{"prompt": "` + strings.Repeat("word ", 200000) + `"}`
	got, _, err := Parse(strings.NewReader(long + "\n"))
	if err != nil || len(got) != 1 || len(got[0].Prompt) != 1000000 {
		t.Errorf("a 1 MB line: %v", err)
	}
}

// FuzzParseLine checks that no line makes the parser panic, and that what it accepts
// can be sent: a non-empty prompt or messages with roles, and a max_tokens in range.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"prompt": "hi"}`,
		`{"prompt": "hi", "max_tokens": 12}`,
		`{"messages": [{"role": "user", "content": "x"}]}`,
		`{"conversations": [{"from": "human", "value": "q"}]}`,
		`{"prompt": null, "messages": null}`,
		`{"max_tokens": 1e400}`,
		`{`,
		`[]`,
		"\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseLine(b)
		if err != nil {
			if e.Prompt != "" || e.Messages != nil {
				t.Fatalf("an error with a request: %v", err)
			}
			return
		}
		if (e.Prompt == "") == (e.Messages == nil) {
			t.Fatalf("accepted %q as %+v: want exactly one of prompt and messages", b, e)
		}
		for _, m := range e.Messages {
			if !roles[m.Role] {
				t.Fatalf("accepted role %q", m.Role)
			}
		}
		if e.MaxTokens < 0 || e.MaxTokens > MaxLength {
			t.Fatalf("accepted max_tokens %d", e.MaxTokens)
		}
	})
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(good, []byte(`{"prompt": "a"}`+"\n"+`{"messages": [{"role": "user", "content": "b"}, {"role": "assistant", "content": "c"}]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _, err := LoadFile(good)
	if err != nil || len(got) != 2 {
		t.Fatalf("LoadFile: %v, %d entries", err, len(got))
	}
	if txt := (Request{Messages: got[1].Messages}).Text(); txt != "b\n\nc" {
		t.Errorf("Text() of messages = %q", txt)
	}
	if txt := (Request{Prompt: "a"}).Text(); txt != "a" {
		t.Errorf("Text() of a prompt = %q", txt)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"prompt": "a"}`+"\n"+`{"prompt": 1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err = LoadFile(bad)
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), "bad.jsonl") {
		t.Errorf("bad file: %v, want line 2 and the file's name", err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadFile(empty); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "empty.jsonl") {
		t.Errorf("empty file: %v", err)
	}
	if _, _, err := LoadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// A message's content may be a list of text parts, as the chat APIs take it.
func TestParseMessageContentParts(t *testing.T) {
	e, err := ParseLine([]byte(`{"messages": [{"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}]}`))
	if err != nil || e.Messages[0].Content != "one\ntwo" {
		t.Errorf("content parts: %+v, %v", e, err)
	}
}
