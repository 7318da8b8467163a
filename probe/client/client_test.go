package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

const testKey = "sk-test-SECRET-0123456789"

// serve starts an httptest server for h and returns an endpoint pointing at it.
func serve(t *testing.T, h http.HandlerFunc) Endpoint {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return Endpoint{BaseURL: srv.URL + "/v1", Model: "test-model", Timeout: 5 * time.Second}
}

// sseHandler answers every request with the given SSE events (each flushed on its
// own) and records the last request body.
type sseHandler struct {
	events []string // raw event text, written as is (include the "\n\n")
	mu     sync.Mutex
	body   map[string]any
	header http.Header
	path   string
}

func (h *sseHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.body = nil
	_ = json.Unmarshal(b, &h.body)
	h.header = r.Header.Clone()
	h.path = r.URL.Path
	h.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, e := range h.events {
		_, _ = io.WriteString(w, e)
		w.(http.Flusher).Flush()
	}
}

func (h *sseHandler) got() (map[string]any, http.Header, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.body, h.header, h.path
}

func chunk(delta string) string {
	return `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
}

func finishChunk(reason string) string {
	return `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}` + "\n\n"
}

func usageChunk(prompt, completion int) string {
	return fmt.Sprintf(`data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n",
		prompt, completion, prompt+completion)
}

const done = "data: [DONE]\n\n"

func stream(t *testing.T, ep Endpoint) (model.Sample, *probe.Progress) {
	t.Helper()
	c, err := New(ep, 4)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.CloseIdleConnections)
	var p probe.Progress
	s := c.Stream(context.Background(), &p)
	return s, &p
}

