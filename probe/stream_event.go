package probe

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
	ev          wireEvent
}

// decode classifies one data payload. It returns an error only for a payload that is
// not JSON (a protocol error).
func (d *decoder) decode(b []byte) (eventInfo, error) {
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

// Fast path. The common event is a compact chunk whose delta (or completions choice)
// carries a non-empty string and nothing else of interest:
//
//	{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" the"},"finish_reason":null}]}
//
// fastEvent recognises it with a few byte searches and no allocation. It answers only
// when it is sure: finish_reason, usage and error must be absent or null, and the value
// must be a non-empty JSON string of a real key (preceded by '{' or ','). In a valid JSON
// text an unescaped `"key":` can only be a key, because quotes inside strings are escaped.
// Anything else (role-only events, usage, finish, tool calls, errors) takes the slow path.
func fastEvent(b []byte, completions bool) (eventInfo, bool) {
	if !keyNullOrAbsent(b, keyFinish) || !keyNullOrAbsent(b, keyUsage) || !keyNullOrAbsent(b, keyError) {
		return eventInfo{}, false
	}
	if completions {
		if stringValue(b, keyText, 0) == valNonEmpty {
			return eventInfo{token: true, answer: true}, true
		}
		return eventInfo{}, false
	}
	delta := bytes.Index(b, keyDelta)
	if delta < 0 {
		return eventInfo{}, false
	}
	from := delta + len(keyDelta)
	switch stringValue(b, keyContent, from) {
	case valNonEmpty:
		return eventInfo{token: true, answer: true}, true
	case valEmpty, valAbsent:
		// Not an answer token; a reasoning token if one of the reasoning keys holds text,
		// unless tool_calls is there too (slow path decides).
		if bytes.Contains(b, keyToolCalls) {
			return eventInfo{}, false
		}
		if stringValue(b, keyReasoningContent, from) == valNonEmpty || stringValue(b, keyReasoning, from) == valNonEmpty {
			return eventInfo{token: true}, true
		}
	}
	return eventInfo{}, false
}

var (
	keyFinish           = []byte(`"finish_reason"`)
	keyUsage            = []byte(`"usage"`)
	keyError            = []byte(`"error"`)
	keyText             = []byte(`"text"`)
	keyDelta            = []byte(`"delta"`)
	keyContent          = []byte(`"content"`)
	keyReasoningContent = []byte(`"reasoning_content"`)
	keyReasoning        = []byte(`"reasoning"`)
	keyToolCalls        = []byte(`"tool_calls"`)
)

// Results of stringValue.
const (
	valAbsent   = iota // the key does not occur
	valEmpty           // null or ""
	valNonEmpty        // a string with at least one character
	valOther           // anything else (not sure, or another type): take the slow path
)

// stringValue finds the first occurrence of key (a quoted key) at or after from and
// classifies its value. A second occurrence of the key makes the answer valOther.
func stringValue(b, key []byte, from int) int {
	i := indexKey(b, key, from)
	if i < 0 {
		return valAbsent
	}
	v := i + len(key)
	v = skipSpace(b, v)
	if v >= len(b) || b[v] != ':' {
		return valOther
	}
	v = skipSpace(b, v+1)
	if v >= len(b) {
		return valOther
	}
	if indexKey(b, key, v) >= 0 {
		return valOther
	}
	switch {
	case bytes.HasPrefix(b[v:], []byte("null")):
		return valEmpty
	case b[v] == '"':
		if v+1 < len(b) && b[v+1] == '"' {
			return valEmpty
		}
		if v+1 < len(b) {
			return valNonEmpty
		}
	}
	return valOther
}

// keyNullOrAbsent reports whether every occurrence of key as a key has the value null.
func keyNullOrAbsent(b, key []byte) bool {
	from := 0
	for {
		i := indexKey(b, key, from)
		if i < 0 {
			return true
		}
		v := skipSpace(b, i+len(key))
		if v >= len(b) || b[v] != ':' {
			return false
		}
		v = skipSpace(b, v+1)
		if !bytes.HasPrefix(b[v:], []byte("null")) {
			return false
		}
		from = v + 4
	}
}

// indexKey returns the index of the first occurrence of key at or after from that is an
// object key: preceded (after optional spaces) by '{' or ','. It returns -1 if none.
func indexKey(b, key []byte, from int) int {
	for from < len(b) {
		j := bytes.Index(b[from:], key)
		if j < 0 {
			return -1
		}
		i := from + j
		k := i - 1
		for k >= 0 && isSpace(b[k]) {
			k--
		}
		if k >= 0 && (b[k] == '{' || b[k] == ',') {
			return i
		}
		from = i + 1
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
