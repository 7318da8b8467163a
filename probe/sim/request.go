package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// request is the part of a completion request the simulator reads.
type request struct {
	Model               string `json:"model"`
	Stream              bool   `json:"stream"`
	MaxTokens           *int   `json:"max_tokens"`
	MaxCompletionTokens *int   `json:"max_completion_tokens"`
	MinTokens           int    `json:"min_tokens"`
	IgnoreEOS           bool   `json:"ignore_eos"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Prompt json.RawMessage `json:"prompt"`
	// Messages API: the system prompt (a string or text blocks). Responses API: the
	// input (a string or a list of items), the instructions and max_output_tokens.
	System          json.RawMessage `json:"system"`
	Input           json.RawMessage `json:"input"`
	Instructions    json.RawMessage `json:"instructions"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
}

// plan is a request's drawn fate.
type plan struct {
	fail    bool   // answer HTTP 500
	target  int    // output tokens
	finish  string // "stop" or "length"
	dropAt  int    // cut the stream once this many tokens are sent (0 = never)
	stallAt int    // stall once after this many tokens (0 = never)
	errAt   int    // end the stream with an in-band error event once this many tokens are sent (0 = never)
	base    int    // first word of the text
}

func (s *Server) draw(maxTokens, minTokens int, ignoreEOS bool) plan {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	c := &s.cfg
	p := plan{target: maxTokens, finish: "length", base: s.rng.IntN(len(words))}
	p.fail = c.ErrorRate > 0 && s.rng.Float64() < c.ErrorRate
	if lo := max(minTokens, 1); !ignoreEOS && lo < maxTokens && s.rng.Float64() < stopFraction {
		p.target = lo + s.rng.IntN(maxTokens-lo)
		p.finish = "stop"
	}
	if c.DropRate > 0 && s.rng.Float64() < c.DropRate {
		p.dropAt = 1 + s.rng.IntN(max(p.target-1, 1)) // in [1, target-1]; a 1-token answer is cut before its token
	}
	if c.StallRate > 0 && p.target >= 2 && s.rng.Float64() < c.StallRate {
		p.stallAt = 1 + s.rng.IntN(p.target-1)
	}
	if c.StreamErrorRate > 0 && p.target >= 2 && s.rng.Float64() < c.StreamErrorRate {
		p.errAt = 1 + s.rng.IntN(p.target-1) // in [1, target-1]: some tokens, never the whole answer
	}
	return p
}

// completion answers a request of one of the APIs: it checks the request, draws its
// fate, waits for the scheduler to admit it, and streams it.
func (s *Server) completion(w http.ResponseWriter, r *http.Request, a api) {
	arrival := time.Now()
	if a == apiMessages {
		w = messagesWriter{w} // errors in the Messages API's shape
	}
	if !allow(w, r, http.MethodPost) {
		return
	}
	s.stats.requests.Add(1)
	req, maxTokens, prompt, ok := s.readRequest(w, r, a)
	if !ok {
		return
	}
	p := s.draw(maxTokens, req.MinTokens, req.IgnoreEOS)
	if p.fail {
		s.fail(w, errHTTP500, http.StatusInternalServerError, "InternalServerError", "",
			fmt.Sprintf("simulated server error: this simulator fails %.3g%% of requests (its error rate: --error-rate, or its profile's)", 100*s.cfg.ErrorRate))
		return
	}
	q := newSeq(prompt-s.cachedPrompt(&req, a, prompt), p.target, p.stallAt)
	ctx := r.Context()
	if !s.admit(ctx, w, q) {
		return
	}
	// The Messages and Responses APIs always report usage, at the end.
	usage := a == apiMessages || a == apiResponses || req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	s.stream(ctx, w, q, &p, a, prompt, usage, arrival)
}

// readRequest reads and checks a completion request: its model, streaming, max_tokens
// and prompt. A bad request is answered (HTTP 400 or 404) and ok is false.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, a api) (req request, maxTokens, prompt int, ok bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "",
			"the request body is not valid JSON: "+err.Error())
		return req, 0, 0, false
	}
	if req.Model != s.cfg.Model {
		s.fail(w, errHTTP404, http.StatusNotFound, "NotFoundError", "model",
			fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return req, 0, 0, false
	}
	if !req.Stream {
		s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "stream",
			`the tpsmon simulator only simulates streaming: set "stream": true`)
		return req, 0, 0, false
	}
	if a == apiMessages && req.MaxTokens == nil {
		s.fail(w, errHTTP400, http.StatusBadRequest, "invalid_request_error", "max_tokens",
			"max_tokens: Field required (the Messages API needs max_tokens)")
		return req, 0, 0, false
	}
	maxTokens = s.cfg.DefaultMaxTokens
	if a == apiResponses && req.MaxOutputTokens != nil {
		maxTokens = *req.MaxOutputTokens
	} else if req.MaxCompletionTokens != nil {
		maxTokens = *req.MaxCompletionTokens
	} else if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	if maxTokens < 1 {
		s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "max_tokens",
			fmt.Sprintf("max_tokens must be at least 1, got %d", maxTokens))
		return req, 0, 0, false
	}
	prompt, ok = s.promptTokens(w, &req, a)
	return req, maxTokens, prompt, ok
}

