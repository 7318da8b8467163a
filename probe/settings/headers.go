package settings

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// parseHeader parses "Name: value" into h. The error names the header, never its value.
func parseHeader(s string, h http.Header) error {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	switch {
	case !ok:
		return fmt.Errorf(`--header: want "Name: value", but found no ':' (the value is not shown)`)
	case name == "":
		return fmt.Errorf(`--header: want "Name: value", but the name before ':' is empty`)
	case !validHeaderName(name):
		return fmt.Errorf(`--header %q: not a valid header name (letters, digits and -, no spaces)`, name)
	}
	value = strings.TrimSpace(value)
	if !validHeaderValue(value) {
		return fmt.Errorf(`--header %q: the value holds a control character or a line break (the value is not shown)`, name)
	}
	h.Add(name, value)
	return nil
}

// validHeaderName reports whether name is an HTTP token (RFC 9110).
func validHeaderName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return name != ""
}

// validHeaderValue reports whether value can be sent as a header value: no control
// character but a tab (RFC 9110), which net/http's client would refuse at every request.
func validHeaderValue(value string) bool {
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// parseExtraBody parses a JSON object.
func parseExtraBody(s string) (map[string]any, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf(`--extra-body: not valid JSON (%v); write a JSON object such as '{"temperature":0}'`, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`--extra-body: want a JSON object such as '{"temperature":0}', got a JSON %s`, jsonKind(v))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "value"
}
