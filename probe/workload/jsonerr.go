package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// typeWords words a JSON value of the wrong type for a person: which field, what it
// holds, what it must hold and, when examples has one for the field, what to write.
// encoding/json's own message ("json: cannot unmarshal number into Go struct field
// line.prompt of type string") names Go types a person never sees. ok is false when
// err is no such error.
func typeWords(err error, examples map[string]string) (string, bool) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "", false
	}
	field := te.Field
	if field == "" {
		field = "the line"
	} else {
		field = `"` + field + `"`
	}
	s := fmt.Sprintf("%s is %s, but it must be %s", field, jsonValueWords(te.Value), goTypeWords(te.Type))
	if ex := examples[te.Field]; ex != "" {
		s += ": write e.g. " + ex
	}
	return s, true
}

// jsonValueWords names a JSON value as encoding/json reports it ("number", "number
// 1.5", "string", "bool", "array", "object").
func jsonValueWords(v string) string {
	kind, val, _ := strings.Cut(v, " ")
	switch kind {
	case "number":
		if val != "" {
			return "the number " + val
		}
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "array":
		return "a list [...]"
	case "object":
		return "an object {...}"
	}
	return "a " + v
}

// goTypeWords names what a Go type holds, in JSON's words.
func goTypeWords(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return goTypeWords(t.Elem())
	case reflect.String:
		return "a string of text in quotes"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list of " + plural(goTypeWords(t.Elem()))
	case reflect.Map, reflect.Struct:
		return "an object {...}"
	}
	return "another type"
}

// plural turns "a whole number" into "whole numbers", "a string of text in quotes" into
// "strings of text in quotes".
func plural(s string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "an "), "a ")
	head, tail, ok := strings.Cut(s, " of ")
	if ok {
		return head + "s of " + tail
	}
	switch {
	case strings.HasPrefix(s, "object "):
		return "objects " + strings.TrimPrefix(s, "object ")
	case strings.HasSuffix(s, "false"):
		return s
	}
	return s + "s"
}

// messageText is a message's content: a string, or a list of content parts whose text
// parts ({"type": "text", "text": "..."}) are joined, as OpenAI's and Anthropic's APIs
// take them.
func messageText(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err == nil {
		var texts []string
		for _, p := range parts {
			if p.Text == nil || (p.Type != "" && p.Type != "text" && p.Type != "input_text") {
				return "", errors.New("holds a part that is not text (only text parts can be sent)")
			}
			texts = append(texts, *p.Text)
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", fmt.Errorf("is %s, not a string", jsonKindOf(raw))
}

// jsonKindOf names the kind of a raw JSON value: "a number", "an object {...}"...
func jsonKindOf(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	switch {
	case len(b) == 0 || string(b) == "null":
		return "missing"
	case b[0] == '{':
		return "an object {...}"
	case b[0] == '[':
		return "a list [...]"
	case b[0] == 't' || b[0] == 'f':
		return "true or false"
	}
	return "a number"
}
