// Package sim is tpsmon's built-in simulated endpoint: an OpenAI-compatible server that
// behaves like a continuous-batching GPU server (slots, a FIFO queue, decode steps that
// slow down as more sequences share them, prefill that stalls everyone), so that the
// degradation curve it produces is real.
//
// One scheduler goroutine plays the GPU. Up to Config.Slots sequences decode together;
// further requests wait in a FIFO queue. One decode step yields one token for every
// decoding sequence and takes StepMs + StepMsPerSeq*decoding milliseconds (with seeded
// relative jitter); a request admitted into a slot adds its prefill,
// PrefillMsPerToken*prompt_tokens, to the step that admits it, so everyone slows down.
// Prompt tokens are estimated from the prompt text at about 4 characters per token
// (plus a few tokens of chat template per message).
//
// Each stream's own handler goroutine formats and flushes its SSE events; the scheduler
// only bumps an atomic counter and signals a one-slot channel, so a slow client never
// slows the batch. A client that disconnects frees its slot or queue place at the next
// step.
//
// Streams look like vLLM's: chat streams begin with a role-only delta (sent as soon as
// the request is accepted, before it reaches a slot, so a client that counts it as a
// token shows a TTFT that is too small); token events carry ids, object, created and
// model; the last token event carries finish_reason; with stream_options.include_usage a
// usage-only event with "choices":[] follows; then data: [DONE]. Every TokensPerChunk
// tokens form one event. Completions streams put the text in choices[0].text and have no
// role event. With ReasoningTokens, the first tokens of a chat answer (at most half of
// it) go in delta.reasoning (vLLM's current field name) and content is absent from those
// events; an event never mixes the two, so a stream with TokensPerChunk > 1 may have one
// more event than ceil(N/TokensPerChunk). Only streaming is simulated: "stream": false gets
// HTTP 400.
//
// Without ignore_eos a quarter of the answers stop early ("stop") at a length drawn
// uniformly between max(min_tokens, 1) and max_tokens-1; the others, and every answer
// with ignore_eos or min_tokens >= max_tokens, have exactly max_tokens tokens ("length").
//
// Faults, all drawn from Config.Seed (reproducible for sequential requests): ErrorRate
// answers HTTP 500; MaxQueue answers HTTP 429 when that many requests already wait beyond
// the free slots; DropRate cuts a stream after a random number of tokens (the connection
// is aborted: no finish_reason, no [DONE]); StallRate makes a stream pause once, at a
// random token, for StallMs: the sequence keeps its slot but sits out of the batch (it
// costs no step time) until the pause ends.
//
// GET /sim/stats reports the server's own counts and TTFT (arrival to the flush of the
// first token-bearing event); POST /sim/reset starts them again.
package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Config is one simulated server. Times are in milliseconds.
type Config struct {
	Name              string  // profile name, for display
	Model             string  // model name served by /v1/models and accepted by requests
	Slots             int     // sequences decoded together; more requests wait in a FIFO queue
	StepMs            float64 // fixed cost of one decode step
	StepMsPerSeq      float64 // added per active sequence: step = StepMs + StepMsPerSeq*active
	PrefillMsPerToken float64 // prefill cost of a newly admitted request, added to the step that admits it
	TokensPerChunk    int     // tokens per SSE event
	Jitter            float64 // relative, seeded jitter on step times (0.05 = ±5%)
	Seed              int64
	ErrorRate         float64 // fraction of requests answered HTTP 500
	MaxQueue          int     // HTTP 429 when the queue is longer than this (0 = unlimited)
	DropRate          float64 // fraction of streams cut mid-way (no finish_reason, no [DONE])
	StallRate         float64 // fraction of streams that stall once for StallMs mid-way
	StallMs           float64
	ReasoningTokens   int // the first N output tokens, at most half the answer, are sent as delta.reasoning (0 = none)
	DefaultMaxTokens  int // when a request sets no max_tokens
	KVTokens          int // KV-cache budget in tokens (prompt + generated of the slot holders; 0 = unlimited): see kvState
}

