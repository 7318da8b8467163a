package client

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeBaseURL(t *testing.T) {
	tests := []struct {
		raw, want string // want: the URL, or the error's text
		field     bool   // an error
		suggest   string
	}{
		{raw: "http://127.0.0.1:8000", want: "http://127.0.0.1:8000/v1"},
		{raw: " https://h.example/openai/v1/ ", want: "https://h.example/openai/v1"},
		{raw: "http://me:pw@h:8000/v1", want: "http://me:pw@h:8000/v1"},
		{raw: "", field: true, want: "url: is required", suggest: exampleURL},
		{raw: "localhost:8000", field: true, want: `url "localhost:8000": want an http:// or https:// URL`, suggest: "http://localhost:8000"},
		{raw: "me:SECRET@10.0.0.1:8000", field: true, want: "want an http:// or https:// URL", suggest: "http://10.0.0.1:8000"},
		{raw: "ftp://h/v1", field: true, want: "want an http:// or https:// URL", suggest: exampleURL},
		// A scheme one letter from http or https, or one without its //, is a malformed
		// URL: said so, and written again with the scheme meant (not "http://htp:/bad").
		{raw: "htp:/bad", field: true, want: `url "htp:/bad": is malformed: the scheme "htp" is not http or https`, suggest: "http://bad"},
		{raw: "htps://h:8443/v1", field: true, want: `the scheme "htps" is not http or https`, suggest: "https://h:8443/v1"},
		{raw: "http:/h:8000", field: true, want: "is malformed: a scheme is followed by // (http://, not http:/)", suggest: "http://h:8000"},
		{raw: "HTTPS:h", field: true, want: "a scheme is followed by //", suggest: "https://h"},
		{raw: "htp:", field: true, want: `is malformed: "htp:" is not followed by a host`, suggest: exampleURL},
		{raw: "foo:bar", field: true, want: "want an http:// or https:// URL", suggest: exampleURL},
		{raw: "http://", field: true, want: "has no host", suggest: exampleURL},
		{raw: "http://me:SECRET@127.0.0.1:80x/v1", field: true, want: `url "http://127.0.0.1:80x/v1": is not a URL (invalid port ":80x" after host)`, suggest: exampleURL},
		{raw: "http://127.0.0.1:99999/v1", field: true, want: `port "99999" is not a port number`},
		{raw: "http://h:1/v1?key=SECRET", field: true, want: `url "http://h:1/v1?…": the base URL takes no ?query`},
		{raw: "http://h:1/v1#SECRET", field: true, want: "no ?query or #fragment"},
		{raw: "http://me:SECRET@h:1/v1/chat/completions", field: true, want: "names an API endpoint, not the API base that tpsmon adds /chat/completions to", suggest: "http://h:1/v1"},
		{raw: "http://h:1/v1/completions/", field: true, want: "adds /completions to", suggest: "http://h:1/v1"},
		{raw: "http://h:1/openai/v1/models", field: true, want: "adds /models to", suggest: "http://h:1/openai/v1"},
	}
	for _, tt := range tests {
		got, err := NormalizeBaseURL(tt.raw)
		if !tt.field {
			if err != nil || got != tt.want {
				t.Errorf("NormalizeBaseURL(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
			}
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != FieldURL {
			t.Errorf("NormalizeBaseURL(%q): err %v (%T), want a FieldError for url", tt.raw, err, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "SECRET") || strings.Contains(msg, "--") {
			t.Errorf("NormalizeBaseURL(%q): %q, want it to say %q, without a secret or a flag", tt.raw, msg, tt.want)
		}
		if fe.Suggest != tt.suggest {
			t.Errorf("NormalizeBaseURL(%q): suggests %q, want %q", tt.raw, fe.Suggest, tt.suggest)
		}
	}
}

// TestNewErrorsNameNoFlag: the client names the setting it refuses (a FieldError),
// never a flag; cmd says which flag or config line it came from.
func TestNewErrorsNameNoFlag(t *testing.T) {
	for _, ep := range []Endpoint{
		{Model: "m"},
		{BaseURL: "http://h:8000/v1/chat/completions", Model: "m"},
		{BaseURL: "http://h:8000/v1", Model: "m", API: "embeddings"},
		{BaseURL: "http://h:8000/v1"},
		{BaseURL: "http://h:8000/v1", Model: "m", MaxTokens: -1},
		{BaseURL: "http://h:8000/v1", Model: "m", PromptTokens: -1},
		{BaseURL: "http://h:8000/v1", Model: "m", Timeout: -1},
	} {
		_, err := New(ep, 1)
		var fe *FieldError
		if !errors.As(err, &fe) || strings.Contains(err.Error(), "--") {
			t.Errorf("New(%+v): %v (%T); want a FieldError that names no flag", ep, err, err)
		}
	}
}

func TestCheckKeyEnv(t *testing.T) {
	for name, ok := range map[string]bool{"OPENAI_API_KEY": true, "_k1": true, "": false, "1K": false, "sk-SECRET": false, "Bearer x": false} {
		err := CheckKeyEnv(name)
		if (err == nil) != ok {
			t.Errorf("CheckKeyEnv(%q) = %v, want ok %v", name, err, ok)
		}
		if err != nil && (strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "--")) {
			t.Errorf("CheckKeyEnv(%q) = %q shows the value or a flag", name, err)
		}
	}
}

func TestOneEditApart(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"htp", "http", true}, {"htps", "https", true}, {"hhtp", "http", true}, {"htpt", "http", true}, {"httpss", "https", true},
		{"http", "http", false}, {"ftp", "http", false}, {"h", "http", false}, {"", "http", false}, {"thtp", "http", true},
	} {
		if got := oneEditApart(c.a, c.b); got != c.want {
			t.Errorf("oneEditApart(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
