package client

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// exampleURL is what a base URL looks like, for messages.
const exampleURL = "http://127.0.0.1:8000/v1"

// apiPaths are the paths tpsmon adds to a base URL: a base URL ending in one names an
// API endpoint instead.
var apiPaths = []string{"/chat/completions", "/completions", "/models"}

// NormalizeBaseURL checks the base URL of an OpenAI-compatible API and returns it
// without a trailing slash, with /v1 added when it has no path. A refused URL is a
// *FieldError for FieldURL that shows the URL without its userinfo or query.
func NormalizeBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	shown := safeRawURL(raw)
	fail := func(problem, suggest string) (string, error) {
		return "", &FieldError{Field: FieldURL, Value: shown, Problem: problem, Suggest: suggest}
	}
	if raw == "" {
		return fail("is required", exampleURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fail("is not a URL ("+parseDetail(err)+")", exampleURL)
	}
	if problem, suggest := schemeProblem(u, raw, shown); problem != "" {
		return fail(problem, suggest)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fail("has no host", exampleURL)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fail("port "+strconv.Quote(p)+" is not a port number (1-65535)", "")
		}
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		shown += "?…"
		return fail("the base URL takes no ?query or #fragment", "")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	for _, suffix := range apiPaths {
		if strings.HasSuffix(u.Path, suffix) {
			base := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimSuffix(u.Path, suffix)}
			return fail("names an API endpoint, not the API base that tpsmon adds "+suffix+" to", base.String())
		}
	}
	if u.Path == "" {
		u.Path = "/v1"
	}
	return u.String(), nil
}

// parseDetail is what url.Parse found wrong, unless its text may quote a secret (a
// password, a query): url.Parse errors quote parts of the URL.
func parseDetail(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "@?#") {
		return "it cannot be parsed"
	}
	return msg
}

// schemeProblem says what is wrong with the scheme of the base URL raw (parsed as u,
// shown as shown) and what to write instead; "" when it is http:// or https://. A host
// with no scheme ("localhost:8000") takes http://. A scheme one letter away from http
// or https ("htp:/h", "htps://h"), or http and https without their "//" ("http:h"),
// is a malformed URL: it is written again with the scheme meant and "//". Another
// scheme (ftp://) gets the example.
func schemeProblem(u *url.URL, raw, shown string) (problem, suggest string) {
	scheme, rest, hasScheme := strings.Cut(shown, ":")
	if u.Scheme == "" || hasScheme && rest != "" && rest[0] >= '0' && rest[0] <= '9' { // host or host:port
		if u.Scheme == "http" || u.Scheme == "https" {
			return "", ""
		}
		return "want an http:// or https:// URL", "http://" + shown
	}
	meant, lower := "", strings.ToLower(scheme)
	switch {
	case lower == "http" || lower == "https":
		meant = lower
	case oneEditApart(lower, "https"): // "htts" is one letter from both: the s says https
		meant = "https"
	case oneEditApart(lower, "http"):
		meant = "http"
	}
	host := strings.TrimLeft(rest, "/")
	switch {
	case (u.Scheme == "http" || u.Scheme == "https") && strings.HasPrefix(rest, "//"):
		return "", ""
	case meant == "":
		return "want an http:// or https:// URL", exampleURL
	case host == "":
		return fmt.Sprintf("is malformed: %q is not followed by a host (want an http:// or https:// URL)", scheme+":"), exampleURL
	case strings.EqualFold(scheme, meant):
		return fmt.Sprintf("is malformed: a scheme is followed by // (%s://, not %s)", meant, scheme+":"+rest[:len(rest)-len(host)]), meant + "://" + host
	}
	return fmt.Sprintf("is malformed: the scheme %q is not http or https (a typo?)", scheme), meant + "://" + host
}

// oneEditApart reports whether a and b differ by one letter inserted, removed,
// replaced, or two neighbours swapped.
func oneEditApart(a, b string) bool {
	if a == b || len(a)-len(b) > 1 || len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case len(a) == len(b):
		return a[i+1:] == b[i+1:] || i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	case len(a) > len(b):
		return a[i+1:] == b[i:]
	}
	return a[i:] == b[i+1:]
}