// Validate reports the first setting that cannot be simulated, naming the field.
// Zero values are fine: New fills in defaults.
func (c Config) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"step_ms", c.StepMs}, {"step_ms_per_seq", c.StepMsPerSeq},
		{"prefill_ms_per_token", c.PrefillMsPerToken}, {"stall_ms", c.StallMs},
		{"slots", float64(c.Slots)}, {"tokens_per_chunk", float64(c.TokensPerChunk)},
		{"max_queue", float64(c.MaxQueue)}, {"reasoning_tokens", float64(c.ReasoningTokens)},
		{"default_max_tokens", float64(c.DefaultMaxTokens)},
		{"kv_tokens", float64(c.KVTokens)},
	} {
		if f.v < 0 {
			return fmt.Errorf("simulator: %s is %v; it must be 0 or more", f.name, f.v)
		}
	}
	if c.Jitter < 0 || c.Jitter >= 1 {
		return fmt.Errorf("simulator: jitter is %v; it must be at least 0 and below 1 (0.05 = ±5%%)", c.Jitter)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"error_rate", c.ErrorRate}, {"drop_rate", c.DropRate}, {"stall_rate", c.StallRate}} {
		if f.v < 0 || f.v > 1 {
			return fmt.Errorf("simulator: %s is %v; it must be a fraction between 0 and 1", f.name, f.v)
		}
	}
	return nil
}

// withDefaults fills in zero settings: one slot, one token per event, 256 max tokens,
// model "tpsmon-sim".
func (c Config) withDefaults() Config {
	if c.Model == "" {
		c.Model = "tpsmon-sim"
	}
	c.Slots = max(c.Slots, 1)
	c.TokensPerChunk = max(c.TokensPerChunk, 1)
	if c.DefaultMaxTokens <= 0 {
		c.DefaultMaxTokens = 256
	}
	return c
}

// stopFraction is the share of answers without ignore_eos that end before max_tokens.
const stopFraction = 0.25

// maxBody bounds a request body.
const maxBody = 8 << 20

// Server is the simulated endpoint, an http.Handler for /v1/models,
// /v1/chat/completions and /v1/completions (SSE streaming), plus /sim/stats and
// /sim/reset.
type Server struct {
	cfg       Config
	modelJSON []byte // cfg.Model as a JSON string
	created   int64  // unix seconds, for "created" fields
	sched     *scheduler
	quit      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	ids       atomic.Uint64
	stats     *counters

	rngMu sync.Mutex
	rng   *rand.Rand // per-request draws: faults, answer length, text
}

// New returns a server running cfg's scheduler goroutine until Close. Zero settings get
// defaults (one slot, one token per event, 256 max tokens); invalid ones are clamped,
// so check Config.Validate first to report them.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	cfg.Jitter = min(max(cfg.Jitter, 0), 0.99)
	mj, _ := json.Marshal(cfg.Model)
	now := time.Now()
	s := &Server{
		cfg:       cfg,
		modelJSON: mj,
		created:   now.Unix(),
		quit:      make(chan struct{}),
		done:      make(chan struct{}),
		stats:     newCounters(now),
		rng:       rand.New(rand.NewPCG(uint64(cfg.Seed), 0xc0ffee)),
	}
	s.sched = newScheduler(cfg, s.quit)
	go s.sched.run(s.done)
	return s
}

// Config returns the server's configuration, defaults filled in.
func (s *Server) Config() Config { return s.cfg }

// Stats returns the server's own view of its traffic since start or the last ResetStats.
func (s *Server) Stats() Stats {
	st := s.stats.snapshot()
	st.Profile, st.Model = s.cfg.Name, s.cfg.Model
	st.Queue = int(s.sched.queueLen.Load())
	st.Active = int(s.sched.activeN.Load())
	return st
}

// ResetStats starts the counters and the TTFT histogram again.
func (s *Server) ResetStats() { s.stats.reset(time.Now()) }

// Close stops the scheduler and ends open streams: their handlers return without a
// finish_reason or [DONE]. Requests arriving afterwards get HTTP 503. Close does not
// wait for the handlers (the HTTP server owns them); it is idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.quit) })
	<-s.done
}