func TestClientStreamQuirks(t *testing.T) {
	content := func(s string) string { return chunk(`{"content":"` + s + `"}`) }
	tests := []struct {
		name        string
		api         string
		events      []string
		chunks      int
		tokens      int
		usage       bool
		finish      string
		answerAfter bool // t_first_answer strictly after t_first
	}{
		{
			name: "role-only first event, usage-only last event",
			events: []string{chunk(`{"role":"assistant","content":""}`), content("Hello"), content(" world"),
				finishChunk("length"), usageChunk(7, 2), done},
			chunks: 2, tokens: 2, usage: true, finish: "length",
		},
		{
			name:   "several tokens per event, usage counts tokens",
			events: []string{content("a b c"), content("d e f"), content("g h i"), finishChunk("stop"), usageChunk(7, 9), done},
			chunks: 3, tokens: 9, usage: true, finish: "stop",
		},
		{
			name:   "no usage at all: tokens are chunks",
			events: []string{content("a"), content("b"), content("c"), content("d"), finishChunk("stop"), done},
			chunks: 4, tokens: 4, finish: "stop",
		},
		{
			name: "reasoning_content then content",
			events: []string{chunk(`{"role":"assistant","content":null,"reasoning_content":"think"}`),
				chunk(`{"reasoning_content":" more"}`), content("answer"), finishChunk("stop"), usageChunk(1, 3), done},
			chunks: 3, tokens: 3, usage: true, finish: "stop", answerAfter: true,
		},
		{
			name: "reasoning (vLLM field name) then content",
			events: []string{chunk(`{"content":null,"reasoning":"think"}`), chunk(`{"reasoning":" more"}`),
				content("answer"), finishChunk("stop"), done},
			chunks: 3, tokens: 3, finish: "stop", answerAfter: true,
		},
		{
			name: "tool_calls deltas are tokens",
			events: []string{chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}`),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]}`),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}`), finishChunk("tool_calls"), done},
			chunks: 3, tokens: 3, finish: "tool_calls",
		},
		{
			name: "400+ pings before the first token",
			events: append([]string{strings.Repeat(": ping\n\n", 450)},
				content("a"), content("b"), finishChunk("stop"), done),
			chunks: 2, tokens: 2, finish: "stop",
		},
		{
			name: "event: lines and ids are not tokens",
			events: []string{"event: message\nid: 1\n" + content("a"), "retry: 100\n\n", "event: message\n" + content("b"),
				finishChunk("stop"), done},
			chunks: 2, tokens: 2, finish: "stop",
		},
		{
			name:   "CRLF line endings",
			events: []string{strings.ReplaceAll(content("a")+content("b")+finishChunk("stop")+usageChunk(3, 2)+done, "\n", "\r\n")},
			chunks: 2, tokens: 2, usage: true, finish: "stop",
		},
		{
			name:   "data: without a space",
			events: []string{strings.ReplaceAll(content("a")+content("b")+content("c")+finishChunk("stop")+done, "data: ", "data:")},
			chunks: 3, tokens: 3, finish: "stop",
		},
		{
			name:   "pretty-printed JSON",
			events: []string{"data: {\"choices\": [ { \"delta\": { \"content\": \"x\" }, \"finish_reason\": null } ] }\n\n", content("y"), finishChunk("stop"), done},
			chunks: 2, tokens: 2, finish: "stop",
		},
		{
			name:   "finish_reason without [DONE] is a success",
			events: []string{content("a"), finishChunk("stop")},
			chunks: 1, tokens: 1, finish: "stop",
		},
		{
			name:   "[DONE] without finish_reason is a success",
			events: []string{content("a"), content("b"), done},
			chunks: 2, tokens: 2,
		},
		{
			name: "completions API text",
			api:  "completions",
			events: []string{
				`data: {"id":"x","object":"text_completion","choices":[{"index":0,"text":"","finish_reason":null}]}` + "\n\n",
				`data: {"id":"x","object":"text_completion","choices":[{"index":0,"text":"Hi","finish_reason":null}]}` + "\n\n",
				`data: {"id":"x","object":"text_completion","choices":[{"index":0,"text":" there","logprobs":null,"finish_reason":null}]}` + "\n\n",
				`data: {"id":"x","object":"text_completion","choices":[{"index":0,"text":"","finish_reason":"length"}]}` + "\n\n",
				`data: {"id":"x","object":"text_completion","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2}}` + "\n\n",
				done},
			chunks: 2, tokens: 2, usage: true, finish: "length",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &sseHandler{events: tt.events}
			ep := serve(t, h.ServeHTTP)
			ep.API = tt.api
			s, p := stream(t, ep)
			if !s.OK() {
				t.Fatalf("Err = %q (%s), want success", s.Err, s.ErrMsg)
			}
			if s.Chunks != tt.chunks || s.Tokens != tt.tokens || s.Usage != tt.usage || s.Finish != tt.finish {
				t.Errorf("chunks, tokens, usage, finish = %d, %d, %v, %q; want %d, %d, %v, %q",
					s.Chunks, s.Tokens, s.Usage, s.Finish, tt.chunks, tt.tokens, tt.usage, tt.finish)
			}
			if got := p.Chunks.Load(); got != int64(tt.chunks) {
				t.Errorf("Progress.Chunks = %d, want %d", got, tt.chunks)
			}
			if p.Send.Load() == 0 || p.First.Load() == 0 {
				t.Errorf("Progress.Send = %d, First = %d: want both set", p.Send.Load(), p.First.Load())
			}
			if probe.MonoTime(p.First.Load()) != s.First {
				t.Errorf("Progress.First %v != Sample.First %v", probe.MonoTime(p.First.Load()), s.First)
			}
			if s.Status != 200 || s.Send.IsZero() || s.Headers.IsZero() || s.First.IsZero() || s.Last.IsZero() || s.End.IsZero() {
				t.Fatalf("status %d, times send=%v headers=%v first=%v last=%v end=%v", s.Status, s.Send, s.Headers, s.First, s.Last, s.End)
			}
			if s.Headers.Before(s.Send) || s.First.Before(s.Headers) || s.Last.Before(s.First) || s.End.Before(s.Last) {
				t.Errorf("times out of order: send %v headers %v first %v last %v end %v", s.Send, s.Headers, s.First, s.Last, s.End)
			}
			if s.FirstAnswer.IsZero() == (tt.finish != "tool_calls") {
				t.Errorf("FirstAnswer = %v for finish %q", s.FirstAnswer, tt.finish)
			}
			// Events that arrive in one read share their arrival time: the answer comes no
			// earlier than the reasoning (TestClientTiming spaces them out).
			if tt.answerAfter && s.FirstAnswer.Before(s.First) {
				t.Errorf("FirstAnswer %v should not come before First %v (reasoning first)", s.FirstAnswer, s.First)
			}
			if !tt.answerAfter && !s.FirstAnswer.IsZero() && !s.FirstAnswer.Equal(s.First) {
				t.Errorf("FirstAnswer %v != First %v", s.FirstAnswer, s.First)
			}
			if s.PromptTokens == 0 && tt.usage {
				t.Errorf("PromptTokens = 0 with usage")
			}
		})
	}
}

