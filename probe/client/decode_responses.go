package client

import "encoding/json"

// The Responses API's events (OpenAI's, as llama.cpp's server, vLLM and Ollama serve
// it), each after an `event:` line naming its type, with a sequence_number:
//
//	response.created, response.in_progress, response.output_item.added/done,
//	response.content_part.added/done, response.*.done    no token
//	response.output_text.delta, response.refusal.delta   delta: an answer token
//	response.reasoning_text.delta,
//	response.reasoning_summary_text.delta                delta: a reasoning token
//	response.function_call_arguments.delta               delta: a tool call's token
//	response.completed     response.usage (input_tokens, output_tokens): the usage; the end
//	response.incomplete    the same, cut short (max_output_tokens: finish "length")
//	response.failed        response.error: a stream_error
//	error                  code and message: a stream_error
//
// The common event is a text delta, read by fastResponses without allocating.

// responsesTokens says what a delta event of each type carries: an answer token (true)
// or a reasoning or tool call token (false).
var responsesTokens = map[string]bool{
	"response.output_text.delta":             true,
	"response.refusal.delta":                 true,
	"response.reasoning_text.delta":          false,
	"response.reasoning_summary_text.delta":  false,
	"response.function_call_arguments.delta": false,
}

// responsesKeys are the keys encoding/json would match at the event's top level.
var responsesKeys = []string{"type", "delta", "response", "code", "message", "error"}

// fastResponses decides a compact delta event: an object of scalars with a "type" of
// responsesTokens and a string "delta", where a "logprobs" may be an empty list.
// Anything else goes to the slow path.
func fastResponses(b []byte) (eventInfo, bool) {
	s := scanner{b: b}
	var typ, delta []byte
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
			if seenDelta {
				return eventInfo{}, false
			}
			seenDelta = true
			if delta, ok = s.str(); !ok || delta == nil {
				return eventInfo{}, false
			}
		case "logprobs":
			if !s.emptyList() && !s.null() {
				return eventInfo{}, false
			}
		default:
			if s.foldsTo(k, responsesKeys) || !s.scalar() {
				return eventInfo{}, false
			}
		}
		if end, ok := s.next(); !ok {
			return eventInfo{}, false
		} else if end {
			break
		}
	}
	if skipSpace(b, s.p) != len(b) || !seenDelta || escaped(typ) {
		return eventInfo{}, false
	}
	answer, known := responsesTokens[string(typ)]
	if !known {
		return eventInfo{}, false
	}
	tok := len(delta) > 0
	return eventInfo{token: tok, answer: tok && answer}, true
}

// emptyList reads [] (spaces allowed inside).
func (s *scanner) emptyList() bool {
	p := s.p
	if s.open('[') && s.open(']') {
		return true
	}
	s.p = p
	return false
}

// responsesEvent is the subset of a Responses API event tpsmon reads on the slow path.
type responsesEvent struct {
	Type     string          `json:"type"`
	Delta    json.RawMessage `json:"delta"`
	Response *struct {
		Status            string          `json:"status"`
		Error             json.RawMessage `json:"error"`
		IncompleteDetails *struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Usage *struct {
			InputTokens  int  `json:"input_tokens"`
			OutputTokens *int `json:"output_tokens"`
		} `json:"usage"`
	} `json:"response"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// slowResponses decodes any Responses API event with encoding/json.
func slowResponses(b []byte) (eventInfo, error) {
	var ev responsesEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		return eventInfo{}, err
	}
	var info eventInfo
	if answer, ok := responsesTokens[ev.Type]; ok {
		var d string
		if json.Unmarshal(ev.Delta, &d) == nil && d != "" {
			info.token, info.answer = true, answer
		}
		return info, nil
	}
	r := ev.Response
	switch ev.Type {
	case "response.completed", "response.incomplete":
		info.done, info.finish = true, "stop"
		if ev.Type == "response.incomplete" {
			info.finish = "incomplete"
			if r != nil && r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "max_output_tokens" {
				info.finish = "length"
			}
		}
		if r != nil && r.Usage != nil && r.Usage.OutputTokens != nil {
			info.usage, info.compTok, info.promTok = true, *r.Usage.OutputTokens, r.Usage.InputTokens
		}
	case "response.failed":
		info.isErr, info.errMsg = true, "the response failed"
		if r != nil && nonEmptyJSON(r.Error) {
			info.errMsg = "the response failed: " + errorText(r.Error)
		}
	case "error":
		info.isErr, info.errMsg = true, ev.Message
		if nonEmptyJSON(ev.Error) {
			info.errMsg = errorText(ev.Error)
		}
		if c := string(ev.Code); nonEmptyJSON(ev.Code) && info.errMsg != "" {
			var code string
			if json.Unmarshal(ev.Code, &code) != nil {
				code = c
			}
			info.errMsg = code + ": " + info.errMsg
		}
	}
	return info, nil
}
