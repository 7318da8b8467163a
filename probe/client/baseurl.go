package client

import (
	"errors"
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
	if u.Scheme != "http" && u.Scheme != "https" {
		if !strings.Contains(raw, "://") {
			return fail("want an http:// or https:// URL", "http://"+shown)
		}
		return fail("want an http:// or https:// URL", exampleURL)
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