func TestClientStreamErrors(t *testing.T) {
	content := func(s string) string { return chunk(`{"content":"` + s + `"}`) }
	tests := []struct {
		name    string
		events  []string
		kind    model.ErrorKind
		msg     string // substring of ErrMsg
		chunks  int
		nonSSE  bool
		withKey bool
	}{
		{name: "in-band data error object", events: []string{content("a"), `data: {"error":{"message":"CUDA out of memory","type":"InternalServerError","code":500}}` + "\n\n"},
			kind: model.ErrStream, msg: "CUDA out of memory", chunks: 1},
		{name: "in-band data error string (TGI)", events: []string{content("a"), `data: {"error":"Request failed during generation","error_type":"generation"}` + "\n\n"},
			kind: model.ErrStream, msg: "error", chunks: 1},
		{name: "old vLLM error object", events: []string{content("a"), `data: {"object":"error","message":"engine dead","type":"x","code":500}` + "\n\n"},
			kind: model.ErrStream, msg: "engine dead", chunks: 1},
		{name: "event: error", events: []string{content("a"), "event: error\ndata: {\"type\":\"error\",\"message\":\"overloaded\"}\n\n"},
			kind: model.ErrStream, msg: "overloaded", chunks: 1},
		{name: "event: error with plain text data", events: []string{content("a"), "event: error\ndata: overloaded, try later\n\n"},
			kind: model.ErrStream, msg: "overloaded", chunks: 1},
		{name: "event: error then [DONE]", events: []string{content("a"), "event: error\ndata: {\"detail\":\"boom\"}\n\n", done},
			kind: model.ErrStream, msg: `{"detail":"boom"}`, chunks: 1},
		{name: "unparseable event", events: []string{content("a"), "data: {not json\n\n"},
			kind: model.ErrProtocol, msg: "{not json", chunks: 1},
		{name: "HTML body with status 200", events: []string{"<html>\n<body>Welcome to nginx!</body>\n</html>\n"},
			kind: model.ErrProtocol, msg: "<html> <body>Welcome to nginx!", nonSSE: true},
		{name: "non-streamed JSON answer", events: []string{`{"id":"x","object":"chat.completion","choices":[{"message":{"content":"hi"}}]}`},
			kind: model.ErrProtocol, msg: "not with an event stream", nonSSE: true},
		{name: "finish_reason abort (vLLM dropped the request)", events: []string{content("a"), content("b"), finishChunk("abort"), done},
			kind: model.ErrStream, msg: `finish_reason "abort" after 2 chunks`, chunks: 2},
		{name: "finish_reason error", events: []string{content("a"), finishChunk("error"), done},
			kind: model.ErrStream, msg: `finish_reason "error" after 1 chunks`, chunks: 1},
		{name: "stream ends without finish or [DONE]", events: []string{content("a"), content("b")},
			kind: model.ErrTruncated, msg: "after 2 chunks", chunks: 2},
		{name: "error message never shows the key", events: []string{content("a"), `data: {"error":{"message":"bad key ` + testKey + `"}}` + "\n\n"},
			kind: model.ErrStream, msg: "[redacted]", chunks: 1, withKey: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &sseHandler{events: tt.events}
			ep := serve(t, h.ServeHTTP)
			if tt.withKey {
				ep.APIKey = testKey
			}
			s, _ := stream(t, ep)
			t.Logf("ErrMsg: %s", s.ErrMsg)
			if s.Err != tt.kind || !strings.Contains(s.ErrMsg, tt.msg) {
				t.Fatalf("Err = %q, msg %q; want %q containing %q", s.Err, s.ErrMsg, tt.kind, tt.msg)
			}
			if strings.Contains(s.ErrMsg, testKey) || strings.Contains(s.ErrMsg, "\n") {
				t.Errorf("ErrMsg has the key or a newline: %q", s.ErrMsg)
			}
			if s.Chunks != tt.chunks || s.Status != 200 || s.End.IsZero() {
				t.Errorf("chunks %d status %d end %v; want %d chunks, status 200, an end", s.Chunks, s.Status, s.End, tt.chunks)
			}
		})
	}
}

