package client

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// ev is one SSE event with its event: line, as the Messages and Responses APIs send them.
func ev(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

// Messages API events as Anthropic's API, llama.cpp's server and vLLM send them.
var (
	msgStart = ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`)
	msgPing  = ev("ping", `{"type": "ping"}`)
)

func msgBlock(i int, typ string) string {
	extra := `"text":""`
	if typ == "thinking" {
		extra = `"thinking":"","signature":""`
	}
	return ev("content_block_start", `{"type":"content_block_start","index":`+itoa(i)+`,"content_block":{"type":"`+typ+`",`+extra+`}}`)
}

func msgDelta(i int, typ, field, text string) string {
	return ev("content_block_delta", `{"type":"content_block_delta","index":`+itoa(i)+`,"delta":{"type":"`+typ+`","`+field+`":"`+text+`"}}`)
}

func msgStop(i int) string {
	return ev("content_block_stop", `{"type":"content_block_stop","index":`+itoa(i)+`}`)
}

func msgEnd(reason string, out int) string {
	return ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+reason+`","stop_sequence":null},"usage":{"output_tokens":`+itoa(out)+`}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
}

func itoa(i int) string { return strconv.Itoa(i) }

// Responses API events as OpenAI's API, llama.cpp's server and vLLM send them.
func respEv(typ, rest string) string {
	return ev(typ, `{"type":"`+typ+`","sequence_number":1`+rest+`}`)
}

var (
	respStart = respEv("response.created", `,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[],"usage":null}`) +
		respEv("response.in_progress", `,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[],"usage":null}`) +
		respEv("response.output_item.added", `,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}`)
)

func respText(d string) string {
	return respEv("response.output_text.delta", `,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"`+d+`","logprobs":[]`)
}

func respReason(d string) string {
	return respEv("response.reasoning_text.delta", `,"item_id":"rs_1","output_index":0,"content_index":0,"delta":"`+d+`"`)
}

func respDone(typ, extra string, in, out int) string {
	return respEv("response.output_text.done", `,"item_id":"msg_1","output_index":0,"content_index":0,"text":"whole answer"`) +
		respEv(typ, `,"response":{"id":"resp_1","object":"response","status":"x"`+extra+`,"output":[],"usage":{"input_tokens":`+itoa(in)+
			`,"input_tokens_details":{"cached_tokens":0},"output_tokens":`+itoa(out)+`,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":`+itoa(in+out)+`}}`)
}

// Each API's stream is measured under one contract: the first token is the first
// text, thinking or tool delta (never message_start, a ping, a block's start or a
// signature); the first answer token the first text; usage from the server's own
// fields, at the end; the end marker message_stop or response.completed.
func TestAPIStreams(t *testing.T) {
	tests := []struct {
		name, api     string
		events        []string
		chunks        int
		tokens        int
		prompt        int
		usage         bool
		finish        string
		answerAfter   bool
		kind          model.ErrorKind
		msg           string
		firstIsAnswer bool
	}{
		{name: "messages: thinking, a signature, then text; usage at the end", api: APIMessages,
			events: []string{msgStart, msgBlock(0, "thinking"), msgPing, msgDelta(0, "thinking_delta", "thinking", "hm"),
				msgDelta(0, "thinking_delta", "thinking", " so"), msgDelta(0, "signature_delta", "signature", "EqQB"), msgStop(0),
				msgBlock(1, "text"), msgDelta(1, "text_delta", "text", "Hello"), msgDelta(1, "text_delta", "text", " world"), msgStop(1),
				msgEnd("max_tokens", 9)},
			chunks: 4, tokens: 9, prompt: 25, usage: true, finish: "max_tokens", answerAfter: true},
		{name: "messages: tool use deltas are tokens; an empty first delta is not", api: APIMessages,
			events: []string{msgStart, ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}`),
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}`),
				msgDelta(0, "input_json_delta", "partial_json", `{\"q\": 1}`), msgStop(0), msgEnd("tool_use", 5)},
			chunks: 1, tokens: 5, prompt: 25, usage: true, finish: "tool_use"},
		{name: "messages: no usage in message_delta: tokens are chunks", api: APIMessages,
			events: []string{msgStart, msgBlock(0, "text"), msgDelta(0, "text_delta", "text", "a"), msgDelta(0, "text_delta", "text", "b"),
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`), ev("message_stop", `{"type":"message_stop"}`)},
			chunks: 2, tokens: 2, prompt: 25, finish: "end_turn", firstIsAnswer: true},
		{name: "messages: an overloaded_error event mid-stream", api: APIMessages,
			events: []string{msgStart, msgBlock(0, "text"), msgDelta(0, "text_delta", "text", "a"),
				ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
			chunks: 1, tokens: 1, prompt: 25, kind: model.ErrStream, msg: "stream_error: overloaded_error: Overloaded"},
		{name: "messages: the stream ends without message_stop or a stop reason", api: APIMessages,
			events: []string{msgStart, msgBlock(0, "text"), msgDelta(0, "text_delta", "text", "a")},
			chunks: 1, tokens: 1, prompt: 25, kind: model.ErrTruncated, msg: "truncated"},
		{name: "responses: reasoning then text, keep-alive comments, usage in response.completed", api: APIResponses,
			events: []string{respStart, ": keep-alive\n\n", respReason("hm"), respReason(" so"), respText("Hi"), ": keep-alive\n\n", respText(" there"),
				respDone("response.completed", "", 30, 12)},
			chunks: 4, tokens: 12, prompt: 30, usage: true, finish: "stop", answerAfter: true},
		{name: "responses: response.incomplete at max_output_tokens is a full answer", api: APIResponses,
			events: []string{respStart, respText("a"), respText("b"), respDone("response.incomplete", `,"incomplete_details":{"reason":"max_output_tokens"}`, 3, 2)},
			chunks: 2, tokens: 2, prompt: 3, usage: true, finish: "length", firstIsAnswer: true},
		{name: "responses: response.failed", api: APIResponses,
			events: []string{respStart, respText("a"), respEv("response.failed", `,"response":{"id":"r","status":"failed","error":{"code":"server_error","message":"The server had an error"}}`)},
			chunks: 1, tokens: 1, kind: model.ErrStream, msg: "stream_error: the response failed: The server had an error"},
		{name: "responses: an error event", api: APIResponses,
			events: []string{respStart, ev("error", `{"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null,"sequence_number":3}`)},
			kind:   model.ErrStream, msg: "stream_error: rate_limit_exceeded: slow down"},
		{name: "responses: usage null at the end: tokens are chunks", api: APIResponses,
			events: []string{respStart, respText("a"), respText("b"), respText("c"),
				respEv("response.completed", `,"response":{"id":"r","status":"completed","output":[],"usage":null}`)},
			chunks: 3, tokens: 3, finish: "stop", firstIsAnswer: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &sseHandler{events: tt.events}
			ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for _, e := range h.events { // one event a read: each its own arrival time
					_, _ = w.Write([]byte(e))
					w.(http.Flusher).Flush()
					time.Sleep(2 * time.Millisecond)
				}
			})
			ep.API = tt.api
			s, p := stream(t, ep)
			if s.Err != tt.kind || !strings.Contains(s.ErrMsg, tt.msg) {
				t.Fatalf("Err %q %q, want %q %q", s.Err, s.ErrMsg, tt.kind, tt.msg)
			}
			if s.Chunks != tt.chunks || s.Tokens != tt.tokens || s.Usage != tt.usage || s.PromptTokens != tt.prompt || s.Finish != tt.finish {
				t.Errorf("chunks %d tokens %d usage %v prompt %d finish %q; want %d %d %v %d %q",
					s.Chunks, s.Tokens, s.Usage, s.PromptTokens, s.Finish, tt.chunks, tt.tokens, tt.usage, tt.prompt, tt.finish)
			}
			if int(p.Chunks.Load()) != tt.chunks {
				t.Errorf("live chunks %d, want %d", p.Chunks.Load(), tt.chunks)
			}
			if tt.answerAfter && !s.FirstAnswer.After(s.First) {
				t.Errorf("first answer %v not after first token %v", s.FirstAnswer, s.First)
			}
			if tt.firstIsAnswer && !s.FirstAnswer.Equal(s.First) {
				t.Errorf("first answer %v, first token %v: want the same event", s.FirstAnswer, s.First)
			}
		})
	}
}

