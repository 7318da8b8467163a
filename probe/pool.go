package probe

import (
	"context"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// Event is what a pool reports: exactly one of Sample, Tick or Segment is set.
type Event struct {
	Endpoint int
	Sample   *model.Sample
	Tick     *model.Tick
	Segment  *model.Segment
}

// Option configures a Pool.
type Option func(*Pool)

// WithTickEvery sets the live bucket width (default 1 s).
func WithTickEvery(d time.Duration) Option { panic("not implemented") }

// WithOutput makes the pool send its events on ch (shared by several pools) instead of
// a channel of its own; the pool never closes a channel it did not make.
func WithOutput(ch chan Event) Option { panic("not implemented") }

// Pool is a closed-loop worker pool for one endpoint: each worker sends a request, reads
// the whole stream, and sends the next. Implemented in the pool worktree.
type Pool struct {
	// implemented in the pool worktree
}

// NewPool returns a stopped pool of concurrency 0 for the endpoint with index endpoint.
func NewPool(endpoint int, s Streamer, opts ...Option) *Pool { panic("not implemented") }

// Run starts the collector and returns the event channel, closed once Stop (or ctx)
// has ended every worker and the final segment and tick were sent.
func (p *Pool) Run(ctx context.Context) <-chan Event { panic("not implemented") }

// SetConcurrency sets the target number of concurrent streams. Growing starts workers at
// once; shrinking lets surplus workers finish their current request (never cancels it).
// A change opens a new segment (level).
func (p *Pool) SetConcurrency(n int) { panic("not implemented") }

// Concurrency is the target concurrency.
func (p *Pool) Concurrency() int { panic("not implemented") }

// Active is the number of requests in flight.
func (p *Pool) Active() int { panic("not implemented") }

// Pause stops sending new requests (in-flight ones finish) and closes the segment.
func (p *Pool) Pause() { panic("not implemented") }

// Resume sends again at the target concurrency, in a new segment.
func (p *Pool) Resume() { panic("not implemented") }

// Paused reports whether the pool is paused.
func (p *Pool) Paused() bool { panic("not implemented") }

// Stop ends the run: no new requests; in-flight requests finish (cancel ctx to cut them).
// It is idempotent and does not block; the event channel closes when all is over.
func (p *Pool) Stop() { panic("not implemented") }