func TestClientHTTPErrors(t *testing.T) {
	tests := []struct {
		name, ctype, body string
		status            int
		key               string
		want              []string
	}{
		{name: "401 with a key", status: 401, key: testKey, ctype: "application/json",
			body: `{"error":{"message":"Incorrect API key provided: ` + testKey + `","type":"invalid_request_error"}}`,
			want: []string{"refused the API key", "OPENAI_API_KEY"}},
		{name: "401 without a key", status: 401, ctype: "application/json", body: `{"error":{"message":"no key"}}`,
			want: []string{"none was sent", "OPENAI_API_KEY"}},
		{name: "403 plain text", status: 403, key: testKey, ctype: "text/plain", body: "forbidden " + testKey,
			want: []string{"refused the API key"}},
		{name: "404 model not found", status: 404, ctype: "application/json",
			body: `{"error":{"message":"The model ` + "`nope`" + ` does not exist.","type":"NotFoundError","code":404}}`,
			want: []string{"http 404", "The model `nope` does not exist.", "the model name"}},
		{name: "404 old vLLM body", status: 404, ctype: "application/json",
			body: `{"object":"error","message":"The model nope does not exist.","type":"NotFoundError","code":404}`,
			want: []string{"The model nope does not exist."}},
		{name: "429", status: 429, ctype: "application/json", body: `{"error":{"message":"Rate limit reached","type":"rate_limit"}}`,
			want: []string{"http 429", "Rate limit reached"}},
		{name: "500 FastAPI detail", status: 500, ctype: "application/json", body: `{"detail":"engine crashed"}`,
			want: []string{"http 500", "engine crashed"}},
		{name: "502 HTML page", status: 502, ctype: "text/html",
			body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>" + strings.Repeat(" pad", 100),
			want: []string{"http 502", "<html> <head><title>502 Bad Gateway</title></head>", "..."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			})
			ep.APIKey = tt.key
			s, p := stream(t, ep)
			t.Logf("ErrMsg: %s", s.ErrMsg)
			if s.Err != model.HTTPError(tt.status) || s.Status != tt.status {
				t.Fatalf("Err = %q status %d, want %q", s.Err, s.Status, model.HTTPError(tt.status))
			}
			for _, w := range tt.want {
				if !strings.Contains(s.ErrMsg, w) {
					t.Errorf("ErrMsg %q does not contain %q", s.ErrMsg, w)
				}
			}
			if strings.Contains(s.ErrMsg, testKey) || strings.ContainsAny(s.ErrMsg, "\r\n") || len(s.ErrMsg) > 400 {
				t.Errorf("ErrMsg leaks the key, spans lines or is too long: %q", s.ErrMsg)
			}
			if s.Send.IsZero() || s.Headers.IsZero() || !s.First.IsZero() || p.Chunks.Load() != 0 {
				t.Errorf("send %v headers %v first %v chunks %d", s.Send, s.Headers, s.First, p.Chunks.Load())
			}
		})
	}
}

// hijack answers with raw bytes and then closes the connection.
func hijack(raw string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		_, _ = buf.WriteString(raw)
		_ = buf.Flush()
		_ = conn.Close()
	}
}

func TestClientTruncated(t *testing.T) {
	ev := chunk(`{"content":"a"}`) + chunk(`{"content":"b"}`)
	tests := []struct {
		name string
		h    http.HandlerFunc
	}{
		{"close-delimited body cut", hijack("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + ev)},
		{"chunked body cut", hijack("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x\r\n%s\r\n", len(ev), ev))},
		{"handler aborts", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, ev)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := stream(t, serve(t, tt.h))
			if s.Err != model.ErrTruncated || s.Chunks != 2 || s.Status != 200 {
				t.Fatalf("Err %q (%s) chunks %d status %d; want truncated after 2 chunks", s.Err, s.ErrMsg, s.Chunks, s.Status)
			}
		})
	}
	t.Run("[DONE] then close is a success", func(t *testing.T) {
		s, _ := stream(t, serve(t, hijack("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"+ev+done)))
		if !s.OK() || s.Chunks != 2 {
			t.Fatalf("Err %q (%s) chunks %d; want success", s.Err, s.ErrMsg, s.Chunks)
		}
	})
	t.Run("connection closed before headers", func(t *testing.T) {
		s, _ := stream(t, serve(t, hijack("")))
		if s.Err != model.ErrConnect || !strings.Contains(s.ErrMsg, "127.0.0.1:") {
			t.Fatalf("Err %q (%s); want connect naming host:port", s.Err, s.ErrMsg)
		}
	})
}

func TestClientTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	wait := func(r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server notices a closed connection only after the body
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	t.Run("headers never come", func(t *testing.T) {
		ep := serve(t, func(w http.ResponseWriter, r *http.Request) { wait(r) })
		ep.Timeout = 150 * time.Millisecond
		start := time.Now()
		s, _ := stream(t, ep)
		if s.Err != model.ErrTimeout || !strings.Contains(s.ErrMsg, "no response headers") {
			t.Fatalf("Err %q (%s); want timeout", s.Err, s.ErrMsg)
		}
		if el := time.Since(start); el < ep.Timeout || el > 5*time.Second {
			t.Errorf("returned after %v with timeout %v", el, ep.Timeout)
		}
	})
	t.Run("stream goes quiet", func(t *testing.T) {
		ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, chunk(`{"content":"a"}`))
			w.(http.Flusher).Flush()
			wait(r)
		})
		ep.Timeout = 150 * time.Millisecond
		s, _ := stream(t, ep)
		if s.Err != model.ErrTimeout || s.Chunks != 1 || !strings.Contains(s.ErrMsg, "quiet") {
			t.Fatalf("Err %q (%s) chunks %d; want timeout after 1 chunk", s.Err, s.ErrMsg, s.Chunks)
		}
	})
	t.Run("a slow healthy stream longer than the timeout", func(t *testing.T) {
		ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for range 6 {
				_, _ = io.WriteString(w, chunk(`{"content":"a"}`))
				w.(http.Flusher).Flush()
				time.Sleep(50 * time.Millisecond)
			}
			_, _ = io.WriteString(w, finishChunk("stop")+done)
		})
		ep.Timeout = 200 * time.Millisecond // the whole stream takes ~300 ms
		s, _ := stream(t, ep)
		if !s.OK() || s.Chunks != 6 {
			t.Fatalf("Err %q (%s) chunks %d; want success", s.Err, s.ErrMsg, s.Chunks)
		}
	})
}

func TestClientConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	s, _ := stream(t, Endpoint{BaseURL: "http://user:pw-secret@" + addr + "/v1", Model: "m", Timeout: 5 * time.Second})
	if s.Err != model.ErrConnect {
		t.Fatalf("Err %q (%s), want connect", s.Err, s.ErrMsg)
	}
	if want := "connect: connection refused " + addr; !strings.HasPrefix(s.ErrMsg, want) {
		t.Errorf("ErrMsg %q, want prefix %q", s.ErrMsg, want)
	}
	if strings.Contains(s.ErrMsg, "pw-secret") || s.Status != 0 || !s.Headers.IsZero() {
		t.Errorf("ErrMsg %q status %d headers %v", s.ErrMsg, s.Status, s.Headers)
	}
}

