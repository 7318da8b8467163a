package probe

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tpsmon/tpsmon/model"
)

// epoch anchors Mono: a process-wide monotonic origin.
var epoch = time.Now()

// Mono returns monotonic nanoseconds since the process epoch (cheap, storable in an atomic).
func Mono() int64 { return int64(time.Since(epoch)) }

// MonoTime converts a Mono reading back into a time.Time with a monotonic reading.
func MonoTime(ns int64) time.Time { return epoch.Add(time.Duration(ns)) }

// Progress is the live view of one in-flight stream, written by the goroutine that reads
// the stream and read by the pool's collector. The per-token path touches only Chunks.
type Progress struct {
	Chunks atomic.Int64 // token-bearing events received so far
	First  atomic.Int64 // Mono() at the first token-bearing event, 0 before it
	Send   atomic.Int64 // Mono() at t_send, 0 before it
}

// Streamer sends one streamed request and reports it; the pool depends only on this,
// so its tests can use a fake. Stream must return when ctx is canceled (Err = model.ErrCanceled).
type Streamer interface {
	Stream(ctx context.Context, p *Progress) model.Sample
}

// Defaults applied by NewClient to an Endpoint's zero fields.
const (
	DefaultAPI          = "chat"
	DefaultMaxTokens    = 256
	DefaultPromptTokens = 128
	DefaultTimeout      = 60 * time.Second
)

// placeholderModel is the model name go-openai sees; the doer sends the real one. It
// keeps go-openai's client-side checks on OpenAI model names out of the way.
const placeholderModel = "tpsmon-placeholder"

// emptyLinesLimit is how many non-data lines (pings, event: lines, blank lines) may come
// between two data lines. Long prefills send many pings; stalls are the watchdog's job.
const emptyLinesLimit = 1 << 24

// drainWait bounds reading the end of a response after [DONE] (normally immediate).
const drainWait = 250 * time.Millisecond

// Client streams completions from one Endpoint. It is safe for concurrent use: one
// Client serves all the streams of an endpoint, over its own connection pool.
type Client struct {
	ep          Endpoint
	completions bool
	hc          *http.Client
	oa          *openai.Client
	chatStub    openai.ChatCompletionRequest
	compStub    openai.CompletionRequest
	timeout     time.Duration
	hostPort    string // host:port for messages
	redact      redactor
}

