package client

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The APIs the client speaks. Chat and completions are OpenAI's chat/completions and
// completions; messages is Anthropic's Messages API (POST /messages, key in x-api-key,
// an anthropic-version header) and responses OpenAI's Responses API (POST /responses),
// which llama.cpp's server, vLLM and Ollama serve beside the first two. Every API is
// measured under the same contract: what is a token, reasoning, usage, the end of a
// stream and an in-band error are each decoder's (decode*.go).
const (
	APIChat        = "chat"
	APICompletions = "completions"
	APIMessages    = "messages"
	APIResponses   = "responses"
)

// APIs are the APIs an endpoint may call, by the names --api and the config take (the
// default first).
func APIs() []string { return []string{APIChat, APICompletions, APIMessages, APIResponses} }

// APIWords is what a message says the accepted names are.
const APIWords = "chat (/chat/completions), completions (/completions), messages (Anthropic's /messages) or responses (OpenAI's /responses)"

// APIHint is a hint for an API name that is not one: "; for Anthropic's Messages API
// write messages" for the names people try first ("" otherwise).
func APIHint(name string) string {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "anthropic", "claude", "message", "v1/messages", "/messages":
		return "; for Anthropic's Messages API write messages"
	case "openai", "response", "v1/responses", "/responses":
		return "; for OpenAI's Responses API write responses"
	case "chat/completions", "/chat/completions", "chat_completions", "chat-completions":
		return "; for /chat/completions write chat"
	}
	return ""
}

// ValidAPI reports whether name is an API the client speaks.
func ValidAPI(name string) bool {
	for _, a := range APIs() {
		if a == name {
			return true
		}
	}
	return false
}

// APIPath is the path an API's requests go to, after the base URL.
func APIPath(api string) string {
	switch api {
	case APICompletions:
		return "/completions"
	case APIMessages:
		return "/messages"
	case APIResponses:
		return "/responses"
	}
	return "/chat/completions"
}

// AnthropicVersion is the anthropic-version header every Messages API request carries.
const AnthropicVersion = "2023-06-01"

// apiBody is the body of a Messages or Responses API request for the prompt, before
// the extra body is merged: the model, the answer's length under the API's own key
// (max_tokens, max_output_tokens) and stream: true. Neither API takes
// stream_options: both always report usage, at the end.
func apiBody(ep Endpoint, prompt string) ([]byte, error) {
	m := map[string]any{"model": ep.Model, "stream": true}
	switch ep.API {
	case APIMessages:
		m["max_tokens"] = ep.MaxTokens
		m["messages"] = []chatMessage{{Role: "user", Content: prompt}}
	case APIResponses:
		m["max_output_tokens"] = ep.MaxTokens
		m["input"] = prompt
	default:
		return nil, fmt.Errorf("probe: no body for the %s API", ep.API)
	}
	return json.Marshal(m)
}

// maxTokensKey is the key of the answer's length in an API's request body.
func maxTokensKey(api string) string {
	if api == APIResponses {
		return "max_output_tokens"
	}
	return "max_tokens"
}

// setPrompt puts a request's prompt or messages into body m in the API's shape.
func setPrompt(m map[string]any, api, prompt string, msgs []chatMessage) {
	if msgs == nil && api != APICompletions {
		msgs = []chatMessage{{Role: "user", Content: prompt}}
	}
	switch api {
	case APICompletions:
		m["prompt"] = prompt
	case APIMessages:
		system, rest := anthropicMessages(msgs)
		m["messages"] = rest
		if system != "" {
			m["system"] = system
		} else {
			delete(m, "system")
		}
	case APIResponses:
		if len(msgs) == 1 && msgs[0].Role == "user" {
			m["input"] = msgs[0].Content
		} else {
			m["input"] = msgs
		}
	default:
		m["messages"] = msgs
	}
}

// anthropicMessages splits chat messages for the Messages API, which takes the system
// prompt apart and only user and assistant turns: system and developer messages join
// the system prompt, a tool result is sent as the user's.
func anthropicMessages(msgs []chatMessage) (system string, rest []chatMessage) {
	var sys []string
	rest = make([]chatMessage, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case "system", "developer":
			sys = append(sys, m.Content)
		case "assistant":
			rest = append(rest, m)
		default:
			rest = append(rest, chatMessage{Role: "user", Content: m.Content})
		}
	}
	return strings.Join(sys, "\n\n"), rest
}