func TestClientCanceled(t *testing.T) {
	first := make(chan struct{})
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, chunk(`{"content":"a"}`))
		w.(http.Flusher).Flush()
		close(first)
		<-r.Context().Done()
	})
	c, err := New(ep, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	var p probe.Progress
	go func() {
		<-first
		// Cancel once the client has read the first token, as a user quitting mid-stream.
		for p.Chunks.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	s := c.Stream(ctx, &p)
	if s.Err != model.ErrCanceled {
		t.Fatalf("Err %q (%s), want canceled", s.Err, s.ErrMsg)
	}
	if s.Chunks != 1 || p.Chunks.Load() != 1 {
		t.Errorf("chunks %d / progress %d, want 1", s.Chunks, p.Chunks.Load())
	}

	// Canceled before the request is sent.
	s = c.Stream(ctx, nil)
	if s.Err != model.ErrCanceled {
		t.Errorf("pre-canceled: Err %q (%s), want canceled", s.Err, s.ErrMsg)
	}
}

func TestClientRequestBody(t *testing.T) {
	ok := []string{chunk(`{"content":"a"}`), finishChunk("stop"), done}
	t.Run("extra body, ignore_eos, headers, key", func(t *testing.T) {
		h := &sseHandler{events: ok}
		ep := serve(t, h.ServeHTTP)
		ep.APIKey = testKey
		ep.Headers = http.Header{"X-Tenant": {"blue"}}
		ep.MaxTokens = 77
		ep.IgnoreEOS = true
		ep.ExtraBody = map[string]any{"temperature": 0, "min_tokens": 50, "max_tokens": 99,
			"stream_options": map[string]any{"continuous_usage_stats": true}}
		if s, _ := stream(t, ep); !s.OK() {
			t.Fatalf("Err %q (%s)", s.Err, s.ErrMsg)
		}
		body, hdr, path := h.got()
		if path != "/v1/chat/completions" {
			t.Errorf("path %q", path)
		}
		want := map[string]any{"model": "test-model", "stream": true, "ignore_eos": true, "temperature": 0.0,
			"min_tokens": 50.0, "max_tokens": 99.0,
			"stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true}}
		for k, v := range want {
			if fmt.Sprint(body[k]) != fmt.Sprint(v) {
				t.Errorf("body[%q] = %v, want %v", k, body[k], v)
			}
		}
		msgs, _ := body["messages"].([]any)
		if len(msgs) != 1 || !strings.HasSuffix(msgs[0].(map[string]any)["content"].(string), promptTail) {
			t.Errorf("messages = %v", body["messages"])
		}
		if hdr.Get("Authorization") != "Bearer "+testKey || hdr.Get("X-Tenant") != "blue" || hdr.Get("Accept") != "text/event-stream" {
			t.Errorf("headers: auth %q tenant %q accept %q", hdr.Get("Authorization"), hdr.Get("X-Tenant"), hdr.Get("Accept"))
		}
	})
	t.Run("defaults and no key", func(t *testing.T) {
		h := &sseHandler{events: ok}
		ep := serve(t, h.ServeHTTP)
		if s, _ := stream(t, ep); !s.OK() {
			t.Fatalf("Err %q (%s)", s.Err, s.ErrMsg)
		}
		body, hdr, _ := h.got()
		if body["max_tokens"] != 256.0 || body["stream"] != true || fmt.Sprint(body["stream_options"]) != "map[include_usage:true]" {
			t.Errorf("body %v", body)
		}
		if _, ok := hdr["Authorization"]; ok {
			t.Errorf("Authorization sent without a key")
		}
	})
	// go-openai refuses or rewrites some OpenAI model names client-side; the client
	// must send any name the server serves, on both APIs.
	for _, api := range []string{"chat", "completions"} {
		for _, name := range []string{"gpt-5-mini", "gpt-4o", "o1-mini", "gpt-3.5-turbo"} {
			t.Run(api+"/"+name, func(t *testing.T) {
				h := &sseHandler{events: ok}
				ep := serve(t, h.ServeHTTP)
				ep.API, ep.Model, ep.Prompt = api, name, "Say hi"
				if s, _ := stream(t, ep); !s.OK() {
					t.Fatalf("Err %q (%s)", s.Err, s.ErrMsg)
				}
				body, _, path := h.got()
				if body["model"] != name || body["max_tokens"] != 256.0 {
					t.Errorf("model %v max_tokens %v", body["model"], body["max_tokens"])
				}
				if api == "completions" && (body["prompt"] != "Say hi" || path != "/v1/completions") {
					t.Errorf("prompt %v path %q", body["prompt"], path)
				}
			})
		}
	}
}

func TestClientTiming(t *testing.T) {
	const (
		prefill = 120 * time.Millisecond
		gap     = 40 * time.Millisecond
		stall   = 150 * time.Millisecond
	)
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		time.Sleep(prefill)
		_, _ = io.WriteString(w, chunk(`{"reasoning":"hmm"}`))
		w.(http.Flusher).Flush()
		time.Sleep(gap)
		_, _ = io.WriteString(w, chunk(`{"content":"a"}`))
		w.(http.Flusher).Flush()
		time.Sleep(stall)
		_, _ = io.WriteString(w, chunk(`{"content":"b"}`))
		w.(http.Flusher).Flush()
		time.Sleep(gap)
		_, _ = io.WriteString(w, finishChunk("stop")+usageChunk(5, 3)+done)
	})
	s, _ := stream(t, ep)
	if !s.OK() {
		t.Fatalf("Err %q (%s)", s.Err, s.ErrMsg)
	}
	ttfb, _ := s.TTFB()
	ttft, _ := s.TTFT()
	ttfo, _ := s.TTFO()
	e2e, _ := s.E2E()
	if ttft < prefill || ttfo < prefill+gap || e2e < prefill+gap+stall || s.MaxGap < stall {
		t.Errorf("ttft %v ttfo %v e2e %v maxgap %v; want >= %v, %v, %v, %v", ttft, ttfo, e2e, s.MaxGap,
			prefill, prefill+gap, prefill+gap+stall, stall)
	}
	if ttfb >= ttft || s.End.Before(s.Last) || s.Tokens != 3 || s.Chunks != 3 {
		t.Errorf("ttfb %v ttft %v end %v last %v tokens %d chunks %d", ttfb, ttft, s.End, s.Last, s.Tokens, s.Chunks)
	}
	// Two gaps, 40 ms and 150 ms: the median is the shorter (its bucket, within 1/16).
	if n, med := s.Gaps.Count(), s.Gaps.Median(); n != 2 || med < gap*15/16 || med >= stall {
		t.Errorf("gaps: %d, median %v; want 2, about %v", n, med, gap)
	}
}

