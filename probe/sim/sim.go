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
// The service around the model can fail too (faults.go, outage.go, background.go):
// AuthKey wants a bearer key on every /v1 route (HTTP 401 without it, as vLLM's
// --api-key); Refuse answers every completion request with one HTTP status; RetryAfter
// puts a Retry-After header on HTTP 429s; StreamErrorRate ends streams mid-way with an
// in-band error event; BufferAnswers holds each answer until it is complete, as a
// buffering proxy does; ProxyLimit puts a proxy in front that lets that many requests
// through at a time (the others wait where /metrics cannot see them); OtherUsers is
// another client keeping streams busy; DownAfter and DownFor take the whole server down
// (Start only: connections cut, then refused) and back.
//
// With PrefixCacheTokens, a prompt's leading blocks already seen skip prefill (see
// prefix.go); usage still reports the whole prompt, and /metrics publishes vLLM's
// prefix-cache counters.
//
// Beside chat and completions, the simulator serves Anthropic's Messages API
// (/v1/messages, wire_messages.go) and OpenAI's Responses API (/v1/responses,
// wire_responses.go) over the same scheduler, as llama.cpp's server and vLLM do.
//
// GET /sim/stats reports the server's own counts and TTFT (arrival to the flush of the
// first token-bearing event); POST /sim/reset starts them again.
package sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
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
	PrefixCacheTokens int // prompt tokens the prefix cache holds; cached leading blocks skip prefill (0 = no cache; prefix.go)
	// CloseAfterStream (Start only) closes the connection after every streamed answer
	// while advertising keep-alive, as llama.cpp's llama-server does (closeafter.go).
	CloseAfterStream bool

	// Faults of the service around the model (faults.go, outage.go, background.go).
	// AuthKey: every request without "Authorization: Bearer AuthKey" gets HTTP 401, as
	// vLLM's --api-key does (/v1/models included). Refuse: every completion request is
	// answered with this HTTP status (401, 403, 404, 429, 500, 503, ...) while /v1/models
	// still answers (0 = never). RetryAfter: HTTP 429 answers carry a Retry-After header
	// of this many seconds, rounded up (0 = none). StreamErrorRate: the fraction of
	// streams that end mid-way with an in-band error event (HTTP 200, then
	// data: {"error":...}, then [DONE]), as vLLM does when its engine fails.
	AuthKey         string
	Refuse          int
	RetryAfter      time.Duration
	StreamErrorRate float64
	// BufferAnswers holds each answer, headers included, until it is complete and then
	// sends it at once, as a buffering proxy in front of a server does.
	BufferAnswers bool
	// ProxyLimit puts a proxy in front that passes at most this many completion requests
	// at a time; the others wait in the proxy, where the server's /metrics cannot see
	// them (0 = no proxy).
	ProxyLimit int
	// OtherUsers is another client of the server: it keeps this many streams decoding
	// (their tokens count in /metrics, they take slots and KV cache) that no client of
	// the simulator receives (0 = none).
	OtherUsers int
	// DownAfter and DownFor (Start only): the server stops listening DownAfter after it
	// started (open connections are cut, new ones refused) and listens again on the same
	// address DownFor later (DownFor 0: it stays down). DownAfter 0: never down.
	DownAfter, DownFor time.Duration
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
		{"kv_tokens", float64(c.KVTokens)}, {"prefix_cache_tokens", float64(c.PrefixCacheTokens)},
		{"retry_after", float64(c.RetryAfter)}, {"proxy_limit", float64(c.ProxyLimit)},
		{"other_users", float64(c.OtherUsers)}, {"down_after", float64(c.DownAfter)}, {"down_for", float64(c.DownFor)},
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
	}{{"error_rate", c.ErrorRate}, {"drop_rate", c.DropRate}, {"stall_rate", c.StallRate}, {"stream_error_rate", c.StreamErrorRate}} {
		if f.v < 0 || f.v > 1 {
			return fmt.Errorf("simulator: %s is %v; it must be a fraction between 0 and 1", f.name, f.v)
		}
	}
	if c.Refuse != 0 && (c.Refuse < 400 || c.Refuse > 599) {
		return fmt.Errorf("simulator: refuse is %d; it must be an HTTP error status from 400 to 599 (0: never)", c.Refuse)
	}
	return nil
}

// Owner is the owned_by of the simulator's models in its GET /v1/models: a client
// that finds it knows its numbers are simulated, whatever the URL.
const Owner = "tpsmon-sim"

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
	cache     *prefixCache  // nil when off
	proxy     chan struct{} // the places of the proxy in front (Config.ProxyLimit); nil when none
	others    *otherClient  // Config.OtherUsers' streams; nil when none

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
		cache:     newPrefixCache(cfg.PrefixCacheTokens),
		rng:       rand.New(rand.NewPCG(uint64(cfg.Seed), 0xc0ffee)),
	}
	if cfg.ProxyLimit > 0 {
		s.proxy = make(chan struct{}, cfg.ProxyLimit)
	}
	s.sched = newScheduler(cfg, s.quit)
	go s.sched.run(s.done)
	s.others = startOtherClient(s, cfg.OtherUsers)
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
	s.others.wait()
}

// ServeHTTP implements http.Handler. A dropped stream (DropRate) panics with
// http.ErrAbortHandler so that net/http cuts the connection; wrap the handler only in
// middleware that lets that panic through.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/v1/") && !s.authorized(w, r) {
		return
	}
	switch r.URL.Path {
	case "/v1/chat/completions", "/v1/completions", "/v1/messages", "/v1/responses":
		if s.cfg.Refuse != 0 {
			s.refuse(w)
			return
		}
		leave, ok := s.throughProxy(r)
		if !ok {
			return
		}
		defer leave()
		s.completion(w, r, pathAPI[r.URL.Path])
	case "/v1/models":
		if !allow(w, r, http.MethodGet) {
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"object": "list",
			"data": []map[string]any{{
				"id": s.cfg.Model, "object": "model", "created": s.created,
				"owned_by": Owner, "root": s.cfg.Model, "parent": nil,
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
			fmt.Sprintf("no route %s on the tpsmon simulator; it serves /v1/models, /v1/chat/completions, /v1/completions, /v1/messages, /v1/responses, /metrics, /sim/stats and /sim/reset", r.URL.Path))
	}
}
