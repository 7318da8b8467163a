package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"sync/atomic"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tpsmon/tpsmon/probe/workload"
)

// requestBody builds the JSON body of the client's requests, once per client: go-openai's
// request type with the real model, then ExtraBody merged over the top-level keys, then
// ignore_eos, and finally stream:true and stream_options.include_usage:true forced on.
// Without a user prompt, the prompt is promptMark, which bodySource replaces per request.
func requestBody(ep Endpoint) ([]byte, error) {
	prompt := ep.Prompt
	if prompt == "" {
		prompt = promptMark
	}
	opts := &openai.StreamOptions{IncludeUsage: true}
	var base any
	if ep.API == APIMessages || ep.API == APIResponses {
		b, err := apiBody(ep, prompt)
		return withExtra(ep, b, err)
	}
	if ep.API == "completions" {
		base = openai.CompletionRequest{Model: ep.Model, Prompt: prompt, MaxTokens: ep.MaxTokens, Stream: true, StreamOptions: opts}
	} else {
		base = openai.ChatCompletionRequest{
			Model:         ep.Model,
			Messages:      []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: prompt}},
			MaxTokens:     ep.MaxTokens,
			Stream:        true,
			StreamOptions: opts,
		}
	}
	b, err := json.Marshal(base)
	return withExtra(ep, b, err)
}

// withExtra merges the extra body and ignore_eos over body b, forcing stream: true
// (and, for chat and completions, stream_options.include_usage: true).
func withExtra(ep Endpoint, b []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, fmt.Errorf("probe: building the request body: %w", err)
	}
	if len(ep.ExtraBody) == 0 && !ep.IgnoreEOS {
		return b, nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("probe: building the request body: %w", err)
	}
	for k, v := range ep.ExtraBody {
		m[k] = v
	}
	if ep.IgnoreEOS {
		m["ignore_eos"] = true
	}
	m["stream"] = true
	if ep.API == APIMessages || ep.API == APIResponses {
		return marshalExtra(m)
	}
	so := map[string]any{}
	if user, ok := m["stream_options"].(map[string]any); ok {
		for k, v := range user {
			so[k] = v
		}
	}
	so["include_usage"] = true
	m["stream_options"] = so
	return marshalExtra(m)
}

// marshalExtra encodes a body with the extra body merged in.
func marshalExtra(m map[string]any) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("probe: the extra body cannot be sent as JSON: %w", err)
	}
	return b, nil
}

// promptMark stands for the prompt in a request body template; promptMarkJSON is how
// JSON writes it, which no user value produces by accident.
const (
	promptMark     = "\x00tpsmon-prompt\x00"
	promptMarkJSON = `\u0000tpsmon-prompt\u0000`
)

// bodySource gives the body of every request of a client: the same bytes when the user
// gave the prompt (or replaced messages/prompt in the extra body), else a body whose
// prompt is the next one of the client's sequence. The cost is per request (one buffer
// the size of the body), never per token.
type bodySource struct {
	static    []byte // the whole body when the prompt never changes
	pre, post []byte // the body around the prompt otherwise
	seed      uint64
	words     int
	count     atomic.Uint64 // number of the next prompt
	work      *workBody     // the run's workload, when it has one: it writes every body
}

// newBodySource splits body (marshalled with promptMark as the prompt) around the mark.
func newBodySource(body []byte, seed uint64, words int) *bodySource {
	i := bytes.Index(body, []byte(promptMarkJSON))
	if i < 0 {
		return &bodySource{static: body}
	}
	return &bodySource{pre: body[:i], post: body[i+len(promptMarkJSON):], seed: seed, words: words}
}

// next returns the body of the next request.
func (s *bodySource) next() []byte {
	if s.work != nil {
		return s.work.body(s.count.Add(1) - 1)
	}
	if s.static != nil {
		return s.static
	}
	k := s.count.Add(1) - 1
	b := make([]byte, 0, len(s.pre)+len(s.post)+s.words*8+len(promptTail))
	b = append(b, s.pre...)
	b = appendPrompt(b, s.seed, k, s.words)
	return append(b, s.post...)
}

// workBody builds each request's body from a workload source: the client's body
// template (model, stream options, extra body, ignore_eos) with the request's own
// prompt or messages in the API's shape and, when the request asks for one, its own
// max_tokens. It costs one JSON encoding per request, never anything per token.
type workBody struct {
	src  workload.Source // nil: the bodies of Calls only (bodyOf)
	tmpl map[string]any
	api  string
}

// newWorkBody decodes the client's body template once.
func newWorkBody(body []byte, src workload.Source, api string) (*workBody, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("probe: building the request body: %w", err)
	}
	return &workBody{src: src, tmpl: m, api: api}, nil
}

// chatMessage is one message of a chat request body.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// body is the body of request number i of the source.
func (w *workBody) body(i uint64) []byte { return w.bodyOf(w.src.Request(i)) }

// bodyOf is the body that sends req.
func (w *workBody) bodyOf(req workload.Request) []byte {
	m := maps.Clone(w.tmpl)
	var msgs []chatMessage
	if req.Messages != nil {
		msgs = make([]chatMessage, len(req.Messages))
		for i, x := range req.Messages {
			msgs[i] = chatMessage(x)
		}
	}
	prompt := req.Prompt
	if w.api == APICompletions {
		prompt = req.Text()
	}
	setPrompt(m, w.api, prompt, msgs)
	if req.MaxTokens > 0 {
		m[maxTokensKey(w.api)] = req.MaxTokens
	}
	b, err := json.Marshal(m)
	if err != nil { // the template encoded once already; the request's parts are strings and numbers
		return nil
	}
	return b
}