// The request each API sends: its path, its headers (the key in x-api-key and an
// anthropic-version for messages), the answer's length under its own key, and no
// stream_options where the API takes none.
func TestAPIRequests(t *testing.T) {
	for _, tc := range []struct {
		api, path, maxKey string
	}{
		{APIMessages, "/v1/messages", "max_tokens"},
		{APIResponses, "/v1/responses", "max_output_tokens"},
	} {
		h := &sseHandler{events: []string{msgStart, msgEnd("end_turn", 0)}}
		if tc.api == APIResponses {
			h.events = []string{respDone("response.completed", "", 1, 0)}
		}
		ep := serve(t, h.ServeHTTP)
		ep.API, ep.APIKey, ep.MaxTokens, ep.IgnoreEOS = tc.api, testKey, 77, true
		s, _ := stream(t, ep)
		body, hdr, path := h.got()
		if !s.OK() || path != tc.path {
			t.Errorf("%s: %s %s, path %s", tc.api, s.Err, s.ErrMsg, path)
		}
		if body[tc.maxKey] != float64(77) || body["stream"] != true || body["model"] != "test-model" || body["ignore_eos"] != true || body["stream_options"] != nil {
			t.Errorf("%s: body %v", tc.api, body)
		}
		if tc.api == APIMessages {
			if hdr.Get("X-Api-Key") != testKey || hdr.Get("Anthropic-Version") != AnthropicVersion {
				t.Errorf("messages: headers x-api-key %q anthropic-version %q", hdr.Get("X-Api-Key"), hdr.Get("Anthropic-Version"))
			}
			if msgs, _ := body["messages"].([]any); len(msgs) != 1 {
				t.Errorf("messages: %v", body["messages"])
			}
		} else if in, _ := body["input"].(string); len(strings.Fields(in)) < 100 {
			t.Errorf("responses: input %q, want the synthetic prompt", in)
		}
	}
}

