package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// keyEnvHint tells a user where tpsmon reads the API key from, in words that name no
// flag (the client's messages never do: cmd and the config name their own).
const keyEnvHint = "set it in the API key's environment variable ($OPENAI_API_KEY unless the run names another)"

// errIdle is the cancel cause set by the watchdog when the server went quiet.
var errIdle = errors.New("tpsmon: no data from the server within the timeout")

// hostPort returns u's host with its port (the scheme's default when absent).
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// connectMessage says in plain words why a connection failed. It never includes the URL
// (which may hold userinfo), only host:port.
func connectMessage(err error, hp string) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var uaErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	switch {
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("connect: cannot resolve host %s (%s): check the endpoint URL", dnsErr.Name, dnsErr.Err)
	case errors.As(err, &certErr), errors.As(err, &uaErr), errors.As(err, &hostErr):
		return fmt.Sprintf("connect: TLS certificate of %s not trusted (%s): fix the certificate, or turn verification off (insecure) for a server you trust", hp, innermost(err))
	case errors.As(err, &recErr):
		return fmt.Sprintf("connect: TLS handshake with %s failed: the server does not speak TLS (use http:// in the endpoint URL?)", hp)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connect: connection refused " + hp + ": is the server running on that port?"
	case errors.Is(err, syscall.ECONNRESET):
		return "connect: connection reset by " + hp
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connect: " + hp + " closed the connection before sending a response"
	}
	return "connect: " + innermost(err) + " " + hp
}

// innermost is the message of the deepest wrapped error (without url.Error's URL).
func innermost(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	return err.Error()
}

// credentials says what a request authenticates with, for 401/403 messages.
type credentials int

const (
	credNone  credentials = iota
	credKey               // the API key (from the environment)
	credOther             // only an auth header among the extra headers, or the URL's userinfo
)

// endpointCredentials is what requests to ep authenticate with.
func endpointCredentials(ep Endpoint) credentials {
	if ep.APIKey != "" {
		return credKey
	}
	for k := range ep.Headers {
		for _, h := range []string{"Authorization", "Api-Key", "X-Api-Key"} {
			if strings.EqualFold(k, h) {
				return credOther
			}
		}
	}
	if u, err := url.Parse(strings.TrimSpace(ep.BaseURL)); err == nil && u.User != nil {
		return credOther
	}
	return credNone
}

// httpMessage explains a non-2xx answer: status, the server's message when it has one
// (or the first bytes of a non-JSON body), and what to do.
func httpMessage(status int, serverMsg string, cred credentials) string {
	prefix := fmt.Sprintf("http %d %s", status, http.StatusText(status))
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		// The server's own words are left out: some echo the key they refused.
		switch cred {
		case credNone:
			return prefix + ": the server wants an API key and none was sent: " + keyEnvHint
		case credOther:
			return prefix + ": the server refused the credentials sent in the extra headers or in the endpoint URL (or their permissions)"
		}
		return prefix + ": the server refused the API key (or its permissions): " + keyEnvHint
	case http.StatusNotFound:
		if serverMsg == "" {
			return prefix + ": nothing at this path: check that the endpoint URL is the API base (e.g. http://host:8000/v1) and the model name"
		}
		return prefix + ": " + serverMsg + " (check the model name and the endpoint URL)"
	case http.StatusTooManyRequests:
		if serverMsg == "" {
			return prefix + ": the server is rate limiting or overloaded"
		}
		return prefix + ": " + serverMsg
	}
	if serverMsg == "" {
		return prefix
	}
	return prefix + ": " + serverMsg
}

// bodyMessage extracts the server's message from an error body: OpenAI's
// {"error":{"message":...}}, old vLLM {"object":"error","message":...}, FastAPI
// {"detail":...}, {"error":"text"}, or else the first bytes of the body.
func (r redactor) bodyMessage(body []byte) string {
	var o struct {
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &o) == nil {
		for _, raw := range []json.RawMessage{o.Message, o.Error, o.Detail} {
			if len(raw) == 0 || string(raw) == "null" {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				if s != "" {
					return r.line([]byte(s), 300)
				}
				continue
			}
			if t := errorText(raw); t != "" {
				return r.line([]byte(t), 300)
			}
			return r.line(raw, 300)
		}
	}
	return r.line(body, 120)
}

// classifyRequestErr maps an error returned while sending the request (before any event
// was read) to an error kind, HTTP status and message. status is the response's status
// code, 0 when no response arrived.
func (c *Client) classifyRequestErr(err error, status int) (model.ErrorKind, int, string) {
	var redir *redirectError
	var se *statusError
	switch {
	case errors.As(err, &redir):
		return model.HTTPError(redir.status), redir.status, c.redact.clean(redir.Error())
	case errors.As(err, &se) && se.cut:
		// The server answered with an error status, then its body broke off.
		return model.HTTPError(se.status), se.status,
			httpMessage(se.status, "", endpointCredentials(c.ep)) + " (the connection broke before the server's message was complete)"
	case errors.As(err, &se):
		msg := ""
		if len(bytes.TrimSpace(se.body)) > 0 {
			msg = c.redact.bodyMessage(se.body)
		}
		return model.HTTPError(se.status), se.status, c.redact.clean(httpMessage(se.status, msg, endpointCredentials(c.ep)))
	}
	if msg, ok := clientLimitMessage(err, c.hostPort); ok {
		return model.ErrClient, 0, msg
	}
	return model.ErrConnect, 0, c.redact.clean(connectMessage(err, c.hostPort))
}

// clientLimitMessage says which of tpsmon's own limits a failure hit, when it hit one:
// no file descriptor left (EMFILE for the process, ENFILE for the system), no memory or
// socket buffers, no local port left for a new connection. These are the client's
// failures (model.ErrClient), never charged to the endpoint.
func clientLimitMessage(err error, hp string) (string, bool) {
	switch {
	case errors.Is(err, syscall.EMFILE):
		return "client: tpsmon has no file descriptor left for a new connection to " + hp +
			" (too many open files): raise the open-files limit (ulimit -n) or run fewer users", true
	case errors.Is(err, syscall.ENFILE):
		return "client: the system has no file descriptor left for a new connection to " + hp +
			" (file table overflow): run fewer users or close other programs", true
	case errors.Is(err, syscall.ENOMEM), errors.Is(err, syscall.ENOBUFS):
		return "client: the machine running tpsmon is out of memory for a new connection to " + hp +
			" (" + innermost(err) + "): run fewer users", true
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "client: this machine has no local port left for a new connection to " + hp +
			" (cannot assign requested address): run fewer users, or widen the local port range (net.ipv4.ip_local_port_range)", true
	}
	return "", false
}

// timeoutMessage says what the server did not do in time.
func timeoutMessage(d time.Duration, gotHeaders bool, chunks int) string {
	if !gotHeaders {
		return fmt.Sprintf("timeout: no response headers within %s (raise the timeout for slow servers)", d)
	}
	return fmt.Sprintf("timeout: the stream went quiet for %s after %d chunks (raise the timeout if the server is just slow)", d, chunks)
}

// isCanceled reports whether ctx (the caller's) was canceled or ran out.
func isCanceled(ctx context.Context) bool { return ctx.Err() != nil }
