package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/tpsmon/tpsmon/probe"
)

// FuzzDecodeEvent: the decoder never panics, and whenever the fast path decides a
// payload that is valid JSON, it says what encoding/json (the slow path) says. (The fast
// path does not validate a whole payload: invalid JSON that looks like a token event is
// counted as one, and servers do not send such events.)
func FuzzDecodeEvent(f *testing.F) {
	for _, sh := range contentShapes {
		f.Add([]byte(sh.event), sh.api == "completions")
	}
	for _, s := range []string{
		`{"choices":[{"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
		`{"choices":[{"delta":{"content":null,"reasoning_content":"hm"},"finish_reason":null}]}`,
		`{"choices":[{"delta":{"content":"x","content":""}}]}`,
		`{"choices":[{"index":0,"delta":{"content":""}},{"index":1,"delta":{"content":"x"}}]}`,
		`{"choices":[{"delta":{"content":"x"}}],"error":{"message":"boom"}}`,
		`{"choices":[{"delta":{"content":"\"usage\":{\"error\":1},\"finish_reason\":\"stop\""}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}}`,
		`{"error":"boom","error_type":"x"}`, `{"type":"error","message":"overloaded"}`,
		`{ "choices" : [ { "delta" : { "content" : "x" } , "finish_reason" : null } ] }`,
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, completions bool) {
		d := decoder{completions: completions}
		info, err := d.decode(b)
		fast, ok := fastEvent(b, completions)
		if !ok || !json.Valid(b) {
			return
		}
		slow, serr := (&decoder{completions: completions}).slow(b)
		if serr != nil {
			// Valid JSON the slow path cannot take (a top-level array, a string): no
			// event of an OpenAI-compatible stream looks like that.
			return
		}
		if fast != slow || err != nil || info != fast {
			t.Fatalf("%s\nfast %+v, slow %+v, decode %+v (%v)", b, fast, slow, info, err)
		}
	})
}

// FuzzSSEStream: any body read as an event stream ends in a classified result without a
// panic, with the Sample's chunk count equal to the live one.
func FuzzSSEStream(f *testing.F) {
	f.Add(shapeBody(contentShapes[0].event, 3))
	f.Add([]byte("event: error\ndata: {\"detail\":\"boom\"}\n\n"))
	f.Add([]byte(": ping\r\n\r\ndata:{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\ndata: [DONE]"))
	f.Add([]byte("<html>\n<body>Welcome to nginx!</body>\n</html>\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {not json\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		ep, u, err := normalize(Endpoint{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := newClient(ep, u, &http.Client{Transport: memTransport{bytes.Clone(body)}})
		if err != nil {
			t.Fatal(err)
		}
		var p probe.Progress
		s := c.Stream(context.Background(), &p)
		if int64(s.Chunks) != p.Chunks.Load() || (s.OK() && s.End.IsZero()) || (!s.OK() && s.ErrMsg == "") {
			t.Fatalf("%q: %+v (live chunks %d)", body, s, p.Chunks.Load())
		}
	})
}
