package client

import (
	"bytes"
	"encoding/json"
)

// eventInfo is what the stream loop needs from one SSE data payload.
type eventInfo struct {
	token   bool   // carries output: non-empty content, reasoning, tool_calls or text
	answer  bool   // carries non-empty content (or completions text)
	finish  string // finish_reason of the last choice that had one
	usage   bool   // a usage object with completion_tokens arrived
	compTok int    // usage.completion_tokens
	promTok int    // usage.prompt_tokens
	errMsg  string // in-band error message; isErr says whether there was one
	isErr   bool
	done    bool // the end of the stream, as [DONE] (message_stop, response.completed)
}

// wireEvent is the subset of a chat or completions chunk that tpsmon reads. It is
// decoded with encoding/json only when the fast path (fastEvent) cannot decide.
type wireEvent struct {
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Object  string          `json:"object"`
	Type    string          `json:"type"`
	Message string          `json:"message"`
}

type wireChoice struct {
	Delta struct {
		Content          *string         `json:"content"`
		ReasoningContent *string         `json:"reasoning_content"`
		Reasoning        *string         `json:"reasoning"`
		ToolCalls        json.RawMessage `json:"tool_calls"`
	} `json:"delta"`
	Text         *string `json:"text"`
	FinishReason *string `json:"finish_reason"`
}

type wireUsage struct {
	PromptTokens     int  `json:"prompt_tokens"`
	CompletionTokens *int `json:"completion_tokens"`
}

// decoder turns data payloads into eventInfo. It keeps its decode struct between
// events so the slow path reuses its slices; it is owned by one stream.
type decoder struct {
	completions bool
	api         string // APIMessages and APIResponses have decoders of their own; else chat or completions
	ev          wireEvent
}

// decode classifies one data payload. It returns an error only for a payload that is
// not JSON (a protocol error).
func (d *decoder) decode(b []byte) (eventInfo, error) {
	switch d.api {
	case APIMessages:
		if info, ok := fastMessages(b); ok {
			return info, nil
		}
		return slowMessages(b)
	case APIResponses:
		if info, ok := fastResponses(b); ok {
			return info, nil
		}
		return slowResponses(b)
	}
	if info, ok := fastEvent(b, d.completions); ok {
		return info, nil
	}
	return d.slow(b)
}

func (d *decoder) slow(b []byte) (eventInfo, error) {
	clear(d.ev.Choices[:cap(d.ev.Choices)])
	d.ev = wireEvent{Choices: d.ev.Choices[:0]}
	if err := json.Unmarshal(b, &d.ev); err != nil {
		return eventInfo{}, err
	}
	var info eventInfo
	ev := &d.ev
	for i := range ev.Choices {
		c := &ev.Choices[i]
		if d.completions || c.Text != nil {
			if c.Text != nil && *c.Text != "" {
				info.token, info.answer = true, true
			}
		}
		if c.Delta.Content != nil && *c.Delta.Content != "" {
			info.token, info.answer = true, true
		}
		if (c.Delta.ReasoningContent != nil && *c.Delta.ReasoningContent != "") ||
			(c.Delta.Reasoning != nil && *c.Delta.Reasoning != "") ||
			nonEmptyJSON(c.Delta.ToolCalls) {
			info.token = true
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			info.finish = *c.FinishReason
		}
	}
	if ev.Usage != nil && ev.Usage.CompletionTokens != nil {
		info.usage = true
		info.compTok = *ev.Usage.CompletionTokens
		info.promTok = ev.Usage.PromptTokens
	}
	if nonEmptyJSON(ev.Error) {
		info.isErr = true
		info.errMsg = errorText(ev.Error)
	} else if len(ev.Choices) == 0 && (ev.Object == "error" || ev.Type == "error") {
		info.isErr = true
		info.errMsg = ev.Message
	}
	return info, nil
}

// nonEmptyJSON reports whether a raw JSON value is present and not null, "", [] or {}.
func nonEmptyJSON(r json.RawMessage) bool {
	r = bytes.TrimSpace(r)
	switch string(r) {
	case "", "null", `""`, "[]", "{}":
		return false
	}
	return len(r) > 0 && !(r[0] == '[' && len(bytes.TrimSpace(r[1:len(r)-1])) == 0)
}

// errorText extracts a message from an "error" value: a string, or an object with a
// message.
func errorText(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	var o struct {
		Message json.RawMessage `json:"message"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(r, &o) == nil {
		if json.Unmarshal(o.Message, &s) == nil && s != "" {
			return s
		}
		if len(o.Message) > 0 {
			return string(o.Message)
		}
		return o.Type
	}
	return ""
}
