package client

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
)

// contentShapes are token events as servers send them, one per server family.
var contentShapes = []struct {
	name, api, event string
}{
	{"vLLM", "chat", `{"id":"chatcmpl-8f2c1e","object":"chat.completion.chunk","created":1732270000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}]}`},
	{"vLLM reasoning", "chat", `{"id":"chatcmpl-8f2c1e","object":"chat.completion.chunk","created":1732270000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning":" hm"},"logprobs":null,"finish_reason":null}]}`},
	{"SGLang", "chat", `{"id":"4f1e","object":"chat.completion.chunk","created":1732270000,"model":"qwen","choices":[{"index":0,"delta":{"role":null,"content":" the","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`},
	{"llama.cpp", "chat", `{"choices":[{"finish_reason":null,"index":0,"delta":{"content":" the"}}],"created":1732270000,"id":"chatcmpl-x","model":"gpt-3.5-turbo","system_fingerprint":"b4000-abc","object":"chat.completion.chunk"}`},
	{"TGI", "chat", `{"object":"chat.completion.chunk","id":"","created":1732270000,"model":"tgi","system_fingerprint":"3.0.0-sha","choices":[{"index":0,"delta":{"role":"assistant","content":" the"},"logprobs":null,"finish_reason":null}],"usage":null}`},
	{"OpenAI", "chat", `{"id":"chatcmpl-B","object":"chat.completion.chunk","created":1732270000,"model":"gpt-4o-mini","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"x1"}`},
	{"completions", "completions", `{"id":"cmpl-1","object":"text_completion","created":1732270000,"model":"m","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`},
}

// shapeBody is a whole stream of n token events of one shape.
func shapeBody(event string, n int) []byte {
	var b bytes.Buffer
	b.WriteString(chunk(`{"role":"assistant","content":""}`))
	for range n {
		b.WriteString("data: " + event + "\n\n")
	}
	b.WriteString(finishChunk("length"))
	b.WriteString(usageChunk(128, n))
	b.WriteString(done)
	return b.Bytes()
}

// TestStreamAllocsPerContentEvent: reading a token event allocates nothing, for every
// server family's event shape: a stream with 1,000 more token events allocates no more.
func TestStreamAllocsPerContentEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	for _, sh := range contentShapes {
		t.Run(sh.name, func(t *testing.T) {
			allocs := func(n int) float64 {
				ep, u, err := normalize(Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m", API: sh.api})
				if err != nil {
					t.Fatal(err)
				}
				c, err := newClient(ep, u, &http.Client{Transport: memTransport{shapeBody(sh.event, n)}})
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				return testing.AllocsPerRun(20, func() {
					if s := c.Stream(ctx, nil); !s.OK() || s.Chunks != n {
						t.Fatalf("Err %q (%s) chunks %d, want %d", s.Err, s.ErrMsg, s.Chunks, n)
					}
				})
			}
			small, large := allocs(10), allocs(1010)
			t.Logf("allocations per stream: %.1f with 10 token events, %.1f with 1,010", small, large)
			if perEvent := (large - small) / 1000; perEvent > 0.001 {
				t.Errorf("%.4f allocations per token event, want 0", perEvent)
			}
		})
	}
}

// BenchmarkDecodeShapes is the decode of one token event of each server family.
func BenchmarkDecodeShapes(b *testing.B) {
	for _, sh := range contentShapes {
		b.Run(strings.ReplaceAll(sh.name, " ", "_"), func(b *testing.B) {
			ev := []byte(sh.event)
			d := decoder{completions: sh.api == "completions"}
			b.ReportAllocs()
			for b.Loop() {
				if info, _ := d.decode(ev); !info.token {
					b.Fatal("not a token")
				}
			}
		})
	}
}
