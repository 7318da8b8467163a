package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

// drainWait bounds reading the end of a response after [DONE] (normally immediate).
const drainWait = 250 * time.Millisecond

// Client streams completions from one Endpoint. It is safe for concurrent use: one
// Client serves all the streams of an endpoint, over its own connection pool. It reads
// the event stream itself (lineReader, decoder); go-openai only provides the request types.
type Client struct {
	ep       Endpoint
	api      string       // the API spoken (api.go)
	chunkAPI bool         // chat or completions: the read loop tries fastChunk on every event
	calls    *workBody    // writes the body of a Call (StreamCall)
	hc       *http.Client // the endpoint's connection pool
	fresh    *http.Client // a new connection per request: the retry after a dead one
	url      string       // where requests go: the base URL + /chat/completions or /completions
	header   http.Header  // the header of every request, shared by all of them: never written after New
	body     *bodySource
	timeout  time.Duration
	hostPort string // host:port for messages
	redact   redactor
}

// New builds the client for ep, with an HTTP connection pool sized for conns
// concurrent streams. It validates ep (URL, API) and returns an error that says what is
// wrong and what to do.
func New(ep Endpoint, conns int) (*Client, error) {
	if conns < 1 {
		return nil, fmt.Errorf("probe: the connection pool needs at least 1 connection (got %d)", conns)
	}
	ep, u, err := normalize(ep)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{
		Transport: newTransport(ep, conns),
		// A redirect is reported, not followed: following it turns the POST into a GET
		// (301/302) or hides a round trip inside TTFT and stamps t_headers on the
		// redirect's answer (307/308). send turns it into a redirectError.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return newClient(ep, u, hc)
}

// newTransport returns the endpoint's own transport: idle pool sized to conns, TLS
// verified unless ep.Insecure, HTTP/2 when the server offers it, no transparent gzip
// (it would delay events), no overall timeout (contexts bound each request).
func newTransport(ep Endpoint, conns int) *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		TLSClientConfig:       &tls.Config{InsecureSkipVerify: ep.Insecure}, //nolint:gosec // only when the user asks
	}
}

// newClient builds a Client over hc (tests and benchmarks pass their own transport).
// The retry after a dead connection goes over a copy of hc's transport that keeps no
// connection, so that it always dials a new one.
func newClient(ep Endpoint, u *url.URL, hc *http.Client) (*Client, error) {
	if ep.Prompt == "" && ep.PromptSeed == 0 {
		ep.PromptSeed = randomSeed()
	}
	body, err := requestBody(ep)
	if err != nil {
		return nil, err
	}
	bs := newBodySource(body, ep.PromptSeed, promptWordCount(ep.PromptTokens))
	calls, err := newWorkBody(body, ep.Workload, ep.API)
	if err != nil {
		return nil, err
	}
	if ep.Workload != nil {
		bs.work = calls
	}
	fresh := hc
	if tr, ok := hc.Transport.(*http.Transport); ok {
		t := tr.Clone()
		t.DisableKeepAlives = true
		fresh = &http.Client{Transport: t, CheckRedirect: hc.CheckRedirect}
	}
	return &Client{
		ep:       ep,
		api:      ep.API,
		chunkAPI: ep.API != APIMessages && ep.API != APIResponses,
		calls:    calls,
		hc:       hc,
		fresh:    fresh,
		url:      strings.TrimRight(ep.BaseURL, "/") + APIPath(ep.API),
		header:   requestHeader(ep),
		body:     bs,
		timeout:  ep.Timeout,
		hostPort: hostPort(u),
		redact:   newRedactor(ep),
	}, nil
}

// Endpoint returns the endpoint with defaults applied (and the prompt seed drawn).
func (c *Client) Endpoint() Endpoint { return c.ep }

// CloseIdleConnections closes the client's idle connections (call it when done).
func (c *Client) CloseIdleConnections() {
	c.hc.CloseIdleConnections()
	c.fresh.CloseIdleConnections()
}

// Stream implements probe.Streamer: it sends one streaming request and reads it to the end.
func (c *Client) Stream(ctx context.Context, p *probe.Progress) model.Sample {
	return c.stream(ctx, p, nil, nil)
}

// stream sends body (nil: the client's next one) and reads the answer to its end,
// appending the answer's text to answer when it is not nil.
func (c *Client) stream(ctx context.Context, p *probe.Progress, body []byte, answer *[]byte) model.Sample {
	if p == nil {
		p = new(probe.Progress)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rs := &reqState{p: p, timeout: c.timeout, grain: aliveGrain(c.timeout), cancel: cancel, body: body}
	rs.alive.Store(probe.Mono())
	rs.timer = time.AfterFunc(time.Hour, rs.watch)
	rs.timer.Reset(c.timeout)
	defer func() {
		rs.stopped.Store(true)
		rs.timer.Stop()
	}()
	rctx = httptrace.WithClientTrace(rctx, rs.trace())

	r := result{gaps: new(model.GapSketch), answer: answer}
	resp, err := c.send(rctx, ctx, rs)
	if err != nil {
		r.end = probe.Mono()
		switch {
		case isCanceled(ctx):
			r.kind, r.msg = model.ErrCanceled, "canceled by tpsmon"
		case rs.timedOut.Load():
			r.kind, r.msg = model.ErrTimeout, timeoutMessage(c.timeout, rs.headers.Load() != 0, 0)
		default:
			r.kind, r.status, r.msg = c.classifyRequestErr(err, rs.status)
			if se := (*statusError)(nil); errors.As(err, &se) {
				r.retryAfter = se.retryAfter
			}
		}
		return c.sample(rs, &r)
	}
	sr := newLineReader(resp.Body, &rs.alive, rs.grain)
	sr.res = r // beside the reader's own fields (lineReader)
	c.read(ctx, sr, rs, &sr.res)
	if sr.res.kind == model.ErrNone {
		// Read the end of the body (after [DONE]) so the connection can be reused; a
		// server that keeps the response open after [DONE] gets drainWait at most.
		stop := time.AfterFunc(drainWait, func() { cancel(errIdle) })
		sr.drain(64 << 10)
		stop.Stop()
	}
	_ = resp.Body.Close()
	s := c.sample(rs, &sr.res)
	sr.free()
	return s
}

// sample turns a result into a model.Sample.
func (c *Client) sample(rs *reqState, r *result) model.Sample {
	r.flushGaps()
	s := model.Sample{
		Chunks:       r.chunks,
		Tokens:       r.chunks,
		Usage:        r.usage,
		PromptTokens: r.promptTokens,
		MaxGap:       time.Duration(r.maxGap),
		Gaps:         r.gaps,
		Finish:       r.finish,
		Status:       rs.status,
		Err:          r.kind,
		ErrMsg:       r.msg,
		Send:         monoTime(rs.send),
		Headers:      monoTime(rs.headers.Load()),
		First:        monoTime(r.first),
		FirstAnswer:  monoTime(r.firstAnswer),
		Last:         monoTime(r.last),
		End:          monoTime(r.end),
		RetryAfter:   r.retryAfter,
	}
	if r.usage {
		s.Tokens = r.tokens
	}
	if r.status != 0 {
		s.Status = r.status
	}
	return s
}

// monoTime is MonoTime with 0 meaning "never" (the zero time.Time).
func monoTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return probe.MonoTime(ns)
}
