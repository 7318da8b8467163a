package client

import "bytes"

// Fast path. The common event is a compact chunk whose delta (or completions choice)
// carries a non-empty string:
//
//	{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}]}
//
// fastEvent reads such an event in one pass, without allocating, and decides it when
// its whole shape is this simple one: an object of scalar values (strings, numbers,
// true, false, null) with one "choices" array of at most one choice, itself an object of
// scalars with a "delta" object of scalars and/or a "text" string. It then gives what
// encoding/json (decoder.slow) would: a non-empty content or text is an answer token, a
// non-empty reasoning_content or reasoning a token. Anything that could change that
// answer sends the event to the slow path: a finish_reason, usage, error or tool_calls
// that is not null, an "error" object or type, several choices, a repeated choices or
// delta, a key with an escape or non-ASCII byte or one that matches a known key only
// when case is ignored (encoding/json matches keys so), any nested object or array
// elsewhere, bytes after the event. The vLLM, SGLang, llama.cpp, TGI and OpenAI token
// events all take the fast path (TestStreamAllocsPerContentEvent); FuzzDecodeEvent checks
// that it agrees with encoding/json on valid JSON.
func fastEvent(b []byte, _ bool) (eventInfo, bool) {
	token, answer, ok := fastChunk(b)
	return eventInfo{token: token, answer: answer}, ok
}

// fastChunk is fastEvent's answer as two flags, which is all it can say: the read loop
// takes it so, without an eventInfo in its frame to fill at every event.
func fastChunk(b []byte) (token, answer, ok bool) {
	s := scanner{b: b}
	var c choiceInfo
	seen := false
	if !s.open('{') {
		return false, false, false
	}
	for {
		k, ok := s.key()
		if !ok {
			return false, false, false
		}
		switch string(k) {
		case "choices":
			if seen || !s.choices(&c) {
				return false, false, false
			}
			seen = true
		case "usage", "error":
			if !s.null() {
				return false, false, false
			}
		case "object", "type", "message":
			if v, ok := s.str(); !ok || string(v) == "error" {
				return false, false, false
			}
		default:
			if s.foldsTo(k, topKeys) || !s.scalar() {
				return false, false, false
			}
		}
		if end, ok := s.next(); !ok {
			return false, false, false
		} else if end {
			break
		}
	}
	if skipSpace(b, s.p) != len(b) || !seen {
		return false, false, false
	}
	answer = c.content || c.text
	return answer || c.reasoningContent || c.reasoning, answer, true
}

// Keys encoding/json would match, at each level of the event.
var (
	topKeys    = []string{"choices", "usage", "error", "object", "type", "message"}
	choiceKeys = []string{"delta", "text", "finish_reason"}
	deltaKeys  = []string{"content", "reasoning_content", "reasoning", "tool_calls"}
)

// choiceInfo is what the choice says: which of its strings are non-empty (the last
// value of each key counts, as with encoding/json).
type choiceInfo struct {
	content, reasoningContent, reasoning, text bool
}

// scanner reads one event from b at p.
type scanner struct {
	b     []byte
	p     int
	upper bool // the last key read has an upper-case ASCII letter (see foldsTo)
}

// open reads c (after spaces).
func (s *scanner) open(c byte) bool {
	s.p = skipSpace(s.b, s.p)
	if s.p < len(s.b) && s.b[s.p] == c {
		s.p++
		return true
	}
	return false
}

// next reads the ',' or '}' after a member: end is true at '}'.
func (s *scanner) next() (end, ok bool) {
	s.p = skipSpace(s.b, s.p)
	if s.p < len(s.b) {
		switch s.b[s.p] {
		case '}':
			s.p++
			return true, true
		case ',':
			s.p++
			return false, true
		}
	}
	return false, false
}

// key reads `"name":` and returns name, which has no escape and no non-ASCII byte (one
// pass over the name, which also notes whether it has an upper-case letter: s.upper).
func (s *scanner) key() ([]byte, bool) {
	b := s.b
	p := skipSpace(b, s.p)
	if p >= len(b) || b[p] != '"' {
		return nil, false
	}
	start := p + 1
	upper := false
	for i := start; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			s.p, s.upper = i+1, upper
			if !s.open(':') {
				return nil, false
			}
			return b[start:i:i], true
		case c == '\\' || c >= 0x80:
			return nil, false
		case c-'A' < 26:
			upper = true
		}
	}
	return nil, false
}

