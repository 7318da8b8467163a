package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// promptRecorder answers every request with a short stream and keeps each prompt.
type promptRecorder struct {
	mu      sync.Mutex
	prompts []string
}

func (pr *promptRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body struct {
		Prompt   string `json:"prompt"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(b, &body)
	p := body.Prompt
	if len(body.Messages) > 0 {
		p = body.Messages[0].Content
	}
	pr.mu.Lock()
	pr.prompts = append(pr.prompts, p)
	pr.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, chunk(`{"content":"a"}`)+finishChunk("stop")+done)
}

func (pr *promptRecorder) sent(t *testing.T, ep Endpoint, n int) ([]string, Endpoint) {
	t.Helper()
	pr.prompts = nil
	c, err := New(ep, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	for range n {
		if s := c.Stream(context.Background(), nil); !s.OK() {
			t.Fatalf("Err %q (%s)", s.Err, s.ErrMsg)
		}
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return append([]string(nil), pr.prompts...), c.Endpoint()
}

// TestClientPromptsDiffer: without a user prompt every request's prompt differs from its
// first word on (prefix caches answer nothing from an earlier request), has the same
// length, and the sequence is the seed's: the same seed sends the same prompts again. A
// user prompt is sent as is, every time. Both APIs.
func TestClientPromptsDiffer(t *testing.T) {
	for _, api := range []string{"chat", "completions"} {
		t.Run(api, func(t *testing.T) {
			pr := &promptRecorder{}
			ep := serve(t, pr.ServeHTTP)
			ep.API, ep.PromptTokens = api, 64
			const n = 20
			got, used := pr.sent(t, ep, n)
			if used.PromptSeed == 0 {
				t.Errorf("no seed drawn for a run without one")
			}
			first := map[string]bool{}
			for i, p := range got {
				w := strings.Fields(p)
				if len(w) != len(strings.Fields(got[0])) || len(w) < 55 || len(w) > 70 || !strings.HasSuffix(p, promptTail) {
					t.Errorf("prompt %d has %d words (prompt 0: %d), want about 64 and the same: %q", i, len(w), len(strings.Fields(got[0])), p)
				}
				if first[w[0]] {
					t.Errorf("prompt %d starts with %q like an earlier one", i, w[0])
				}
				first[w[0]] = true
			}
			ep.PromptSeed = used.PromptSeed
			again, _ := pr.sent(t, ep, n)
			if strings.Join(again, "|") != strings.Join(got, "|") {
				t.Errorf("the same seed sent other prompts")
			}
			ep.PromptSeed++
			if other, _ := pr.sent(t, ep, 1); other[0] == got[0] {
				t.Errorf("another seed sent the same first prompt")
			}
			ep.Prompt = "Say hi"
			for _, p := range func() []string { s, _ := pr.sent(t, ep, 3); return s }() {
				if p != "Say hi" {
					t.Errorf("user prompt sent as %q", p)
				}
			}
		})
	}
}

// TestPromptSequence: the first two words of any two of 16,384 consecutive prompts
// differ; every prompt of a sequence has the same number of words.
func TestPromptSequence(t *testing.T) {
	const n = 16384
	seen := make(map[string]int, n)
	for k := range uint64(n) {
		p := string(appendPrompt(nil, 12345, k+1000, 40))
		w := strings.Fields(p)
		if len(w) != 40+len(strings.Fields(promptTail)) {
			t.Fatalf("prompt %d: %d words", k, len(w))
		}
		two := w[0] + " " + w[1]
		if j, dup := seen[two]; dup {
			t.Fatalf("prompts %d and %d both start with %q", j, k, two)
		}
		seen[two] = int(k)
	}
}

// TestBodySourceKeepsUserMessages: an extra body that replaces the messages leaves the
// body as the user wrote it.
func TestBodySourceKeepsUserMessages(t *testing.T) {
	ep := Endpoint{Model: "m", API: "chat", MaxTokens: 4, ExtraBody: map[string]any{
		"messages": []any{map[string]any{"role": "user", "content": "fixed"}}}}
	b, err := requestBody(ep)
	if err != nil {
		t.Fatal(err)
	}
	src := newBodySource(b, 7, 10)
	if one, two := string(src.next()), string(src.next()); one != two || !strings.Contains(one, `"fixed"`) {
		t.Fatalf("bodies %s / %s", one, two)
	}
}

// BenchmarkBodySourceNext is the per-request cost of a fresh prompt of 128 tokens.
func BenchmarkBodySourceNext(b *testing.B) {
	body, err := requestBody(Endpoint{Model: "m", API: "chat", MaxTokens: 256})
	if err != nil {
		b.Fatal(err)
	}
	src := newBodySource(body, 7, promptWordCount(DefaultPromptTokens))
	b.ReportAllocs()
	for b.Loop() {
		_ = src.next()
	}
}