// An HTTP error of the Messages API (Anthropic answers 529 when overloaded) is counted
// by its status with the server's own words.
func TestAPIMessagesHTTPError(t *testing.T) {
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(529)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	})
	ep.API = APIMessages
	s, _ := stream(t, ep)
	if s.Err != model.HTTPError(529) || !strings.Contains(s.ErrMsg, "Overloaded") {
		t.Errorf("Err %q %q, want http_529 with the server's words", s.Err, s.ErrMsg)
	}
}

// A call carries a conversation's history in each API's shape (the Messages API takes
// the system prompt apart), and with live history the answer's text comes back.
func TestStreamCallHistoryAndAnswer(t *testing.T) {
	history := []workload.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "One"},
		{Role: "assistant", Content: "1"}, {Role: "user", Content: "Two"}}
	for _, tc := range []struct {
		api    string
		events []string
		check  func(body map[string]any) bool
	}{
		{APIChat, []string{chunk(`{"content":"Hi \"you\""}`), chunk(`{"content":" there"}`), finishChunk("stop"), done},
			func(b map[string]any) bool {
				m, _ := b["messages"].([]any)
				return len(m) == 4 && b["max_tokens"] == float64(9)
			}},
		{APIMessages, []string{msgStart, msgBlock(0, "text"), msgDelta(0, "text_delta", "text", `Hi \"you\"`), msgDelta(0, "text_delta", "text", " there"), msgEnd("end_turn", 2)},
			func(b map[string]any) bool {
				m, _ := b["messages"].([]any)
				return len(m) == 3 && b["system"] == "Be brief." && b["max_tokens"] == float64(9)
			}},
		{APIResponses, []string{respText(`Hi \"you\"`), respText(" there"), respDone("response.completed", "", 5, 2)},
			func(b map[string]any) bool {
				m, _ := b["input"].([]any)
				return len(m) == 4 && b["max_output_tokens"] == float64(9)
			}},
	} {
		h := &sseHandler{events: tc.events}
		ep := serve(t, h.ServeHTTP)
		ep.API = tc.api
		c, err := New(ep, 2)
		if err != nil {
			t.Fatal(err)
		}
		call := &probe.Call{Req: workload.Request{Messages: history, MaxTokens: 9, Turn: 2, KeepAnswer: true}}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s := c.StreamCall(ctx, nil, call)
		cancel()
		c.CloseIdleConnections()
		body, _, _ := h.got()
		if !s.OK() || !tc.check(body) {
			t.Errorf("%s: %s %s; body %v", tc.api, s.Err, s.ErrMsg, body)
		}
		if got := string(call.Answer); got != `Hi "you" there` {
			t.Errorf("%s: answer %q", tc.api, got)
		}
	}
}