// NewClient builds the client for ep, with an HTTP connection pool sized for conns
// concurrent streams. It validates ep (URL, API) and returns an error that says what is
// wrong and what to do.
func NewClient(ep Endpoint, conns int) (*Client, error) {
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
		// redirect's answer (307/308). The doer turns it into a redirectError.
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
func newClient(ep Endpoint, u *url.URL, hc *http.Client) (*Client, error) {
	body, err := requestBody(ep)
	if err != nil {
		return nil, err
	}
	d := &doer{hc: hc, body: body, headers: ep.Headers.Clone()}
	if ep.APIKey != "" {
		d.auth = "Bearer " + ep.APIKey
	}
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = strings.TrimRight(ep.BaseURL, "/")
	cfg.HTTPClient = d
	cfg.EmptyMessagesLimit = emptyLinesLimit
	return &Client{
		ep:          ep,
		completions: ep.API == "completions",
		hc:          hc,
		oa:          openai.NewClientWithConfig(cfg),
		chatStub:    openai.ChatCompletionRequest{Model: placeholderModel},
		compStub:    openai.CompletionRequest{Model: placeholderModel, Prompt: ""},
		timeout:     ep.Timeout,
		hostPort:    hostPort(u),
		redact:      newRedactor(ep),
	}, nil
}

// Endpoint returns the endpoint with defaults applied.
func (c *Client) Endpoint() Endpoint { return c.ep }

// CloseIdleConnections closes the client's idle connections (call it when done).
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// normalize applies defaults and validates ep. A refused setting is a *FieldError.
func normalize(ep Endpoint) (Endpoint, *url.URL, error) {
	base, err := NormalizeBaseURL(ep.BaseURL)
	if err != nil {
		return ep, nil, err
	}
	u, err := url.Parse(base)
	if err != nil { // NormalizeBaseURL returns only URLs that parse
		return ep, nil, &FieldError{Field: FieldURL, Value: safeRawURL(base), Problem: "is not a URL"}
	}
	ep.BaseURL = base
	if ep.API == "" {
		ep.API = DefaultAPI
	}
	if ep.API != "chat" && ep.API != "completions" {
		return ep, nil, &FieldError{Field: FieldAPI, Value: ep.API, Problem: "want chat or completions"}
	}
	if strings.TrimSpace(ep.Model) == "" {
		return ep, nil, &FieldError{Field: FieldModel, Problem: "is required: the model name " + safeURL(u) + " serves (its GET /models lists them)"}
	}
	switch {
	case ep.MaxTokens == 0:
		ep.MaxTokens = DefaultMaxTokens
	case ep.MaxTokens < 0:
		return ep, nil, &FieldError{Field: FieldMaxTokens, Value: strconv.Itoa(ep.MaxTokens), Problem: "want at least 1"}
	}
	switch {
	case ep.PromptTokens == 0:
		ep.PromptTokens = DefaultPromptTokens
	case ep.PromptTokens < 0:
		return ep, nil, &FieldError{Field: FieldPromptTokens, Value: strconv.Itoa(ep.PromptTokens), Problem: "want at least 1"}
	}
	switch {
	case ep.Timeout == 0:
		ep.Timeout = DefaultTimeout
	case ep.Timeout < 0:
		return ep, nil, &FieldError{Field: FieldTimeout, Value: ep.Timeout.String(), Problem: "want a positive duration such as 60s"}
	}
	if ep.Name == "" {
		ep.Name = u.Host
	}
	return ep, u, nil
}

// requestBody builds the JSON body sent with every request, once per client: go-openai's
// request type with the real model, then ExtraBody merged over the top-level keys, then
// ignore_eos, and finally stream:true and stream_options.include_usage:true forced on.
func requestBody(ep Endpoint) ([]byte, error) {
	prompt := ep.Prompt
	if prompt == "" {
		prompt = syntheticPrompt(ep.PromptTokens)
	}
	opts := &openai.StreamOptions{IncludeUsage: true}
	var base any
	if ep.API == "completions" {
		base = openai.CompletionRequest{Model: ep.Model, Prompt: prompt, MaxTokens: ep.MaxTokens, Stream: true, StreamOptions: opts}
	} else {
		base = openai.ChatCompletionRequest{
			Model:         ep.Model,
			Messages:      []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: prompt}},
			MaxTokens:     ep.MaxTokens,
			Stream:        true,
			StreamOptions: opts,
		}
	}
	b, err := json.Marshal(base)
	if err != nil {
		return nil, fmt.Errorf("probe: building the request body: %w", err)
	}
	if len(ep.ExtraBody) == 0 && !ep.IgnoreEOS {
		return b, nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("probe: building the request body: %w", err)
	}
	for k, v := range ep.ExtraBody {
		m[k] = v
	}
	if ep.IgnoreEOS {
		m["ignore_eos"] = true
	}
	m["stream"] = true
	so := map[string]any{}
	if user, ok := m["stream_options"].(map[string]any); ok {
		for k, v := range user {
			so[k] = v
		}
	}
	so["include_usage"] = true
	m["stream_options"] = so
	b, err = json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("--extra-body cannot be sent as JSON: %w", err)
	}
	return b, nil
}

// reqStateKey carries a request's reqState from Stream to the doer.
type reqStateKey struct{}

// reqState is one request's shared state between Stream, the doer, the body wrapper,
// httptrace and the watchdog timer.
type reqState struct {
	p       *Progress
	send    int64 // Mono() at t_send, set by the doer
	status  int
	body    *sniffBody
	headers atomic.Int64 // Mono() at the first response byte
	alive   atomic.Int64 // Mono() when the server last showed life (send, headers, bytes)

	timeout  time.Duration
	timer    *time.Timer
	cancel   context.CancelCauseFunc
	stopped  atomic.Bool
	timedOut atomic.Bool
}

// watch is the watchdog: instead of resetting a timer per event, the reader only stores
// the time of its last read, and the timer, when it fires, either cancels the request
// (quiet for the whole timeout) or re-arms itself for the remaining time.
func (rs *reqState) watch() {
	if rs.stopped.Load() {
		return
	}
	idle := time.Duration(Mono() - rs.alive.Load())
	if idle >= rs.timeout {
		rs.timedOut.Store(true)
		rs.cancel(errIdle)
		return
	}
	rs.timer.Reset(rs.timeout - idle)
}

