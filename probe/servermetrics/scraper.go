// Package servermetrics reads an inference server's own view of its load: it scrapes
// the Prometheus text the server publishes on /metrics (vLLM, SGLang, TGI, llama.cpp
// with --metrics), recognises the server by its metric names, and returns one
// model-level model.ServerSample per scrape: requests running and waiting, KV-cache
// use, and the generated-tokens and preemptions counters.
//
// A scrape never touches the load: it has its own connection and a short timeout, and
// every failure (404, an HTML page, a timeout, garbage, a huge body, a refused
// connection) comes back as an *Error with a one-line reason. Watch scrapes once a
// second and says each change of state once.
package servermetrics

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
)

// Defaults of a scrape.
const (
	DefaultTimeout  = 2 * time.Second
	DefaultMaxBytes = 4 << 20 // vLLM's /metrics with every histogram is a few hundred KiB
	// accept asks for the classic text format (not protobuf, not OpenMetrics).
	accept = "text/plain;version=0.0.4;q=1,*/*;q=0.1"
)

// Config is one endpoint's metrics source.
type Config struct {
	URL string // the metrics URL, e.g. http://127.0.0.1:8000/metrics
	// BaseURL is the endpoint's base URL. Headers and APIKey are sent only when URL has
	// the same origin (scheme, host and port): a metrics URL elsewhere gets none.
	BaseURL  string
	Headers  http.Header // the endpoint's extra headers; values never printed
	APIKey   string      // sent as a bearer token unless Headers set Authorization
	Model    string      // when series carry model_name labels, only this model's count
	Timeout  time.Duration
	MaxBytes int64
	Insecure bool         // skip TLS verification, as the endpoint does
	Client   *http.Client // optional; by default the scraper's own transport
}

// FromEndpoint is the metrics source of ep at metricsURL ("" = DefaultURL of its base).
func FromEndpoint(ep client.Endpoint, metricsURL string) (Config, error) {
	if metricsURL == "" {
		u, err := DefaultURL(ep.BaseURL)
		if err != nil {
			return Config{}, err
		}
		metricsURL = u
	}
	return Config{
		URL: metricsURL, BaseURL: ep.BaseURL, Headers: ep.Headers, APIKey: ep.APIKey,
		Model: ep.Model, Insecure: ep.Insecure,
	}, nil
}

// DefaultURL is the base URL's origin + /metrics: http://h:8000/v1 gives http://h:8000/metrics.
func DefaultURL(baseURL string) (string, error) {
	u, err := parseHTTP(baseURL)
	if err != nil {
		return "", err
	}
	return u.Scheme + "://" + u.Host + "/metrics", nil
}

func parseHTTP(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server metrics: %q is not an http:// or https:// URL", displayRaw(raw))
	}
	return u, nil
}

// Scraper scrapes one endpoint's metrics. Safe for one goroutine at a time.
type Scraper struct {
	cfg     Config
	url     string // display form: no user info, no query
	hc      *http.Client
	headers http.Header
}

// New returns a scraper for cfg; the error says when the URL is not http(s).
func New(cfg Config) (*Scraper, error) {
	u, err := parseHTTP(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	s := &Scraper{cfg: cfg, url: display(u), hc: cfg.Client, headers: http.Header{}}
	if s.hc == nil {
		s.hc = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: cfg.Timeout}).DialContext,
			MaxIdleConnsPerHost: 1,
			IdleConnTimeout:     30 * time.Second,
			TLSClientConfig:     &tls.Config{InsecureSkipVerify: cfg.Insecure}, //nolint:gosec // only when the user asks
		}}
	}
	if b, err := url.Parse(strings.TrimSpace(cfg.BaseURL)); err == nil && sameOrigin(u, b) {
		s.headers = cfg.Headers.Clone()
		if s.headers == nil {
			s.headers = http.Header{}
		}
		if cfg.APIKey != "" && s.headers.Get("Authorization") == "" {
			s.headers.Set("Authorization", "Bearer "+cfg.APIKey)
		}
	}
	return s, nil
}

