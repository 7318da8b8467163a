package probe

import (
	"time"

	"github.com/tpsmon/tpsmon/probe/arrival"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// traceRun is a trace replayed on its schedule in rate mode: arrival i sends line i of
// src at at[i]. next is the first line not dispatched yet (under Pool.mu): a dispatcher
// started again after a pause goes on from it, its first line at once.
type traceRun struct {
	src  workload.Source
	at   []time.Duration
	next uint64
	base uint64 // the line of the running dispatcher's arrival 0
}

// WithTrace puts the pool in rate mode replaying a trace: request i is line i of src,
// sent at at[i] from the moment the load starts (at must not decrease), whatever the
// answers take, with at most maxConcurrency in flight (0: no cap). The target set by
// SetConcurrency labels the level (the trace's window) and does not change the pace;
// after the last line no request is sent. An arrival that leaves late says how late in
// its Sample (ClientWait). The pool's Streamer must be a CallStreamer.
func WithTrace(src workload.Source, at []time.Duration, maxConcurrency int) Option {
	return func(p *Pool) {
		WithOpenLoop(arrival.Constant, 1, maxConcurrency)(p)
		p.open.trace = &traceRun{src: src, at: at}
		p.arrivals.trace = p.open.trace
		p.rule.Continuous() // a window of a trace is a cut in time: the load goes on
	}
}

// TraceLeft is how many lines of the trace (WithTrace) are not dispatched yet; 0
// without a trace.
func (p *Pool) TraceLeft() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.arrivals.trace
	if t == nil {
		return 0
	}
	return len(t.at) - int(t.next)
}

// plan is the schedule of the lines not dispatched yet, counted from now, and whether
// any is left.
func (t *traceRun) plan() (*arrival.Times, bool) {
	if t.next >= uint64(len(t.at)) {
		return nil, false
	}
	t.base = t.next
	rest := make([]time.Duration, len(t.at)-int(t.next))
	for i := range rest {
		rest[i] = t.at[int(t.next)+i] - t.at[t.next]
	}
	return arrival.NewTimes(rest), true
}

// call is the request of the running dispatcher's arrival i, and marks it dispatched.
func (t *traceRun) call(i uint64) *Call {
	line := t.base + i
	t.next = max(t.next, line+1)
	return &Call{Req: t.src.Request(line)}
}
