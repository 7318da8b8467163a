package settings

import (
	"strings"
	"testing"
)

// TestEditDistance: a swap of two adjacent letters is one edit, as an insertion,
// a deletion or a substitution is.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"hodl", "hold", 1}, {"uesrs", "users", 1}, {"hodl", "model", 2}, {"profle", "profile", 1},
		{"hold", "hold", 0}, {"", "abc", 3}, {"ca", "abc", 3}, {"abcd", "badc", 2},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestNearestKey: a mistyped config key suggests the key of its block that is meant.
func TestNearestKey(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"workload:\n  max_tokns: 16\n", `line 2: unknown key "max_tokns" (did you mean max_tokens? the keys are listed in docs/config.md)`},
		{"endpoints:\n  - url: http://127.0.0.1:8000/v1\n    modle: m\n", `line 3: unknown key "modle" (did you mean model?`},
		{"ramps: {levels: [1]}\n", `line 1: unknown key "ramps" (did you mean ramp?`},
		{"ramp:\n  hodl: 1s\n", `line 2: unknown key "hodl" (did you mean hold?`},
		{"slo:\n  zzzz: 1\n", `line 2: unknown key "zzzz" (check its spelling and indentation; the keys are listed in docs/config.md)`},
	} {
		_, err := parseConfig("c.yaml", []byte(tt.yaml))
		if err == nil || !strings.Contains(err.Error(), "config c.yaml: "+tt.want) {
			t.Errorf("%q: %v, want %q", tt.yaml, err, tt.want)
		}
	}
}