// URL is the metrics URL as it may be printed (no user info, no query).
func (s *Scraper) URL() string { return s.url }

// Close releases the scraper's idle connection.
func (s *Scraper) Close() { s.hc.CloseIdleConnections() }

// Scrape fetches and reads the metrics once. The error is always an *Error.
func (s *Scraper) Scrape(ctx context.Context) (model.ServerSample, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.URL, nil)
	if err != nil {
		return model.ServerSample{}, s.fail(ErrUnreachable, "the URL cannot be requested")
	}
	for k, v := range s.headers {
		req.Header[k] = v
	}
	req.Header.Set("Accept", accept)
	resp, err := s.noRedirect().Do(req)
	if err != nil {
		return model.ServerSample{}, s.transportError(ctx, err)
	}
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
	}()
	if e := s.checkResponse(resp); e != nil {
		return model.ServerSample{}, e
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.cfg.MaxBytes+1))
	if err != nil {
		if e := s.transportError(ctx, err); e.Kind != ErrUnreachable {
			return model.ServerSample{}, e
		}
		return model.ServerSample{}, s.fail(ErrUnreachable, "the answer was cut")
	}
	if int64(len(body)) > s.cfg.MaxBytes {
		return model.ServerSample{}, s.fail(ErrTooLarge, fmt.Sprintf("the answer is larger than %d KiB", s.cfg.MaxBytes>>10))
	}
	return s.read(body, time.Now())
}

// noRedirect is the client without redirects: headers are never carried elsewhere.
func (s *Scraper) noRedirect() *http.Client {
	c := *s.hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

func (s *Scraper) checkResponse(resp *http.Response) *Error {
	if resp.StatusCode != http.StatusOK {
		e := s.fail(ErrStatus, fmt.Sprint(resp.StatusCode))
		e.Status = resp.StatusCode
		return e
	}
	if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "html") {
		return s.fail(ErrNotMetrics, "an HTML page, not Prometheus text")
	}
	return nil
}

func (s *Scraper) read(body []byte, now time.Time) (model.ServerSample, error) {
	switch t := bytes.TrimSpace(body[:min(len(body), 512)]); {
	case bytes.HasPrefix(t, []byte("<")):
		return model.ServerSample{}, s.fail(ErrNotMetrics, "an HTML page, not Prometheus text")
	case bytes.HasPrefix(t, []byte("{")), bytes.HasPrefix(t, []byte("[")):
		return model.ServerSample{}, s.fail(ErrNotMetrics, "a JSON answer, not Prometheus text")
	}
	smp, ok, err := parse(bytes.NewReader(body), s.cfg.Model)
	if err != nil {
		return smp, s.fail(ErrNotMetrics, "not Prometheus text ("+oneLine(err.Error())+")")
	}
	if !ok {
		return smp, s.fail(ErrUnknownServer, "no vLLM, SGLang, TGI or llama.cpp metrics in it")
	}
	smp.Time = now
	return smp, nil
}

func (s *Scraper) transportError(ctx context.Context, err error) *Error {
	var ne net.Error
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return s.fail(ErrTimeout, "no answer within "+s.cfg.Timeout.String())
	case errors.Is(ctx.Err(), context.Canceled):
		return s.fail(ErrCanceled, "canceled")
	case isRefused(err):
		return s.fail(ErrUnreachable, "connection refused")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return s.fail(ErrUnreachable, "the connection closed before an answer")
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return s.fail(ErrUnreachable, "cannot connect: "+oneLine(oe.Err.Error()))
	}
	return s.fail(ErrUnreachable, "cannot connect")
}

func (s *Scraper) fail(kind ErrKind, reason string) *Error {
	return &Error{URL: s.url, Kind: kind, Reason: reason}
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return u.Hostname() + ":443"
	}
	return u.Hostname() + ":80"
}

// display is u without user info or query (either may hold a secret).
func display(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}

func displayRaw(raw string) string {
	if u, err := url.Parse(strings.TrimSpace(raw)); err == nil {
		return display(u)
	}
	return "the URL"
}

// oneLine keeps the first line of s, at most 120 bytes.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}
