// Package sim is tpsmon's built-in simulated endpoint: an OpenAI-compatible server that
// behaves like a continuous-batching GPU server (slots, a FIFO queue, decode steps that
// slow down as more sequences share them, prefill that stalls everyone), so that the
// degradation curve it produces is real. Implemented in the sim worktree.
package sim

import (
	"context"
	"net/http"
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
	ReasoningTokens   int // the first N output tokens are sent as delta.reasoning (0 = none)
	DefaultMaxTokens  int // when a request sets no max_tokens
}

// Server is the simulated endpoint, an http.Handler for /v1/models,
// /v1/chat/completions and /v1/completions (SSE streaming), plus /sim/stats.
type Server struct{}

// New returns a server running cfg's scheduler until Close.
func New(cfg Config) *Server { panic("not implemented") }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { panic("not implemented") }

// Close stops the scheduler and ends open streams.
func (s *Server) Close() { panic("not implemented") }

// Instance is a simulator listening on a TCP address.
type Instance struct {
	URL    string // base URL ending in /v1, e.g. http://127.0.0.1:41234/v1
	Server *Server
}

// Start listens on addr (default "127.0.0.1:0") and serves cfg until ctx ends or Close.
func Start(ctx context.Context, addr string, cfg Config) (*Instance, error) {
	panic("not implemented")
}

// Close stops listening and closes the server.
func (i *Instance) Close() error { panic("not implemented") }
