package client

import (
	"net/url"
	"strings"
)

// EndpointLabel is how an endpoint is named in messages: its Name, else the host of its
// URL (never the URL's userinfo or query).
func EndpointLabel(ep Endpoint) string {
	if ep.Name != "" {
		return ep.Name
	}
	if u, err := url.Parse(ep.BaseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return safeRawURL(ep.BaseURL)
}

// RedactedURL is a base URL for screens and reports: scheme, host and path, without the
// userinfo (user, password, or a token in the user part) and without the query.
func RedactedURL(raw string) string { return safeRawURL(strings.TrimSpace(raw)) }