// rawStream is what both go-openai stream types offer.
type rawStream interface {
	RecvRaw() ([]byte, error)
	Close() error
}

// Stream implements Streamer: it sends one streaming request and reads it to the end.
func (c *Client) Stream(ctx context.Context, p *Progress) model.Sample {
	if p == nil {
		p = new(Progress)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rs := &reqState{p: p, timeout: c.timeout, cancel: cancel}
	rs.alive.Store(Mono())
	rs.timer = time.AfterFunc(time.Hour, rs.watch)
	rs.timer.Reset(c.timeout)
	defer func() {
		rs.stopped.Store(true)
		rs.timer.Stop()
	}()
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() {
		now := Mono()
		rs.headers.Store(now)
		rs.alive.Store(now)
	}}
	rctx = httptrace.WithClientTrace(context.WithValue(rctx, reqStateKey{}, rs), trace)

	var st rawStream
	var err error
	if c.completions {
		var cs *openai.CompletionStream
		if cs, err = c.oa.CreateCompletionStream(rctx, c.compStub); err == nil {
			st = cs
		}
	} else {
		var cs *openai.ChatCompletionStream
		if cs, err = c.oa.CreateChatCompletionStream(rctx, c.chatStub); err == nil {
			st = cs
		}
	}
	var r result
	if err != nil {
		r.end = Mono()
		if rs.body != nil {
			_ = rs.body.Close()
		}
		switch {
		case isCanceled(ctx):
			r.kind, r.msg = model.ErrCanceled, "canceled by tpsmon"
		case rs.timedOut.Load():
			r.kind, r.msg = model.ErrTimeout, timeoutMessage(c.timeout, rs.headers.Load() != 0, 0)
		default:
			r.kind, r.status, r.msg = c.classifyRequestErr(err, rs.status)
		}
		return c.sample(rs, &r)
	}
	c.read(ctx, st, rs, &r)
	if r.kind == model.ErrNone {
		// Read the end of the body (after [DONE]) so the connection can be reused; a
		// server that keeps the response open after [DONE] gets drainWait at most.
		stop := time.AfterFunc(drainWait, func() { cancel(errIdle) })
		rs.body.drain(64 << 10)
		stop.Stop()
	}
	_ = st.Close()
	return c.sample(rs, &r)
}

// result is what the read loop learned about one stream.
type result struct {
	first, firstAnswer, last, end int64
	chunks, tokens, promptTokens  int
	usage                         bool
	maxGap                        int64
	finish                        string
	status                        int
	kind                          model.ErrorKind
	msg                           string
}

// read reads the stream to its end. This is the per-event path: one RecvRaw, one clock
// read, a decode that allocates nothing for the common content delta, and one atomic add.
func (c *Client) read(ctx context.Context, st rawStream, rs *reqState, r *result) {
	dec := decoder{completions: c.completions}
	p := rs.p
	body := rs.body
	dataEvents := 0
	for {
		raw, err := st.RecvRaw()
		now := Mono()
		if err != nil {
			r.end = now
			c.endErr(ctx, err, rs, r, dataEvents)
			return
		}
		dataEvents++
		if len(raw) == 0 {
			// A data line with no payload. go-openai also returns nothing after an
			// in-band error it could not parse ({"error":"text"}).
			if body.errData || body.errEvent {
				r.end, r.kind, r.msg = now, model.ErrStream, c.sniffedError(body)
				return
			}
			continue
		}
		info, derr := dec.decode(raw)
		if derr != nil {
			r.end, r.kind = now, model.ErrProtocol
			if body.errEvent {
				r.kind = model.ErrStream
				r.msg = "stream_error: the server sent an error event: " + c.redact.line(raw, 200)
				return
			}
			r.msg = "protocol: an event is not valid JSON: " + c.redact.line(raw, 120)
			return
		}
		if info.token {
			r.chunks++
			p.Chunks.Add(1)
			if r.first == 0 {
				r.first = now
				p.First.Store(now)
			} else if gap := now - r.last; gap > r.maxGap {
				r.maxGap = gap
			}
			r.last = now
			if info.answer && r.firstAnswer == 0 {
				r.firstAnswer = now
			}
		}
		if info.finish != "" {
			r.finish = info.finish
		}
		if info.usage {
			r.usage, r.tokens, r.promptTokens = true, info.compTok, info.promTok
		}
		// The sniffer may have seen an `event: error` line a few events ahead of this one
		// (it reads in blocks); the outcome is the same: the stream carried an error.
		if info.isErr || (!info.token && body.errEvent) {
			msg := info.errMsg
			if msg == "" {
				msg = "the server sent an error event: " + string(raw)
			}
			r.end, r.kind, r.msg = now, model.ErrStream, "stream_error: "+c.redact.line([]byte(msg), 300)
			return
		}
	}
}