// ServeHTTP implements http.Handler. A dropped stream (DropRate) panics with
// http.ErrAbortHandler so that net/http cuts the connection; wrap the handler only in
// middleware that lets that panic through.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/chat/completions":
		s.completion(w, r, true)
	case "/v1/completions":
		s.completion(w, r, false)
	case "/v1/models":
		if !allow(w, r, http.MethodGet) {
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"object": "list",
			"data": []map[string]any{{
				"id": s.cfg.Model, "object": "model", "created": s.created,
				"owned_by": "tpsmon-sim", "root": s.cfg.Model, "parent": nil,
			}},
		})
	case "/metrics":
		s.serveMetrics(w, r)
	case "/sim/stats":
		if allow(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, s.Stats())
		}
	case "/sim/reset":
		if allow(w, r, http.MethodPost) {
			s.ResetStats()
			writeJSON(w, http.StatusOK, s.Stats())
		}
	default:
		writeError(w, http.StatusNotFound, "NotFoundError", "",
			fmt.Sprintf("no route %s on the tpsmon simulator; it serves /v1/models, /v1/chat/completions, /v1/completions, /metrics, /sim/stats and /sim/reset", r.URL.Path))
	}
}

// request is the part of a completion request the simulator reads.
type request struct {
	Model               string `json:"model"`
	Stream              bool   `json:"stream"`
	MaxTokens           *int   `json:"max_tokens"`
	MaxCompletionTokens *int   `json:"max_completion_tokens"`
	MinTokens           int    `json:"min_tokens"`
	IgnoreEOS           bool   `json:"ignore_eos"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Prompt json.RawMessage `json:"prompt"`
}

// plan is a request's drawn fate.
type plan struct {
	fail    bool   // answer HTTP 500
	target  int    // output tokens
	finish  string // "stop" or "length"
	dropAt  int    // cut the stream once this many tokens are sent (0 = never)
	stallAt int    // stall once after this many tokens (0 = never)
	base    int    // first word of the text
}

func (s *Server) draw(maxTokens, minTokens int, ignoreEOS bool) plan {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	c := &s.cfg
	p := plan{target: maxTokens, finish: "length", base: s.rng.IntN(len(words))}
	p.fail = c.ErrorRate > 0 && s.rng.Float64() < c.ErrorRate
	if lo := max(minTokens, 1); !ignoreEOS && lo < maxTokens && s.rng.Float64() < stopFraction {
		p.target = lo + s.rng.IntN(maxTokens-lo)
		p.finish = "stop"
	}
	if c.DropRate > 0 && s.rng.Float64() < c.DropRate {
		p.dropAt = 1 + s.rng.IntN(max(p.target-1, 1)) // in [1, target-1]; a 1-token answer is cut before its token
	}
	if c.StallRate > 0 && p.target >= 2 && s.rng.Float64() < c.StallRate {
		p.stallAt = 1 + s.rng.IntN(p.target-1)
	}
	return p
}

func (s *Server) completion(w http.ResponseWriter, r *http.Request, chat bool) {
	arrival := time.Now()
	if !allow(w, r, http.MethodPost) {
		return
	}
	s.stats.requests.Add(1)
	var req request
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "",
			"the request body is not valid JSON: "+err.Error())
		return
	}
	if req.Model != s.cfg.Model {
		s.fail(w, errHTTP404, http.StatusNotFound, "NotFoundError", "model",
			fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	}
	if !req.Stream {
		s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "stream",
			`the tpsmon simulator only simulates streaming: set "stream": true`)
		return
	}
	maxTokens := s.cfg.DefaultMaxTokens
	if req.MaxCompletionTokens != nil {
		maxTokens = *req.MaxCompletionTokens
	} else if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	if maxTokens < 1 {
		s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "max_tokens",
			fmt.Sprintf("max_tokens must be at least 1, got %d", maxTokens))
		return
	}
	var prompt int
	if chat {
		if len(req.Messages) == 0 {
			s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "messages",
				"messages is missing or empty: a chat completion needs at least one message")
			return
		}
		prompt = chatPromptTokens(req.Messages)
	} else {
		if len(req.Prompt) == 0 || string(req.Prompt) == "null" {
			s.fail(w, errHTTP400, http.StatusBadRequest, "BadRequestError", "prompt",
				"prompt is missing: a completion needs a prompt")
			return
		}
		prompt = textTokens(req.Prompt)
	}
	p := s.draw(maxTokens, req.MinTokens, req.IgnoreEOS)
	if p.fail {
		s.fail(w, errHTTP500, http.StatusInternalServerError, "InternalServerError", "",
			fmt.Sprintf("simulated server error (the %q profile fails %g of requests)", s.cfg.Name, s.cfg.ErrorRate))
		return
	}

	q := newSeq(prompt, p.target, p.stallAt)
	ctx := r.Context()
	select {
	case s.sched.submit <- q:
	case <-ctx.Done():
		s.stats.errs[errCanceled].Add(1)
		return
	case <-s.quit:
		writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "", "the tpsmon simulator is shutting down")
		return
	}
	select {
	case ok := <-q.verdict:
		if !ok {
			s.fail(w, errHTTP429, http.StatusTooManyRequests, "RateLimitError", "",
				fmt.Sprintf("the server is overloaded: more than %d requests are waiting; retry later", s.cfg.MaxQueue))
			return
		}
	case <-ctx.Done():
		q.gone.Store(true)
		s.stats.errs[errCanceled].Add(1)
		return
	case <-s.quit:
		writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "", "the tpsmon simulator is shutting down")
		return
	}
	s.stream(ctx, w, q, &p, chat, prompt, req.StreamOptions != nil && req.StreamOptions.IncludeUsage, arrival)
}

// stream writes an accepted request's SSE events as the scheduler publishes tokens.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, q *seq, p *plan, chat bool, prompt int, usage bool, arrival time.Time) {
	defer q.gone.Store(true)            // whatever happens, the scheduler may drop the sequence
	rc := http.NewResponseController(w) // flushes through wrapping middleware too
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f := newStreamFormat(chat, s.ids.Add(1)^uint64(s.cfg.Seed)<<40, time.Now().Unix(), s.modelJSON, p.base)
	buf := make([]byte, 0, 1024)
	if chat {
		buf = f.appendRole(buf)
	}
	if _, err := w.Write(buf); err != nil {
		return
	}
	_ = rc.Flush()
	k := s.cfg.TokensPerChunk
	reasoning := 0
	if chat {
		// At most half the answer thinks, so that a short max_tokens still shows an
		// answer (and a time to first answer token after the first token).
		reasoning = min(s.cfg.ReasoningTokens, p.target/2)
	}
	sent := 0
	for {
		select {
		case <-q.notify:
		case <-ctx.Done():
			s.stats.errs[errCanceled].Add(1)
			return
		case <-s.quit:
			return
		}
		gen := int(q.gen.Load())
		buf = buf[:0]
		from := sent
		drop := false
		for sent < gen {
			end := min((sent/k+1)*k, gen)
			if sent < reasoning && end > reasoning {
				end = reasoning
			}
			if p.dropAt > 0 && (sent >= p.dropAt || end == p.target) {
				drop = true
				break
			}
			finish := ""
			if end == p.target {
				finish = p.finish
			}
			buf = f.appendTokens(buf, sent, end, sent < reasoning, finish)
			sent = end
		}
		if p.dropAt > 0 && sent >= p.dropAt {
			drop = true
		}
		if sent == p.target {
			if usage {
				buf = f.appendUsage(buf, prompt, p.target)
			}
			buf = append(buf, doneEvent...)
		}
		if len(buf) > 0 {
			_, err := w.Write(buf)
			if err == nil {
				err = rc.Flush()
			}
			if err != nil {
				s.stats.errs[errCanceled].Add(1)
				return
			}
		}
		if sent > from {
			if from == 0 {
				s.stats.recordTTFT(time.Since(arrival))
			}
			s.stats.tokens.Add(int64(sent - from))
		}
		if drop {
			s.stats.errs[errDropped].Add(1)
			q.gone.Store(true)
			panic(http.ErrAbortHandler) // net/http closes the connection: the client sees a cut
		}
		if sent == p.target {
			s.stats.completed.Add(1)
			return
		}
	}
}

// fail writes an OpenAI-style error and counts it.
func (s *Server) fail(w http.ResponseWriter, kind errKind, status int, typ, param, msg string) {
	s.stats.errs[kind].Add(1)
	writeError(w, status, typ, param, msg)
}

// writeError writes an error body the way vLLM does:
// {"error":{"message":...,"type":...,"param":...,"code":status}}.
func writeError(w http.ResponseWriter, status int, typ, param, msg string) {
	var p any
	if param != "" {
		p = param
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": p, "code": status,
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// allow answers 405 unless r uses method.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	writeError(w, http.StatusMethodNotAllowed, "BadRequestError", "",
		fmt.Sprintf("%s %s is not supported; use %s", r.Method, r.URL.Path, method))
	return false
}

// chatTemplateTokens approximates the chat template's tokens around each message.
const chatTemplateTokens = 4

// chatPromptTokens estimates a chat prompt's tokens: about 4 characters of message text
// per token, plus the chat template around each message.
func chatPromptTokens(msgs []struct {
	Content json.RawMessage `json:"content"`
}) int {
	n := 0
	for _, m := range msgs {
		n += chatTemplateTokens + textTokens(m.Content)
	}
	return n
}

// textTokens estimates the tokens of a prompt or message content at about 4 characters
// per token. It accepts a string, a list of strings, a list of token ids (counted
// exactly), or a list of content parts ({"type":"text","text":...}).
func textTokens(raw json.RawMessage) int {
	chars := 0
	var str string
	var parts []json.RawMessage
	switch {
	case json.Unmarshal(raw, &str) == nil:
		chars = len(str)
	case json.Unmarshal(raw, &parts) == nil:
		for _, part := range parts {
			var id int
			var obj struct {
				Text string `json:"text"`
			}
			switch {
			case json.Unmarshal(part, &str) == nil:
				chars += len(str)
			case json.Unmarshal(part, &id) == nil:
				chars += 4 // one token id
			case json.Unmarshal(part, &obj) == nil:
				chars += len(obj.Text)
			}
		}
	}
	return max((chars+3)/4, 1)
}

// Instance is a simulator listening on a TCP address.
type Instance struct {
	URL    string // base URL ending in /v1, e.g. http://127.0.0.1:41234/v1
	Server *Server

	hs       *http.Server
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
	err      error
}

// Start listens on addr (default "127.0.0.1:0", a free port on the loopback interface)
// and serves cfg until ctx ends or Close. Any address is accepted: an addr such as
// ":8000" or "0.0.0.0:8000" (tpsmon sim --addr) opens the simulator to the network.
func Start(ctx context.Context, addr string, cfg Config) (*Instance, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("simulator: cannot listen on %s: %w (choose another --addr)", addr, err)
	}
	s := New(cfg)
	i := &Instance{
		URL:    baseURL(ln.Addr()),
		Server: s,
		hs: &http.Server{
			Handler:           s,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          log.New(io.Discard, "", 0), // never print under a TUI
		},
		stop: make(chan struct{}),
	}
	i.wg.Go(func() {
		if err := i.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			i.err = err
		}
	})
	i.wg.Go(func() {
		select {
		case <-ctx.Done():
			i.shutdown()
		case <-i.stop:
		}
	})
	return i, nil
}

// baseURL is the /v1 URL a local client uses to reach a listener: an unspecified host
// (":8000", "0.0.0.0:8000") is reached through 127.0.0.1.
func baseURL(a net.Addr) string {
	host := a.String()
	if tcp, ok := a.(*net.TCPAddr); ok && (tcp.IP == nil || tcp.IP.IsUnspecified()) {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	return "http://" + host + "/v1"
}

// shutdown ends the streams, then stops the HTTP server, waiting briefly for handlers.
func (i *Instance) shutdown() {
	i.stopOnce.Do(func() {
		close(i.stop)
		i.Server.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := i.hs.Shutdown(ctx); err != nil {
			_ = i.hs.Close()
		}
	})
}

// Close stops listening and closes the server. It is idempotent and returns once the
// server's goroutines have ended.
func (i *Instance) Close() error {
	i.shutdown()
	i.wg.Wait()
	return i.err
}
