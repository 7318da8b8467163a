package client

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// leaks reports whether msg shows any 8-byte piece of secret: a message cut to length
// must not keep the start of a secret that straddles the cut.
func leaks(msg, secret string) bool {
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(msg, secret[i:i+8]) {
			return true
		}
	}
	return false
}

// TestClientRedactsBeforeCutting: server messages are cut to a few hundred bytes for
// ErrMsg; a secret the server echoes across the cut must not leave its first bytes.
func TestClientRedactsBeforeCutting(t *testing.T) {
	content := chunk(`{"content":"a"}`)
	// at puts the key so that it starts n bytes before a cut at limit.
	at := func(limit, n int) string { return strings.Repeat("x", limit-n) + " " + testKey }
	tests := []struct {
		name   string
		status int
		ctype  string
		body   string
		kind   model.ErrorKind
	}{
		{name: "HTTP error, OpenAI error object", status: 500, ctype: "application/json",
			body: `{"error":{"message":"` + at(300, 10) + `","type":"server_error"}}`, kind: model.HTTPError(500)},
		{name: "HTTP error, detail", status: 500, ctype: "application/json",
			body: `{"detail":"` + at(300, 10) + `"}`, kind: model.HTTPError(500)},
		{name: "HTTP error, HTML page", status: 502, ctype: "text/html",
			body: at(120, 10), kind: model.HTTPError(502)},
		{name: "in-band error", status: 200, ctype: "text/event-stream",
			body: content + `data: {"error":{"message":"` + at(300, 10) + `"}}` + "\n\n", kind: model.ErrStream},
		{name: "event: error", status: 200, ctype: "text/event-stream",
			body: content + "event: error\ndata: " + at(200, 10) + "\n\n", kind: model.ErrStream},
		{name: "unparseable event", status: 200, ctype: "text/event-stream",
			body: content + "data: {" + at(120, 10) + "\n\n", kind: model.ErrProtocol},
		{name: "non-SSE body", status: 200, ctype: "text/plain",
			body: at(120, 10), kind: model.ErrProtocol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", tt.ctype)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			})
			ep.APIKey = testKey
			s, _ := stream(t, ep)
			t.Logf("ErrMsg: %s", s.ErrMsg)
			if s.Err != tt.kind {
				t.Fatalf("Err = %q (%s), want %q", s.Err, s.ErrMsg, tt.kind)
			}
			if leaks(s.ErrMsg, testKey) {
				t.Errorf("ErrMsg shows part of the key: %q", s.ErrMsg)
			}
		})
	}
}

// TestClientRedactsURLUserinfoAndHeaders: the userinfo of --url and header values are
// secrets too, also when the server echoes only the token of an "Authorization:
// Bearer <token>" header, or a header value with runs of spaces.
func TestClientRedactsURLUserinfoAndHeaders(t *testing.T) {
	const (
		user     = "url-user-SECRET-1234"
		password = "url-password-SECRET-5678"
		token    = "hdr-token-SECRET-9012"
		spaced   = "two  spaces  SECRET-3456"
	)
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"bad request from `+user+`:`+password+` with `+token+` and `+spaced+`"}}`)
	})
	ep.BaseURL = strings.Replace(ep.BaseURL, "http://", "http://"+user+":"+password+"@", 1)
	ep.Headers = http.Header{"Authorization": {"Bearer " + token}, "X-Spaced": {spaced}}
	s, _ := stream(t, ep)
	t.Logf("ErrMsg: %s", s.ErrMsg)
	if s.Err != model.HTTPError(400) || !strings.Contains(s.ErrMsg, "bad request from") {
		t.Fatalf("Err = %q (%s), want http_400 with the server's message", s.Err, s.ErrMsg)
	}
	for _, secret := range []string{user, password, token, spaced} {
		if leaks(s.ErrMsg, secret) {
			t.Errorf("ErrMsg shows part of %q: %q", secret, s.ErrMsg)
		}
	}
}

func TestRedactedURLAndLabel(t *testing.T) {
	tests := []struct {
		raw, want, label string
	}{
		{raw: "http://127.0.0.1:8000/v1", want: "http://127.0.0.1:8000/v1", label: "127.0.0.1:8000"},
		{raw: "https://user:pw-SECRET@host.example/v1", want: "https://host.example/v1", label: "host.example"},
		{raw: "https://tok-SECRET@host.example/v1", want: "https://host.example/v1", label: "host.example"},
		{raw: "https://host.example/v1?api-key=q-SECRET", want: "https://host.example/v1", label: "host.example"},
		{raw: "http://user:pw%zz-SECRET@host.example/v1", want: "http://host.example/v1", label: "http://host.example/v1"},
	}
	for _, tt := range tests {
		if got := RedactedURL(tt.raw); got != tt.want {
			t.Errorf("RedactedURL(%q) = %q, want %q", tt.raw, got, tt.want)
		}
		if got := EndpointLabel(Endpoint{BaseURL: tt.raw}); got != tt.label || strings.Contains(got, "SECRET") {
			t.Errorf("EndpointLabel(%q) = %q, want %q", tt.raw, got, tt.label)
		}
	}
}
