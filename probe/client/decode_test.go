package client

import "testing"

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
		{"role only", `{"choices":[{"delta":{"role":"assistant","content":""},"finish_reason":null}]}`, false, true, eventInfo{}},
		{"content null", `{"choices":[{"delta":{"content":null}}]}`, false, true, eventInfo{}},
		{"empty reasoning", `{"choices":[{"delta":{"reasoning_content":""}}]}`, false, true, eventInfo{}},
		{"empty delta", `{"choices":[{"delta":{},"finish_reason":null}]}`, false, true, eventInfo{}},
		{"SGLang content", `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":null,"content":" the","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`, false, true,
			eventInfo{token: true, answer: true}},
		{"SGLang reasoning", `{"choices":[{"index":0,"delta":{"role":null,"content":null,"reasoning_content":"hm","tool_calls":null},"finish_reason":null}],"usage":null}`, false, true,
			eventInfo{token: true}},
		{"vLLM reasoning under both names", `{"choices":[{"index":0,"delta":{"reasoning":"hm","reasoning_content":"hm"},"logprobs":null,"finish_reason":null}]}`, false, true,
			eventInfo{token: true}},
		{"llama.cpp content", `{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hi"}}],"created":1,"id":"chatcmpl-x","model":"m","system_fingerprint":"b1","object":"chat.completion.chunk"}`, false, true,
			eventInfo{token: true, answer: true}},
		{"TGI content", `{"object":"chat.completion.chunk","id":"","created":1,"model":"m","system_fingerprint":"3.0","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"logprobs":null,"finish_reason":null}],"usage":null}`, false, true,
			eventInfo{token: true, answer: true}},
		{"reasoning then content in one delta", `{"choices":[{"delta":{"reasoning":"a","content":"b"}}]}`, false, true, eventInfo{token: true, answer: true}},
		{"duplicate key: the last one counts", `{"choices":[{"delta":{"content":"x","content":""}}]}`, false, true, eventInfo{}},
		{"escaped key", `{"choices":[{"delta":{"cont\u0065nt":"x"}}]}`, false, false, eventInfo{token: true, answer: true}},
		{"two choices", `{"choices":[{"index":0,"delta":{"content":""}},{"index":1,"delta":{"content":"x"}}]}`, false, false, eventInfo{token: true, answer: true}},
		{"error beside a delta", `{"choices":[{"delta":{"content":"x"}}],"error":{"message":"boom"}}`, false, false,
			eventInfo{token: true, answer: true, isErr: true, errMsg: "boom"}},
		{"spaces", `{ "choices" : [ { "delta" : { "content" : "x" } , "finish_reason" : null } ] }`, false, true, eventInfo{token: true, answer: true}},
		// Found by FuzzDecodeEvent: a delta outside "choices" is no token.
		{"delta outside choices", `{"":[{"delta":{"content":"\b"}}]}`, false, false, eventInfo{}},
		{"key in another case", `{"choices":[{"delta":{"Content":"x"}}]}`, false, false, eventInfo{token: true, answer: true}},
		{"object error with choices", `{"object":"error","choices":[{"delta":{"content":"x"}}]}`, false, false, eventInfo{token: true, answer: true}},
		{"usage object after content", `{"choices":[{"delta":{"content":"x"}}],"usage":{"completion_tokens":1}}`, false, false,
			eventInfo{token: true, answer: true, usage: true, compTok: 1}},
		{"llama.cpp timings", `{"choices":[{"delta":{"content":"x"}}],"timings":{"predicted_n":1}}`, false, false, eventInfo{token: true, answer: true}},
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
		{"completions empty text", `{"choices":[{"text":"","finish_reason":null}]}`, true, true, eventInfo{}},
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

// TestStringEnd: the closing quote is the first one not escaped by an odd run of
// backslashes.
func TestStringEnd(t *testing.T) {
	for _, tt := range []struct {
		s    string // the bytes after the opening quote
		want int
	}{
		{`abc"`, 3}, {`"`, 0}, {`a\"b"`, 4}, {`a\\"b"`, 3}, {`a\\\"b"`, 6}, {`\\\\"`, 4},
		{`abc`, -1}, {`a\"`, -1}, {``, -1},
	} {
		if got := stringEnd([]byte(tt.s), 0); got != tt.want {
			t.Errorf("stringEnd(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}
