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
// fastEvent decides the shapes servers send (vLLM, SGLang, llama.cpp, TGI, OpenAI) with
// a few byte searches and no allocation. It answers only when it is sure, and leaves
// everything else (finish, usage, tool calls, errors, several choices) to the slow path:
//   - chat: one delta, a flat object whose values are all strings or null, in any order
//     and with any other keys ("role":"assistant", SGLang's "role":null and
//     "tool_calls":null): a non-empty "content" is an answer token, a non-empty
//     "reasoning_content" or "reasoning" a token;
//   - completions: the first "text" is a non-empty string;
//   - and "finish_reason", "usage" and "error", wherever they are, are absent or null.
//
// Key matches are exact: in valid JSON an unescaped `"key":` preceded by '{' or ',' can
// only be a key, because quotes inside strings are escaped.
func fastEvent(b []byte, completions bool) (eventInfo, bool) {
	var info eventInfo
	if completions {
		i := indexKey(b, keyText, 1, 0)
		v := i + len(keyText)
		if i < 0 || !bytes.HasPrefix(b[v:], []byte(`:"`)) || v+2 >= len(b) || b[v+2] == '"' {
			return info, false
		}
		info = eventInfo{token: true, answer: true}
	} else {
		d := bytes.Index(b, fastDelta)
		if d < 0 {
			return info, false
		}
		end, token, answer := scanDelta(b, d+len(fastDelta)-1)
		if end < 0 || bytes.Contains(b[end:], fastDelta[:len(fastDelta)-1]) {
			return info, false // not a flat delta of strings, or several choices
		}
		info = eventInfo{token: token, answer: answer}
	}
	if !keyNullOrAbsent(b, keyFinish, len(`"finish`)) || !keyNullOrAbsent(b, keyUsage, 1) ||
		!keyNullOrAbsent(b, keyError, 2) {
		return eventInfo{}, false
	}
	return info, true
}

var (
	keyFinish = []byte(`"finish_reason"`)
	keyUsage  = []byte(`"usage"`)
	keyError  = []byte(`"error"`)
	keyText   = []byte(`"text"`)

	fastDelta = []byte(`"delta":{`)
)

// scanDelta reads the delta object that starts at b[p] ('{'), when every value in it is
// a string or null. It returns the index just past the object, or -1 for anything else
// (an array, an object, a number, an escape in a key), and whether a non-empty content
// (answer), reasoning_content or reasoning (token) is in it.
func scanDelta(b []byte, p int) (end int, token, answer bool) {
	var content, reasoningContent, reasoning bool // the last value of each is a non-empty string
	p = skipSpace(b, p+1)
	if p < len(b) && b[p] == '}' {
		return p + 1, false, false
	}
	for p < len(b) && b[p] == '"' {
		ke := stringEnd(b, p+1)
		if ke < 0 {
			return -1, false, false
		}
		key := b[p+1 : ke]
		if bytes.IndexByte(key, '\\') >= 0 {
			return -1, false, false
		}
		p = skipSpace(b, ke+1)
		if p >= len(b) || b[p] != ':' {
			return -1, false, false
		}
		p = skipSpace(b, p+1)
		nonEmpty := false
		switch {
		case bytes.HasPrefix(b[p:], []byte("null")):
			p += 4
		case p < len(b) && b[p] == '"':
			ve := stringEnd(b, p+1)
			if ve < 0 {
				return -1, false, false
			}
			nonEmpty = ve > p+1
			p = ve + 1
		default:
			return -1, false, false
		}
		switch string(key) {
		case "content":
			content = nonEmpty
		case "reasoning_content":
			reasoningContent = nonEmpty
		case "reasoning":
			reasoning = nonEmpty
		}
		p = skipSpace(b, p)
		if p < len(b) && b[p] == '}' {
			return p + 1, content || reasoningContent || reasoning, content
		}
		if p >= len(b) || b[p] != ',' {
			return -1, false, false
		}
		p = skipSpace(b, p+1)
	}
	return -1, false, false
}

// stringEnd returns the index of the quote that closes the JSON string whose first
// content byte is at v, or -1.
func stringEnd(b []byte, v int) int {
	for i := v; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		q := i + j
		bs := 0
		for k := q - 1; k >= v && b[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return q
		}
		i = q + 1
	}
	return -1
}

// keyNullOrAbsent reports whether every occurrence of key as a key has the value null.
// anchor is how many leading bytes of key to skip in the search (see indexKey).
func keyNullOrAbsent(b, key []byte, anchor int) bool {
	from := 0
	for {
		i := indexKey(b, key, anchor, from)
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

// indexKey returns the index of the first occurrence of key (quoted) at or after from
// that is an object key: preceded, after optional spaces, by '{' or ','. It returns -1
// if there is none. It searches for key[anchor:] and then checks the bytes before:
// '"' is the most common byte in JSON and a poor first byte for bytes.Index, so the
// anchor should start with a rarer one.
func indexKey(b, key []byte, anchor, from int) int {
	tail := key[anchor:]
	for from < len(b) {
		j := bytes.Index(b[from:], tail)
		if j < 0 {
			return -1
		}
		i := from + j - anchor // where key would start
		if i >= 0 && bytes.Equal(b[i:i+anchor], key[:anchor]) {
			k := i - 1
			for k >= 0 && isSpace(b[k]) {
				k--
			}
			if k >= 0 && (b[k] == '{' || b[k] == ',') {
				return i
			}
		}
		from += j + 1
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