// TestClientCountsEveryGap: the reader keeps gaps in batches (addGap); every one of them
// reaches the request's sketch, a last partial batch too, and one per token event after
// the first.
func TestClientCountsEveryGap(t *testing.T) {
	for _, events := range []int{1, 2, gapBatch, gapBatch + 1, 3*gapBatch + 5} {
		ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for range events {
				_, _ = io.WriteString(w, chunk(`{"content":"a"}`))
			}
			_, _ = io.WriteString(w, finishChunk("stop")+done)
		})
		s, _ := stream(t, ep)
		if !s.OK() || s.Chunks != events || s.Gaps.Count() != events-1 {
			t.Errorf("%d events: ok %v, chunks %d, gaps %d; want %d gaps", events, s.OK(), s.Chunks, s.Gaps.Count(), events-1)
		}
	}
}

func TestNewValidation(t *testing.T) {
	tests := []struct {
		name  string
		ep    Endpoint
		conns int
		want  string
	}{
		{"no url", Endpoint{Model: "m"}, 1, "url: is required"},
		{"bad url", Endpoint{BaseURL: "http://us:pw@[::1", Model: "m"}, 1, "is not a URL"},
		{"no scheme", Endpoint{BaseURL: "localhost:8000/v1", Model: "m"}, 1, "http:// or https://"},
		{"ftp", Endpoint{BaseURL: "ftp://host/v1", Model: "m"}, 1, "http:// or https://"},
		{"no host", Endpoint{BaseURL: "http:///v1", Model: "m"}, 1, "has no host"},
		{"endpoint path", Endpoint{BaseURL: "http://h:8000/v1/chat/completions", Model: "m"}, 1, "API base"},
		{"api", Endpoint{BaseURL: "http://h:8000/v1", Model: "m", API: "embeddings"}, 1, "api \"embeddings\": want chat (/chat/completions), completions (/completions), messages (Anthropic's /messages) or responses"},
		{"no model", Endpoint{BaseURL: "http://us:pw@h:8000/v1"}, 1, "model: is required"},
		{"conns", Endpoint{BaseURL: "http://h:8000/v1", Model: "m"}, 0, "at least 1"},
		{"max tokens", Endpoint{BaseURL: "http://h:8000/v1", Model: "m", MaxTokens: -1}, 1, "max_tokens \"-1\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.ep, tt.conns)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "pw") {
				t.Errorf("err shows the URL's password: %v", err)
			}
		})
	}
	c, err := New(Endpoint{BaseURL: "https://h.example/v1/", Model: "m"}, 8)
	if err != nil {
		t.Fatal(err)
	}
	ep := c.Endpoint()
	if ep.API != "chat" || ep.MaxTokens != 256 || ep.PromptTokens != 128 || ep.Timeout != 60*time.Second || ep.Name != "h.example" || c.hostPort != "h.example:443" {
		t.Errorf("defaults: %+v hostPort %q", ep, c.hostPort)
	}
}

func TestSyntheticPrompt(t *testing.T) {
	for _, n := range []int{1, 32, 128, 2000} {
		p := syntheticPrompt(n)
		if p != syntheticPrompt(n) {
			t.Fatal("prompt is not deterministic")
		}
		words := len(strings.Fields(p))
		if n > 20 && (words < n*9/10 || words > n*11/10) {
			t.Errorf("n=%d: %d words", n, words)
		}
	}
}

// TestClientHTTPErrorBodyCut: an error status whose body breaks off is still that HTTP
// error (the server answered), not a connection failure.
func TestClientHTTPErrorBodyCut(t *testing.T) {
	s, _ := stream(t, serve(t, hijack("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"error\":")))
	t.Logf("ErrMsg: %s", s.ErrMsg)
	if s.Err != model.HTTPError(503) || s.Status != 503 || !strings.HasPrefix(s.ErrMsg, "http 503") {
		t.Fatalf("Err %q status %d (%s); want http_503", s.Err, s.Status, s.ErrMsg)
	}
}

