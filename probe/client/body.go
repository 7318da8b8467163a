package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/tpsmon/tpsmon/probe/workload"
)

// workBody builds each request's body from a workload source: the client's body
// template (model, stream options, extra body, ignore_eos) with the request's own
// prompt or messages and, when the request asks for one, its own max_tokens. It costs
// one JSON encoding per request, never anything per token.
type workBody struct {
	src  workload.Source
	tmpl map[string]any
	chat bool
}

// newWorkBody decodes the client's body template once.
func newWorkBody(body []byte, src workload.Source, chat bool) (*workBody, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("probe: building the request body: %w", err)
	}
	return &workBody{src: src, tmpl: m, chat: chat}, nil
}

// chatMessage is one message of a chat request body.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// body is the body of request number i.
func (w *workBody) body(i uint64) []byte {
	req := w.src.Request(i)
	m := maps.Clone(w.tmpl)
	switch {
	case !w.chat:
		m["prompt"] = req.Text()
	case req.Messages != nil:
		m["messages"] = req.Messages
	default:
		m["messages"] = []chatMessage{{Role: "user", Content: req.Prompt}}
	}
	if req.MaxTokens > 0 {
		m["max_tokens"] = req.MaxTokens
	}
	b, err := json.Marshal(m)
	if err != nil { // the template encoded once already; the request's parts are strings and numbers
		return nil
	}
	return b
}
