package probe

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestDecodeEvents(t *testing.T) {
	tests := []struct {
		name        string
		payload     string
		completions bool
		fast        bool // the fast path must decide this one
		want        eventInfo
	}{
		{"vLLM content", `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}]}`, false, true,
			eventInfo{token: true, answer: true}},
		{"OpenAI content with usage null", `{"id":"c","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"usage":null}`, false, true,
			eventInfo{token: true, answer: true}},
		{"content with escaped quotes", `{"choices":[{"delta":{"content":"\"\\\""},"finish_reason":null}]}`, false, true,
			eventInfo{token: true, answer: true}},
		{"content that mentions keys", `{"choices":[{"delta":{"content":"\"usage\":{\"error\":1},\"finish_reason\":\"stop\""}}]}`, false, true,
			eventInfo{token: true, answer: true}},
		{"reasoning_content", `{"choices":[{"delta":{"content":null,"reasoning_content":"hm"},"finish_reason":null}]}`, false, true,
			eventInfo{token: true}},
		{"reasoning", `{"choices":[{"delta":{"reasoning":"hm"}}]}`, false, true, eventInfo{token: true}},
		{"role only", `{"choices":[{"delta":{"role":"assistant","content":""},"finish_reason":null}]}`, false, false, eventInfo{}},
		{"content null", `{"choices":[{"delta":{"content":null}}]}`, false, false, eventInfo{}},
		{"empty reasoning", `{"choices":[{"delta":{"reasoning_content":""}}]}`, false, false, eventInfo{}},
		{"spaces", `{ "choices" : [ { "delta" : { "content" : "x" } , "finish_reason" : null } ] }`, false, false, eventInfo{token: true, answer: true}},
		{"finish with content", `{"choices":[{"delta":{"content":"."},"finish_reason":"stop"}]}`, false, false,
			eventInfo{token: true, answer: true, finish: "stop"}},
		{"usage only", `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}}`, false, false,
			eventInfo{usage: true, compTok: 5, promTok: 3}},
		{"continuous usage with content", `{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, false, false,
			eventInfo{token: true, answer: true, usage: true, compTok: 1, promTok: 3}},
		{"tool calls", `{"choices":[{"delta":{"content":null,"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}}]}`, false, false,
			eventInfo{token: true}},
		{"empty tool calls", `{"choices":[{"delta":{"tool_calls":[]}}]}`, false, false, eventInfo{}},
		{"error object", `{"error":{"message":"boom"}}`, false, false, eventInfo{isErr: true, errMsg: "boom"}},
		{"error string", `{"error":"boom","error_type":"x"}`, false, false, eventInfo{isErr: true, errMsg: "boom"}},
		{"type error", `{"type":"error","message":"overloaded"}`, false, false, eventInfo{isErr: true, errMsg: "overloaded"}},
		{"error null", `{"choices":[{"delta":{"content":"a"}}],"error":null}`, false, true, eventInfo{token: true, answer: true}},
		{"completions text", `{"id":"x","object":"text_completion","choices":[{"index":0,"text":" hi","logprobs":null,"finish_reason":null}]}`, true, true,
			eventInfo{token: true, answer: true}},
		{"completions empty text", `{"choices":[{"text":"","finish_reason":null}]}`, true, false, eventInfo{}},
		{"completions finish", `{"choices":[{"text":"","finish_reason":"length"}]}`, true, false, eventInfo{finish: "length"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(tt.payload)
			fi, ok := fastEvent(b, tt.completions)
			if ok != tt.fast {
				t.Errorf("fast path decided = %v, want %v", ok, tt.fast)
			}
			d := decoder{completions: tt.completions}
			slow, err := d.slow(b)
			if err != nil {
				t.Fatal(err)
			}
			if slow != tt.want {
				t.Errorf("slow = %+v, want %+v", slow, tt.want)
			}
			if ok && fi != slow {
				t.Errorf("fast %+v disagrees with slow %+v", fi, slow)
			}
			got, _ := d.decode(b)
			if got != tt.want {
				t.Errorf("decode = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDecoderReuseClearsOldValues(t *testing.T) {
	d := decoder{}
	if info, _ := d.slow([]byte(`{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"},{"delta":{"content":"b"}}]}`)); !info.token || info.finish != "stop" {
		t.Fatalf("first = %+v", info)
	}
	if info, _ := d.slow([]byte(`{"choices":[{"delta":{}}]}`)); info != (eventInfo{}) {
		t.Errorf("second event inherited values: %+v", info)
	}
}

func TestSniffBody(t *testing.T) {
	tests := []struct {
		name                    string
		body                    string
		done, errEvent, errData bool
	}{
		{"done", "data: {\"a\":1}\n\ndata: [DONE]\n\n", true, false, false},
		{"done at body start, no space", "data:[DONE]\n", true, false, false},
		{"done inside content is not done", "data: {\"content\":\"[DONE]\"}\n\n", false, false, false},
		{"done CRLF", "data: {}\r\n\r\ndata: [DONE]\r\n\r\n", true, false, false},
		{"event error", ": ping\n\nevent: error\ndata: {}\n\n", false, true, false},
		{"event message", "event: message\ndata: {}\n\n", false, false, false},
		{"data error", "data: {\"x\":1}\n\ndata: {\"error\":\"x\"}\n\n", false, false, true},
		{"error key later in the line", "data: {\"x\":{\"error\":1}}\n\n", false, false, false},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.body)
			if oneByte {
				r = iotest.OneByteReader(r) // every marker split across reads
			}
			var rs reqState
			s := &sniffBody{rc: io.NopCloser(r), alive: &rs.alive}
			if _, err := io.Copy(io.Discard, s); err != nil {
				t.Fatal(err)
			}
			if s.done != tt.done || s.errEvent != tt.errEvent || s.errData != tt.errData || !s.eof {
				t.Errorf("%s (one byte %v): done %v errEvent %v errData %v eof %v", tt.name, oneByte, s.done, s.errEvent, s.errData, s.eof)
			}
			if want := tt.body[:min(len(tt.body), len(s.head))]; !bytes.Equal(s.head[:s.nhead], []byte(want)) || rs.alive.Load() == 0 {
				t.Errorf("%s: head %q, alive %d", tt.name, s.head[:s.nhead], rs.alive.Load())
			}
		}
	}
}