// endErr classifies the end of a stream: io.EOF (at [DONE] or when the connection
// closed: go-openai does not tell them apart, the sniffer does) or another error.
func (c *Client) endErr(ctx context.Context, err error, rs *reqState, r *result, dataEvents int) {
	body := rs.body
	var apiErr *openai.APIError
	switch {
	case isCanceled(ctx) && !body.done && r.finish == "":
		// Our own cancel (quit, Ctrl-C) closed the stream: go-openai may report that as a
		// clean io.EOF, which must not read as the server's truncation.
		r.kind, r.msg = model.ErrCanceled, "canceled by tpsmon"
	case errors.Is(err, io.EOF):
		switch {
		case body.errEvent || body.errData:
			r.kind, r.msg = model.ErrStream, c.sniffedError(body)
		case r.finish == "abort" || r.finish == "error":
			// vLLM ends a request its engine dropped with finish_reason "abort"; some
			// servers say "error". The answer is cut short: a failure, not a success.
			r.kind = model.ErrStream
			r.msg = fmt.Sprintf("stream_error: the server ended the stream with finish_reason %q after %d chunks", r.finish, r.chunks)
		case body.done || r.finish != "":
			// success
		case dataEvents == 0 && !looksLikeSSE(body.head[:body.nhead]):
			r.kind = model.ErrProtocol
			r.msg = "protocol: the server answered 200 but not with an event stream: " +
				c.redact.line(body.head[:body.nhead], 120)
		default:
			r.kind = model.ErrTruncated
			r.msg = fmt.Sprintf("truncated: the server closed the stream after %d chunks without a finish_reason or [DONE]", r.chunks)
		}
	case isCanceled(ctx):
		r.kind, r.msg = model.ErrCanceled, "canceled by tpsmon"
	case rs.timedOut.Load():
		r.kind, r.msg = model.ErrTimeout, timeoutMessage(c.timeout, true, r.chunks)
	case errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		r.kind, r.msg = model.ErrProtocol, "protocol: too many lines without data in the stream"
	case errors.As(err, &apiErr):
		r.kind = model.ErrStream
		r.msg = "stream_error: " + c.redact.line([]byte(apiErr.Message), 300)
	default:
		r.kind = model.ErrTruncated
		r.msg = fmt.Sprintf("truncated: the connection broke after %d chunks (%s)", r.chunks, c.redact.clean(innermost(err)))
	}
}

// sniffedError is the message of an in-band error that go-openai did not return: it
// parses a `data: {"error":...}` payload together with every earlier non-data line of the
// stream (`: ping` comments), or not at all when "error" is a plain string (TGI).
func (c *Client) sniffedError(body *sniffBody) string {
	payload := bytes.TrimSpace(body.errLine)
	if len(payload) == 0 {
		return "stream_error: the server sent an error event in the stream"
	}
	var o struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(payload, &o) == nil {
		if t := errorText(o.Error); t != "" {
			return "stream_error: " + c.redact.line([]byte(t), 300)
		}
	}
	return "stream_error: the server sent an error event: " + c.redact.line(payload, 300)
}

// sample turns a result into a model.Sample.
func (c *Client) sample(rs *reqState, r *result) model.Sample {
	s := model.Sample{
		Chunks:       r.chunks,
		Tokens:       r.chunks,
		Usage:        r.usage,
		PromptTokens: r.promptTokens,
		MaxGap:       time.Duration(r.maxGap),
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
	return MonoTime(ns)
}
