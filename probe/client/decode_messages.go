package client

import (
	"bytes"
	"encoding/json"
)

// The Messages API's events (Anthropic's, as llama.cpp's server and vLLM serve it),
// each after an `event:` line naming its type:
//
//	message_start        message.usage.input_tokens: the prompt (output_tokens there is not final)
//	content_block_start  a text, thinking or tool_use block opens: no token
//	content_block_delta  delta.type text_delta (text: an answer token), thinking_delta
//	                     (thinking: a reasoning token), input_json_delta (partial_json: a
//	                     tool call's token), signature_delta (no token: the thinking
//	                     block's signature)
//	content_block_stop   no token
//	message_delta        delta.stop_reason (the finish), usage.output_tokens (the usage)
//	message_stop         the end of the stream, as [DONE]
//	ping                 keep-alive: nothing
//	error                error.type and error.message: a stream_error (overloaded_error)
//
// The common event is a content_block_delta, read by fastMessages without allocating.

// fastMessages decides a compact content_block_delta or ping: an object of scalars with
// at most one "delta" object of scalars. Anything else (other types, nested values, a
// key that matches a known one only when case is ignored, a repeated key) goes to the
// slow path, which gives what encoding/json gives.
func fastMessages(b []byte) (eventInfo, bool) {
	s := scanner{b: b}
	var typ, dtyp, text []byte
	seenType, seenDelta := false, false
	if !s.open('{') {
		return eventInfo{}, false
	}
	for {
		k, ok := s.key()
		if !ok {
			return eventInfo{}, false
		}
		switch string(k) {
		case "type":
			if seenType {
				return eventInfo{}, false
			}
			seenType = true
			if typ, ok = s.str(); !ok || typ == nil {
				return eventInfo{}, false
			}
		case "delta":
			if seenDelta || !s.messagesDelta(&dtyp, &text) {
				return eventInfo{}, false
			}
			seenDelta = true
		default:
			if s.foldsTo(k, messagesKeys) || !s.scalar() {
				return eventInfo{}, false
			}
		}
		if end, ok := s.next(); !ok {
			return eventInfo{}, false
		} else if end {
			break
		}
	}
	if skipSpace(b, s.p) != len(b) || escaped(typ) || escaped(dtyp) {
		return eventInfo{}, false
	}
	switch string(typ) {
	case "ping":
		return eventInfo{}, !seenDelta
	case "content_block_delta":
		if !seenDelta {
			return eventInfo{}, false
		}
		return deltaInfo(string(dtyp), len(text) > 0), true
	}
	return eventInfo{}, false
}

// escaped reports whether a raw JSON string holds an escape (its value is then not its
// bytes: the slow path reads it).
func escaped(v []byte) bool { return bytes.IndexByte(v, '\\') >= 0 }

// messagesKeys are the keys encoding/json would match at the event's top level and in
// its delta.
var messagesKeys = []string{"type", "delta", "message", "usage", "error", "text", "thinking", "partial_json", "stop_reason"}

// deltaInfo is what a content_block_delta of type dtyp says, with whether its text
// (text, thinking or partial_json) is non-empty.
func deltaInfo(dtyp string, text bool) eventInfo {
	switch dtyp {
	case "text_delta":
		return eventInfo{token: text, answer: text}
	case "thinking_delta", "input_json_delta":
		return eventInfo{token: text}
	}
	return eventInfo{} // signature_delta, citations_delta
}

// messagesDelta reads a delta object of scalars: its type, and its one text field
// (text, thinking or partial_json; a signature is no text).
func (s *scanner) messagesDelta(typ, text *[]byte) bool {
	if !s.open('{') {
		return false
	}
	if s.open('}') {
		return true
	}
	seen := 0
	for {
		k, ok := s.key()
		if !ok {
			return false
		}
		switch string(k) {
		case "type":
			if *typ, ok = s.str(); !ok || *typ == nil {
				return false
			}
		case "text", "thinking", "partial_json":
			seen++
			if *text, ok = s.str(); !ok || seen > 1 {
				return false
			}
		default:
			if s.foldsTo(k, messagesKeys) || !s.scalar() {
				return false
			}
		}
		if end, ok := s.next(); !ok {
			return false
		} else if end {
			return true
		}
	}
}

// messagesEvent is the subset of a Messages API event tpsmon reads on the slow path.
type messagesEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Usage *messagesUsage `json:"usage"`
	} `json:"message"`
	Delta *struct {
		Type        string  `json:"type"`
		Text        *string `json:"text"`
		Thinking    *string `json:"thinking"`
		PartialJSON *string `json:"partial_json"`
		StopReason  *string `json:"stop_reason"`
	} `json:"delta"`
	Usage *messagesUsage  `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type messagesUsage struct {
	InputTokens  *int `json:"input_tokens"`
	OutputTokens *int `json:"output_tokens"`
}

// slowMessages decodes any Messages API event with encoding/json.
func slowMessages(b []byte) (eventInfo, error) {
	var ev messagesEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		return eventInfo{}, err
	}
	var info eventInfo
	switch ev.Type {
	case "message_start":
		if m := ev.Message; m != nil && m.Usage != nil && m.Usage.InputTokens != nil {
			info.promTok = *m.Usage.InputTokens
		}
	case "content_block_delta":
		if d := ev.Delta; d != nil {
			text := ""
			for _, t := range []*string{d.Text, d.Thinking, d.PartialJSON} {
				if t != nil && *t != "" {
					text = *t
				}
			}
			info = deltaInfo(d.Type, text != "")
		}
	case "message_delta":
		if d := ev.Delta; d != nil && d.StopReason != nil {
			info.finish = *d.StopReason
		}
		if u := ev.Usage; u != nil && u.OutputTokens != nil {
			info.usage, info.compTok = true, *u.OutputTokens
			if u.InputTokens != nil {
				info.promTok = *u.InputTokens
			}
		}
	case "message_stop":
		info.done = true
	case "error":
		info.isErr, info.errMsg = true, typedError(ev.Error)
	}
	return info, nil
}

// typedError is an error object's "type: message" (Anthropic's overloaded_error,
// api_error...), or what errorText finds.
func typedError(raw json.RawMessage) string {
	var o struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Type != "" && o.Message != "" {
		return o.Type + ": " + o.Message
	}
	if s := errorText(raw); s != "" {
		return s
	}
	return "the server sent an error event"
}