// promptTokens estimates the request's prompt tokens; a request without a prompt (or
// messages, or input) is answered HTTP 400 and ok is false.
func (s *Server) promptTokens(w http.ResponseWriter, req *request, a api) (int, bool) {
	switch a {
	case apiResponses:
		if !present(req.Input) {
			s.fail(w, errHTTP400, http.StatusBadRequest, "invalid_request_error", "input",
				"input is missing: a response needs an input")
			return 0, false
		}
		return responsesPromptTokens(req), true
	case apiMessages:
		if len(req.Messages) == 0 {
			s.fail(w, errHTTP400, http.StatusBadRequest, "invalid_request_error", "messages",
				"messages: Field required (at least one message)")
			return 0, false
		}
		n := chatPromptTokens(req.Messages)
		if present(req.System) {
			n += chatTemplateTokens + textTokens(req.System)
		}
		return n, true
	case apiChat:
		if len(req.Messages) == 0 {
			s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "messages",
				"messages is missing or empty: a chat completion needs at least one message")
			return 0, false
		}
		return chatPromptTokens(req.Messages), true
	}
	if len(req.Prompt) == 0 || string(req.Prompt) == "null" {
		s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "prompt",
			"prompt is missing: a completion needs a prompt")
		return 0, false
	}
	return textTokens(req.Prompt), true
}

// admit hands q to the scheduler and waits for its verdict. A request the queue has no
// room for is answered HTTP 429, one arriving at shutdown 503; ok is false then, and
// when the client goes away first.
func (s *Server) admit(ctx context.Context, w http.ResponseWriter, q *seq) bool {
	select {
	case s.sched.submit <- q:
	case <-ctx.Done():
		s.stats.errs[errCanceled].Add(1)
		return false
	case <-s.quit:
		writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "", "the tpsmon simulator is shutting down")
		return false
	}
	select {
	case ok := <-q.verdict:
		if !ok {
			s.setRetryAfter(w)
			s.fail(w, errHTTP429, http.StatusTooManyRequests, "RateLimitError", "",
				fmt.Sprintf("the server is overloaded: more than %d requests are waiting; retry later", s.cfg.MaxQueue))
			return false
		}
		return true
	case <-ctx.Done():
		q.gone.Store(true)
		s.stats.errs[errCanceled].Add(1)
		return false
	case <-s.quit:
		writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "", "the tpsmon simulator is shutting down")
		return false
	}
}

// fail writes an OpenAI-style error and counts it.
func (s *Server) fail(w http.ResponseWriter, kind errKind, status int, typ, param, msg string) {
	s.stats.errs[kind].Add(1)
	writeError(w, status, typ, param, msg)
}

// writeError writes an error body the way vLLM does:
// {"error":{"message":...,"type":...,"param":...,"code":status}}.
func writeError(w http.ResponseWriter, status int, typ, param, msg string) {
	if _, ok := w.(messagesWriter); ok {
		writeMessagesError(w, status, msg)
		return
	}
	var p any
	if param != "" {
		p = param
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": p, "code": status,
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// allow answers 405 unless r uses method.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	writeError(w, http.StatusMethodNotAllowed, "BadRequestError", "",
		fmt.Sprintf("%s %s is not supported; use %s", r.Method, r.URL.Path, method))
	return false
}

// chatTemplateTokens approximates the chat template's tokens around each message.
const chatTemplateTokens = 4

// chatPromptTokens estimates a chat prompt's tokens: about 4 characters of message text
// per token, plus the chat template around each message.
func chatPromptTokens(msgs []struct {
	Content json.RawMessage `json:"content"`
}) int {
	n := 0
	for _, m := range msgs {
		n += chatTemplateTokens + textTokens(m.Content)
	}
	return n
}

// textTokens estimates the tokens of a prompt or message content at about 4 characters
// per token. It accepts a string, a list of strings, a list of token ids (counted
// exactly), or a list of content parts ({"type":"text","text":...}).
func textTokens(raw json.RawMessage) int {
	chars := 0
	var str string
	var parts []json.RawMessage
	switch {
	case json.Unmarshal(raw, &str) == nil:
		chars = len(str)
	case json.Unmarshal(raw, &parts) == nil:
		for _, part := range parts {
			var id int
			var obj struct {
				Text string `json:"text"`
			}
			switch {
			case json.Unmarshal(part, &str) == nil:
				chars += len(str)
			case json.Unmarshal(part, &id) == nil:
				chars += 4 // one token id
			case json.Unmarshal(part, &obj) == nil:
				chars += len(obj.Text)
			}
		}
	}
	return max((chars+3)/4, 1)
}