// apiShapes are the token events of the Messages and Responses APIs, as servers send
// them, with the events around a stream of them.
var apiShapes = []struct {
	name, api, event, head, tail string
}{
	{"messages text", APIMessages, "event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" the"}}` + "\n\n",
		msgStart + msgBlock(0, "text") + msgPing, msgStop(0) + msgEnd("max_tokens", 0)},
	{"messages thinking", APIMessages, "event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" hm"}}` + "\n\n",
		msgStart + msgBlock(0, "thinking"), msgStop(0) + msgEnd("max_tokens", 0)},
	{"responses text", APIResponses, respText(" the"), respStart, respDone("response.completed", "", 5, 0)},
	{"responses text (OpenAI, obfuscation)", APIResponses, "event: response.output_text.delta\ndata: " +
		`{"type":"response.output_text.delta","sequence_number":12,"item_id":"msg_68","output_index":1,"content_index":0,"delta":" the","logprobs":[],"obfuscation":"kXz8"}` + "\n\n",
		respStart, respDone("response.completed", "", 5, 0)},
	{"responses reasoning", APIResponses, respReason(" hm"), respStart, respDone("response.completed", "", 5, 0)},
}

// Reading a token event of the Messages or Responses API allocates nothing, as for
// chat: a stream with 1,000 more token events allocates no more.
func TestAPIAllocsPerContentEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	for _, sh := range apiShapes {
		t.Run(sh.name, func(t *testing.T) {
			allocs := func(n int) float64 {
				ep, u, err := normalize(Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m", API: sh.api})
				if err != nil {
					t.Fatal(err)
				}
				body := sh.head + strings.Repeat(sh.event, n) + strings.Replace(sh.tail, `"output_tokens":0`, `"output_tokens":`+itoa(n), 1)
				c, err := newClient(ep, u, &http.Client{Transport: memTransport{[]byte(body)}})
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				return testing.AllocsPerRun(20, func() {
					if s := c.Stream(ctx, nil); !s.OK() || s.Chunks != n || s.Tokens != n {
						t.Fatalf("Err %q (%s) chunks %d tokens %d, want %d", s.Err, s.ErrMsg, s.Chunks, s.Tokens, n)
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

// BenchmarkDecodeAPIShapes is the decode of one token event of each API's shape.
func BenchmarkDecodeAPIShapes(b *testing.B) {
	for _, sh := range apiShapes {
		b.Run(strings.ReplaceAll(sh.name, " ", "_"), func(b *testing.B) {
			data := strings.SplitN(sh.event, "data: ", 2)[1]
			ev := []byte(strings.TrimSpace(data))
			d := decoder{api: sh.api}
			b.ReportAllocs()
			for b.Loop() {
				if info, _ := d.decode(ev); !info.token {
					b.Fatal("not a token")
				}
			}
		})
	}
}

// FuzzDecodeAPIEvent: the Messages and Responses decoders never panic, and whenever the
// fast path decides a payload that is valid JSON, it says what encoding/json says.
func FuzzDecodeAPIEvent(f *testing.F) {
	for _, sh := range apiShapes {
		f.Add([]byte(strings.TrimSpace(strings.SplitN(sh.event, "data: ", 2)[1])), sh.api == APIResponses)
	}
	for _, s := range []string{
		`{"type":"ping"}`, `{"type":"content_block_delta","delta":{"type":"text_delta","text":""}}`,
		`{"type":"content_block_delta","delta":{"type":"signature_delta","signature":"x"}}`,
		`{"type":"content_block_delta","Delta":{"type":"text_delta","text":"x"}}`,
		`{"type":"content_block_delta","delta":{"type":"text_delta","text":"x","text":""}}`,
		`{"type":"content_block\u005fdelta","delta":{"type":"text_delta","text":"x"}}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`,
		`{"type":"response.output_text.delta","delta":"","logprobs":[]}`,
		`{"type":"response.output_text.delta","delta":"x","logprobs":[{"token":"x"}]}`,
		`{"type":"response.completed","response":{"usage":{"input_tokens":1,"output_tokens":2}}}`,
	} {
		f.Add([]byte(s), strings.Contains(s, "response."))
	}
	f.Fuzz(func(t *testing.T, b []byte, responses bool) {
		api, fastOf, slowOf := APIMessages, fastMessages, slowMessages
		if responses {
			api, fastOf, slowOf = APIResponses, fastResponses, slowResponses
		}
		info, err := (&decoder{api: api}).decode(b)
		fast, ok := fastOf(b)
		if !ok || !json.Valid(b) {
			return
		}
		slow, serr := slowOf(b)
		if serr != nil {
			return
		}
		if fast != slow || err != nil || info != fast {
			t.Fatalf("%s\nfast %+v, slow %+v, decode %+v (%v)", b, fast, slow, info, err)
		}
	})
}