// TestClientHTTPErrorBodyBounded: an error body is read up to a bound, so that a server
// that streams an endless error page neither holds a worker nor grows its memory.
func TestClientHTTPErrorBodyBounded(t *testing.T) {
	const total = 32 << 20
	finished := make(chan struct{})
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		line := []byte(strings.Repeat("<p>internal error</p>", 50) + "\n")
		for n := 0; n < total; n += len(line) {
			if _, err := w.Write(line); err != nil {
				return // the client hung up
			}
		}
		close(finished)
	})
	s, _ := stream(t, ep)
	if s.Err != model.HTTPError(500) || !strings.Contains(s.ErrMsg, "internal error") {
		t.Fatalf("Err %q (%s); want http_500 with the page's first bytes", s.Err, s.ErrMsg)
	}
	select {
	case <-finished:
		t.Fatalf("the client read the whole %d MiB error body", total>>20)
	default:
	}
}

// TestClientInBandErrorAfterPings: go-openai keeps every non-data line of a stream and
// parses them together with a `data: {"error"...}` line, so after a `: ping` the
// server's message is lost on its side; the client must still show it.
func TestClientInBandErrorAfterPings(t *testing.T) {
	h := &sseHandler{events: []string{": ping\n\n", chunk(`{"content":"a"}`), ": ping\n\n",
		`data: {"error":{"message":"Provider disconnected","code":502}}` + "\n\n"}}
	s, _ := stream(t, serve(t, h.ServeHTTP))
	t.Logf("ErrMsg: %s", s.ErrMsg)
	if s.Err != model.ErrStream || !strings.Contains(s.ErrMsg, "Provider disconnected") || s.Chunks != 1 {
		t.Fatalf("Err %q (%s) chunks %d; want stream_error with the server's message after 1 chunk", s.Err, s.ErrMsg, s.Chunks)
	}
}

// TestClientRedirect: a redirect is not followed (a POST turned into a GET would fail
// with a misleading status, and t_headers would stamp the redirect's answer); it is an
// HTTP error that says where the server points.
func TestClientRedirect(t *testing.T) {
	var posts int // requests that followed the redirect
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved/v1/chat/completions" {
			posts++
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		http.Redirect(w, r, "/moved/v1/chat/completions?k=q-SECRET", http.StatusMovedPermanently)
	})
	s, _ := stream(t, ep)
	t.Logf("ErrMsg: %s", s.ErrMsg)
	if s.Err != model.HTTPError(301) || s.Status != 301 || !strings.Contains(s.ErrMsg, "/moved/v1") ||
		!strings.Contains(s.ErrMsg, "endpoint URL") || strings.Contains(s.ErrMsg, "SECRET") || posts != 0 {
		t.Fatalf("Err %q status %d (%s); want http_301 naming the new endpoint URL, without userinfo or query", s.Err, s.Status, s.ErrMsg)
	}
}

// TestClientRefusedHeaderCredentials: credentials sent with --header are refused, not
// missing: the message must not tell the user that no key was sent.
func TestClientRefusedHeaderCredentials(t *testing.T) {
	for _, h := range []string{"Authorization", "Api-Key", "X-Api-Key"} {
		ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		})
		ep.Headers = http.Header{h: {"some-credential"}}
		s, _ := stream(t, ep)
		if s.Err != model.HTTPError(401) || strings.Contains(s.ErrMsg, "none was sent") || !strings.Contains(s.ErrMsg, "refused") {
			t.Errorf("%s header: Err %q (%s); want http_401 saying the credentials were refused", h, s.Err, s.ErrMsg)
		}
		if _, err := Preflight(context.Background(), ep); err == nil || strings.Contains(err.Error(), "none was sent") {
			t.Errorf("%s header: Preflight err = %v; want the credentials refused", h, err)
		}
	}
}

// TestClientEOFAfterOwnCancel: when tpsmon cancels (quit, Ctrl-C) while the server closes
// the stream, the body can end with a clean io.EOF; that is our cancel, not a truncation.
func TestClientEOFAfterOwnCancel(t *testing.T) {
	c, err := New(Endpoint{BaseURL: "http://127.0.0.1:9/v1", Model: "m"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		finish string
		want   model.ErrorKind
	}{
		{"cut by our cancel", canceled, "", model.ErrCanceled},
		{"cut by the server", context.Background(), "", model.ErrTruncated},
		{"finished just before our cancel", canceled, "stop", model.ErrNone},
	}
	for _, tt := range tests {
		r := &result{chunks: 3, finish: tt.finish, dataLines: 3}
		c.endErr(tt.ctx, io.EOF, &reqState{}, r, nil)
		if r.kind != tt.want {
			t.Errorf("%s: kind %q (%s), want %q", tt.name, r.kind, r.msg, tt.want)
		}
	}
}
