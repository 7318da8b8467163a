package client

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tpsmon/tpsmon/probe"
)

// benchEvents is the number of token events per stream in the benchmarks.
const benchEvents = 1000

// benchBody is a vLLM-shaped chat stream: a role-only event, benchEvents content
// events, a finish event, a usage event and [DONE].
func benchBody() []byte {
	var b bytes.Buffer
	b.WriteString(chunk(`{"role":"assistant","content":""}`))
	words := strings.Fields(syntheticPrompt(64))
	for i := range benchEvents {
		b.WriteString(`data: {"id":"chatcmpl-8f2c1e","object":"chat.completion.chunk","created":1732270000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" ` +
			words[i%len(words)] + `"},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	}
	b.WriteString(finishChunk("length"))
	b.WriteString(usageChunk(128, benchEvents))
	b.WriteString(done)
	return b.Bytes()
}

// memTransport answers every request with body, from memory: no network, so the
// benchmark measures the client's own per-event work.
type memTransport struct{ body []byte }

func (m memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(bytes.NewReader(m.body)),
		Request: req,
	}, nil
}

// perEvent reports ns and allocations per event for b.N streams of benchEvents events.
func perEvent(b *testing.B, run func()) {
	b.Helper()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	events := float64(b.N) * benchEvents
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/events, "allocs/event")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/events, "B/event")
}

// BenchmarkStreamMem runs whole streams through Client.Stream from an in-memory body.
func BenchmarkStreamMem(b *testing.B) {
	body := benchBody()
	ep, u, err := normalize(Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	c, err := newClient(ep, u, &http.Client{Transport: memTransport{body}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	perEvent(b, func() {
		var p probe.Progress
		if s := c.Stream(ctx, &p); !s.OK() || s.Chunks != benchEvents {
			b.Fatalf("Err %q (%s) chunks %d", s.Err, s.ErrMsg, s.Chunks)
		}
	})
}

// minimalCount is the reference "minimal reader": split lines, count data lines whose
// payload holds a non-empty "content" string. No JSON decoding, no timestamps.
func minimalCount(r io.Reader) int {
	br := bufio.NewReader(r)
	needle := []byte(`"content":"`)
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if bytes.HasPrefix(line, []byte("data:")) {
			if i := bytes.Index(line, needle); i >= 0 && i+len(needle) < len(line) && line[i+len(needle)] != '"' {
				n++
			}
		}
		if err != nil {
			return n
		}
	}
}

// BenchmarkMinimalReaderMem is the reference for BenchmarkStreamMem on the same bytes.
func BenchmarkMinimalReaderMem(b *testing.B) {
	body := benchBody()
	perEvent(b, func() {
		if n := minimalCount(bytes.NewReader(body)); n != benchEvents {
			b.Fatalf("counted %d", n)
		}
	})
}

// BenchmarkRecvRawMem is go-openai's own line reader alone on the same bytes: RecvRaw
// in a loop, no decoding. tpsmon read streams this way before it had its own lineReader;
// kept as the reference for that choice.
func BenchmarkRecvRawMem(b *testing.B) {
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = "http://127.0.0.1:1/v1"
	cfg.HTTPClient = &http.Client{Transport: memTransport{benchBody()}}
	cfg.EmptyMessagesLimit = 1 << 24
	oa := openai.NewClientWithConfig(cfg)
	ctx := context.Background()
	perEvent(b, func() {
		st, err := oa.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{Model: "m"})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			if _, err := st.RecvRaw(); err != nil {
				break
			}
			n++
		}
		_ = st.Close()
		if n != benchEvents+3 {
			b.Fatalf("read %d events", n)
		}
	})
}

// benchServer serves benchBody over loopback HTTP, in one write, or (flush) one event
// per write and flush as a real server sends tokens.
func benchServer(b *testing.B, flush bool) *httptest.Server {
	body := benchBody()
	events := bytes.SplitAfter(body, []byte("\n\n"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if !flush {
			_, _ = w.Write(body)
			return
		}
		for _, e := range events {
			_, _ = w.Write(e)
			w.(http.Flusher).Flush()
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkStreamHTTP runs whole streams through Client.Stream over loopback HTTP.
func BenchmarkStreamHTTP(b *testing.B) {
	b.Run("bulk", func(b *testing.B) { benchStreamHTTP(b, false) })
	b.Run("flushed", func(b *testing.B) { benchStreamHTTP(b, true) })
}

func benchStreamHTTP(b *testing.B, flush bool) {
	srv := benchServer(b, flush)
	c, err := New(Endpoint{BaseURL: srv.URL + "/v1", Model: "m"}, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.CloseIdleConnections)
	ctx := context.Background()
	perEvent(b, func() {
		if s := c.Stream(ctx, nil); !s.OK() || s.Chunks != benchEvents {
			b.Fatalf("Err %q (%s) chunks %d", s.Err, s.ErrMsg, s.Chunks)
		}
	})
}

// BenchmarkMinimalReaderHTTP is the reference for BenchmarkStreamHTTP: the same POST and
// body over loopback, read by minimalCount.
func BenchmarkMinimalReaderHTTP(b *testing.B) {
	b.Run("bulk", func(b *testing.B) { benchMinimalHTTP(b, false) })
	b.Run("flushed", func(b *testing.B) { benchMinimalHTTP(b, true) })
}

func benchMinimalHTTP(b *testing.B, flush bool) {
	srv := benchServer(b, flush)
	hc := &http.Client{Transport: newTransport(Endpoint{}, 1)}
	b.Cleanup(hc.CloseIdleConnections)
	req := []byte(`{"model":"m","stream":true}`)
	perEvent(b, func() {
		resp, err := hc.Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader(req))
		if err != nil {
			b.Fatal(err)
		}
		n := minimalCount(resp.Body)
		_ = resp.Body.Close()
		if n != benchEvents {
			b.Fatalf("counted %d", n)
		}
	})
}

// BenchmarkDecodeContent is the decode of one common content event (the fast path).
func BenchmarkDecodeContent(b *testing.B) {
	ev := []byte(`{"id":"chatcmpl-8f2c1e","object":"chat.completion.chunk","created":1732270000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}]}`)
	d := decoder{}
	b.ReportAllocs()
	for b.Loop() {
		if info, _ := d.decode(ev); !info.answer {
			b.Fatal("not an answer")
		}
	}
}

// BenchmarkWatchdogTimerReset is the per-event cost of the simple idle timeout: one
// timer.Reset per event.
func BenchmarkWatchdogTimerReset(b *testing.B) {
	tm := time.AfterFunc(time.Hour, func() {})
	defer tm.Stop()
	for b.Loop() {
		tm.Reset(time.Minute)
	}
}

// BenchmarkWatchdogStore is the per-read cost of the watchdog Client uses: an atomic
// store of a clock reading (the reader takes that reading anyway, for timestamps); the
// timer only wakes once per timeout period.
func BenchmarkWatchdogStore(b *testing.B) {
	var rs reqState
	now := probe.Mono()
	for b.Loop() {
		now++
		rs.alive.Store(now)
	}
}
