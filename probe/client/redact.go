package client

import (
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// redactor removes secrets (the API key, header values, the userinfo of the URL) from
// text that came from elsewhere (a server's error message) before a person sees it.
// Longer secrets come first, so that one secret inside another is never half replaced.
type redactor []string

func newRedactor(ep Endpoint) redactor {
	var r redactor
	add := func(s string) {
		if len(s) >= 4 {
			r = append(r, s)
		}
	}
	add(ep.APIKey)
	for _, vs := range ep.Headers {
		for _, v := range vs {
			add(v)
			// "Bearer <token>", "Basic <creds>": a server may echo the token alone.
			if i := strings.LastIndexAny(v, " \t"); i >= 0 {
				add(v[i+1:])
			}
		}
	}
	if u, err := url.Parse(strings.TrimSpace(ep.BaseURL)); err == nil && u.User != nil {
		add(u.User.Username())
		if pw, ok := u.User.Password(); ok {
			add(pw)
		}
	}
	slices.SortFunc(r, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(r)
}

func (r redactor) clean(s string) string {
	for _, secret := range r {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	return s
}

// line is oneLine(b, max) with every secret removed first, so that a secret that
// straddles the cut leaves nothing behind. When b itself was cut (the first bytes of a
// body), a secret cut at its end is removed too.
func (r redactor) line(b []byte, max int) string {
	if len(r) == 0 {
		return oneLine(b, max)
	}
	s := r.clean(string(b))
	for _, secret := range r {
		for k := len(secret) - 1; k >= 4; k-- {
			if strings.HasSuffix(s, secret[:k]) {
				s = s[:len(s)-k] + "[redacted]"
				break
			}
		}
	}
	return oneLine([]byte(s), max)
}

// oneLine turns arbitrary bytes into one printable line of at most max bytes: control
// characters become spaces, runs of spaces collapse, invalid UTF-8 is dropped.
func oneLine(b []byte, max int) string {
	var sb strings.Builder
	space := false
	for len(b) > 0 && sb.Len() < max {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		if r == utf8.RuneError && n <= 1 {
			continue
		}
		if r < 0x20 || r == 0x7f || r == ' ' {
			if !space && sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		sb.WriteRune(r)
	}
	s := strings.TrimSpace(sb.String())
	if len(b) > 0 {
		s += "..."
	}
	return s
}

// safeURL renders a URL for messages: scheme, host and path only (no userinfo, no query).
func safeURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// safeRawURL renders a URL string that may not parse, without its userinfo or query.
func safeRawURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return safeURL(u)
	}
	rest := s
	scheme := ""
	if i := strings.Index(rest, "://"); i >= 0 {
		scheme, rest = rest[:i+3], rest[i+3:]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	return scheme + rest
}
