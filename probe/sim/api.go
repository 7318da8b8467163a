package sim

import (
	"encoding/json"
	"net/http"
)

// api is the API a request came in by. Chat and completions are OpenAI's (vLLM's
// streams); messages is Anthropic's Messages API and responses OpenAI's Responses API,
// which llama.cpp's server, vLLM and Ollama also serve.
type api int

const (
	apiChat api = iota
	apiCompletions
	apiMessages
	apiResponses
)

// pathAPI is the API each completion route serves.
var pathAPI = map[string]api{"/v1/chat/completions": apiChat, "/v1/completions": apiCompletions,
	"/v1/messages": apiMessages, "/v1/responses": apiResponses}

// reasons reports whether the API's answers may begin with reasoning (thinking)
// tokens: every API but completions.
func (a api) reasons() bool { return a != apiCompletions }

// messagesWriter marks a response of the Messages API: its errors are written in that
// API's shape (see writeError). Unwrap lets http.ResponseController flush through it.
type messagesWriter struct{ http.ResponseWriter }

func (w messagesWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// writeMessagesError writes an error as the Messages API does:
// {"type":"error","error":{"type":"invalid_request_error","message":"..."}}, with the
// OpenAI-style type names turned into Anthropic's.
func writeMessagesError(w http.ResponseWriter, status int, msg string) {
	typ := "api_error"
	switch status {
	case http.StatusBadRequest:
		typ = "invalid_request_error"
	case http.StatusNotFound:
		typ = "not_found_error"
	case http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case http.StatusServiceUnavailable, 529:
		typ = "overloaded_error"
	}
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

// present reports whether a raw JSON value was given (and is not null).
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// inputItem is one item of a Responses API input list.
type inputItem struct {
	Content json.RawMessage `json:"content"`
}

// inputItems reads a Responses API input given as a list; nil for a string input.
func inputItems(raw json.RawMessage) []inputItem {
	var items []inputItem
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil
	}
	return items
}

// responsesPromptTokens estimates a Responses API prompt: the instructions, then the
// input (a string, or items each with a chat template around its content).
func responsesPromptTokens(req *request) int {
	n := 0
	if present(req.Instructions) {
		n += chatTemplateTokens + textTokens(req.Instructions)
	}
	if items := inputItems(req.Input); items != nil {
		for _, it := range items {
			n += chatTemplateTokens + textTokens(it.Content)
		}
		return max(n, 1)
	}
	return n + textTokens(req.Input)
}

// promptKey is the text a request's prompt is cached by: the messages' (or input
// items') contents in order, after the system prompt or instructions, or the
// completions prompt: a later turn of a conversation begins with its earlier turns.
func promptKey(req *request, a api) []byte {
	var parts []json.RawMessage
	switch a {
	case apiCompletions:
		return req.Prompt
	case apiResponses:
		parts = append(parts, req.Instructions)
		items := inputItems(req.Input)
		if items == nil {
			parts = append(parts, req.Input)
		}
		for _, it := range items {
			parts = append(parts, it.Content)
		}
	default:
		parts = append(parts, req.System)
		for _, m := range req.Messages {
			parts = append(parts, m.Content)
		}
	}
	n := 0
	for _, p := range parts {
		n += len(p) + 1
	}
	key := make([]byte, 0, n)
	for _, p := range parts {
		key = append(append(key, p...), 0)
	}
	return key
}