// str reads a string or null and returns its raw bytes (nil for null, non-nil for "").
func (s *scanner) str() ([]byte, bool) {
	s.p = skipSpace(s.b, s.p)
	if s.p < len(s.b) && s.b[s.p] == '"' {
		e := stringEnd(s.b, s.p+1)
		if e < 0 {
			return nil, false
		}
		v := s.b[s.p+1 : e : e]
		s.p = e + 1
		return v, true
	}
	return nil, s.null()
}

// null reads null.
func (s *scanner) null() bool {
	s.p = skipSpace(s.b, s.p)
	b := s.b
	if p := s.p; p+3 < len(b) && b[p] == 'n' && b[p+1] == 'u' && b[p+2] == 'l' && b[p+3] == 'l' {
		s.p += 4
		return true
	}
	return false
}

// scalar reads a string, a number, true, false or null (not an object or an array).
func (s *scanner) scalar() bool {
	s.p = skipSpace(s.b, s.p)
	if s.p >= len(s.b) {
		return false
	}
	switch s.b[s.p] {
	case '"':
		_, ok := s.str()
		return ok
	case '{', '[', ',', '}', ']', ':':
		return false
	}
	start := s.p
	for s.p < len(s.b) && !scalarEnds[s.b[s.p]] {
		s.p++
	}
	return s.p > start
}

// choices reads the choices array: empty, or one choice.
func (s *scanner) choices(c *choiceInfo) bool {
	if !s.open('[') {
		return false
	}
	if s.open(']') {
		return true
	}
	return s.choice(c) && s.open(']')
}

// choice reads one choice object.
func (s *scanner) choice(c *choiceInfo) bool {
	if !s.open('{') {
		return false
	}
	if s.open('}') {
		return true
	}
	delta := false
	for {
		k, ok := s.key()
		if !ok {
			return false
		}
		switch string(k) {
		case "delta":
			if delta || !(s.null() || s.delta(c)) {
				return false
			}
			delta = true
		case "text":
			v, ok := s.str()
			if !ok {
				return false
			}
			c.text = len(v) > 0
		case "finish_reason":
			if v, ok := s.str(); !ok || len(v) > 0 {
				return false
			}
		default:
			if s.foldsTo(k, choiceKeys) || !s.scalar() {
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

// delta reads a delta object of scalars.
func (s *scanner) delta(c *choiceInfo) bool {
	if !s.open('{') {
		return false
	}
	if s.open('}') {
		return true
	}
	for {
		k, ok := s.key()
		if !ok {
			return false
		}
		var set *bool
		switch string(k) {
		case "content":
			set = &c.content
		case "reasoning_content":
			set = &c.reasoningContent
		case "reasoning":
			set = &c.reasoning
		case "tool_calls":
			if !s.null() {
				return false
			}
		default:
			if s.foldsTo(k, deltaKeys) || !s.scalar() {
				return false
			}
		}
		if set != nil {
			v, ok := s.str()
			if !ok {
				return false
			}
			*set = len(v) > 0
		}
		if end, ok := s.next(); !ok {
			return false
		} else if end {
			return true
		}
	}
}

// foldsTo reports whether k, a key the scanner read last, matches one of names when case
// is ignored (encoding/json matches keys so); exact matches were handled by the caller.
// The names are lower case ASCII and k is ASCII (key), so a k without an upper-case
// letter (s.upper false, noted as key read it) matches none of them.
func (s *scanner) foldsTo(k []byte, names []string) bool {
	if !s.upper {
		return false
	}
	for _, n := range names {
		if len(k) == len(n) && k[0]|0x20 == n[0] && bytes.EqualFold(k, []byte(n)) {
			return true
		}
	}
	return false
}

// stringEnd returns the index of the quote that closes the JSON string whose first
// content byte is at v, or -1: the first quote not escaped by an odd run of backslashes
// before it (the opening quote ends any such run).
func stringEnd(b []byte, v int) int {
	for v <= len(b) {
		q := bytes.IndexByte(b[v:], '"')
		if q < 0 {
			return -1
		}
		e := v + q
		n := 0
		for j := e - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return e
		}
		v = e + 1
	}
	return -1
}

// skipSpace returns the index of the first byte at or after i that is not JSON space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scalarEnds marks the bytes that end a number or literal: JSON space, ',', '}', ']'.
var scalarEnds = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, ',': true, '}': true, ']': true}
