package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tpsmon/tpsmon/probe"
)

// send sends the request and returns its response when the status is 2xx. Any other
// answer is an error: a redirectError (3xx, not followed) or a statusError with the
// first bytes of the body.
//
// A request that fails on a reused connection before any byte of its answer is sent once
// more, on a new connection, with t_send stamped again: the connection was dead before
// the request left (llama.cpp's llama-server closes the socket after every streamed
// answer while it advertises Keep-Alive, and Go's pool hands out the connection before
// it notices the close). That failure is the client's pool's, not the server's: it is no
// error, and TTFT holds none of the time spent on the dead connection. ctx is the
// request's context, caller the caller's (whose cancel is never retried).
func (c *Client) send(ctx, caller context.Context, rs *reqState) (*http.Response, error) {
	resp, err := c.do(ctx, rs, c.hc)
	if err != nil && rs.reused.Load() && rs.headers.Load() == 0 && caller.Err() == nil && !rs.timedOut.Load() {
		resp, err = c.do(ctx, rs, c.fresh)
	}
	return resp, err
}

// do sends the request once over hc, stamping t_send just before hc.Do.
func (c *Client) do(ctx context.Context, rs *reqState, hc *http.Client) (*http.Response, error) {
	body := rs.body
	if body == nil {
		body = c.body.next()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	// Every request shares the client's header map, which nothing writes: net/http's
	// client and transports only read a request's header (http.Client clones it before
	// adding the URL's userinfo as Authorization, and it has no cookie jar here).
	// Cloning it cost 3 allocations per request (BenchmarkStreamHTTP).
	req.Header = c.header
	rs.reused.Store(false)
	rs.send = probe.Mono()
	rs.alive.Store(rs.send)
	rs.p.Send.Store(rs.send)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	rs.status = resp.StatusCode
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		re := &redirectError{status: resp.StatusCode}
		if loc, err := resp.Location(); err == nil {
			// Name the API base, which is what the endpoint URL must be.
			loc.Path = strings.TrimSuffix(loc.Path, APIPath(c.api))
			re.location = safeURL(loc)
		}
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
		_ = resp.Body.Close()
		return nil, re
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		se := &statusError{status: resp.StatusCode, retryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
		se.body, se.cut = readErrorBody(resp.Body, &rs.alive)
		_ = resp.Body.Close()
		return nil, se
	}
	return resp, nil
}

// requestHeader is the header every request of ep carries. Its values are never shown.
func requestHeader(ep Endpoint) http.Header {
	h := http.Header{
		"Content-Type":  {"application/json"},
		"Accept":        {"text/event-stream"},
		"Cache-Control": {"no-cache"},
	}
	if ep.APIKey != "" {
		h.Set("Authorization", "Bearer "+ep.APIKey)
	}
	if ep.API == APIMessages {
		// Anthropic's API reads the key from x-api-key and wants the API's version;
		// servers that speak it beside OpenAI's (llama.cpp, vLLM) read either header.
		h.Set("Anthropic-Version", AnthropicVersion)
		if ep.APIKey != "" {
			h.Set("X-Api-Key", ep.APIKey)
		}
	}
	for k, vs := range ep.Headers {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	return h
}

// redirectError is a 3xx answer, which the client does not follow.
type redirectError struct {
	status   int
	location string // where it points (no userinfo, no query), "" when unknown
}

func (e *redirectError) Error() string {
	prefix := fmt.Sprintf("http %d %s", e.status, http.StatusText(e.status))
	if e.location == "" {
		return prefix + ": the server answered with a redirect: check the endpoint URL"
	}
	return prefix + ": the server redirects to " + e.location + ": use that as the endpoint URL"
}

// statusError is a non-2xx, non-3xx answer.
type statusError struct {
	status     int
	body       []byte        // its first bytes (up to maxErrorBody)
	cut        bool          // the connection broke before the body was complete
	retryAfter time.Duration // the wait its Retry-After header asks for (0: none)
}

// maxRetryAfter bounds a Retry-After read: a longer wait is kept as this.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads a Retry-After header (RFC 9110: whole seconds, or an HTTP date)
// as the wait it asks for from now; 0 when absent, unreadable or in the past.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return min(time.Duration(n)*time.Second, maxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}

func (e *statusError) Error() string { return fmt.Sprintf("http %d", e.status) }

// maxErrorBody bounds how much of an error response's body is read: only its first
// bytes are ever shown, and a server may stream an endless error page.
const maxErrorBody = 64 << 10

// readErrorBody reads up to maxErrorBody bytes of an error answer, storing the time of
// every read in alive (the watchdog). cut reports a body that broke off.
func readErrorBody(body io.Reader, alive *atomic.Int64) (b []byte, cut bool) {
	b = make([]byte, 0, 1024)
	for len(b) < maxErrorBody {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := body.Read(b[len(b):min(cap(b), maxErrorBody)])
		if n > 0 {
			alive.Store(probe.Mono())
			b = b[:len(b)+n]
		}
		if err != nil {
			return b, err != io.EOF
		}
	}
	return b, false
}
