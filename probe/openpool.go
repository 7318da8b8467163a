package probe

import (
	"context"

	"github.com/tpsmon/tpsmon/probe/arrival"
)

// openLoop is a pool's rate mode: its target is an arrival rate in requests/s, and a
// dispatcher (probe/arrival) starts each request when its arrival is due, whatever the
// answers take, with at most maxConc in flight (0: no cap).
type openLoop struct {
	kind    arrival.Kind
	seed    uint64
	maxConc int

	disp   *arrival.Dispatcher // the running dispatcher; nil while none runs
	cancel context.CancelFunc  // ends it
	trace  *traceRun           // a trace replayed on its schedule (WithTrace); nil: a rate
}

// WithOpenLoop puts the pool in rate mode (open loop): SetConcurrency(n) then asks for
// n arrivals per second, spaced by kind (Poisson gaps drawn from seed, or constant),
// with at most maxConcurrency requests in flight (0: no cap). An arrival that finds the
// cap full waits on tpsmon's side; its Sample says how long (ClientWait, Capped), and
// its t_send (so its TTFT) comes after that wait. Levels are keyed by the rate.
func WithOpenLoop(kind arrival.Kind, seed uint64, maxConcurrency int) Option {
	return func(p *Pool) {
		WithArrivals(kind, seed, maxConcurrency)(p)
		p.open = &openLoop{kind: kind, seed: seed, maxConc: p.arrivals.maxConc}
	}
}

// WithArrivals sets how rate mode paces arrivals when SetOpenLoop turns it on later
// (without it: Poisson, seed 1, no cap), without turning it on.
func WithArrivals(kind arrival.Kind, seed uint64, maxConcurrency int) Option {
	return func(p *Pool) {
		p.arrivals = openLoop{kind: kind, seed: seed, maxConc: max(maxConcurrency, 0), trace: p.arrivals.trace}
	}
}

// SetOpenLoop switches the pool between rate mode (on: n is an arrival rate in
// requests/s) and the closed loop (off: n is users), at n. Requests in flight finish
// (none is canceled); closed-loop workers end after their current request; the
// dispatcher of rate mode stops at once. The switch opens a new segment.
func (p *Pool) SetOpenLoop(on bool, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on == (p.open != nil) {
		p.mu.Unlock()
		p.SetConcurrency(n)
		p.mu.Lock()
		return
	}
	if p.open != nil && p.open.cancel != nil {
		p.open.cancel()
	}
	p.open = nil
	if on {
		o := p.arrivals
		p.open = &o
	}
	p.target = max(n, 0)
	p.label = p.target
	if p.running && !p.stopped && !p.paused {
		p.beginLocked(p.target > 0, Mono())
		p.spawnLocked()
	}
}

// OpenLoop reports whether the pool is in rate mode (WithOpenLoop).
func (p *Pool) OpenLoop() bool { return p.open != nil }

// steerLocked starts, retunes or ends the dispatcher after a change of target, pause
// or stop (called by beginLocked).
func (p *Pool) steerLocked() {
	o := p.open
	if !p.running || p.stopped || p.paused || p.target <= 0 || p.ctx.Err() != nil {
		if o.cancel != nil {
			o.cancel()
		}
		o.disp, o.cancel = nil, nil
		return
	}
	if o.disp != nil {
		_ = o.disp.SetRate(float64(p.target)) // a positive int: CheckRate accepts it
		return
	}
	var sched arrival.Plan = arrival.New(o.kind, float64(p.target), o.seed^(p.openGen+1))
	if o.trace != nil {
		times, left := o.trace.plan()
		if !left {
			return // the trace is over
		}
		sched = times
	}
	p.openGen++
	o.disp = arrival.NewDispatcher(sched, o.maxConc, nil)
	ctx, cancel := context.WithCancel(p.ctx)
	o.cancel = cancel
	p.openRunning++
	p.wg.Add(1)
	go p.dispatch(ctx, o.disp, p.openGen)
}

// dispatch runs one dispatcher until it is ended (it counts in openRunning meanwhile, as each request does).
func (p *Pool) dispatch(ctx context.Context, d *arrival.Dispatcher, gen uint64) {
	defer p.wg.Done()
	_ = d.Run(ctx, func(a arrival.Arrival, done func()) { p.arrive(gen, a, done) })
	p.mu.Lock()
	p.openRunning--
	p.checkDoneLocked()
	p.mu.Unlock()
}

// arrive starts the request of one arrival on its own goroutine, unless the dispatcher
// that let it go has been ended since.
func (p *Pool) arrive(gen uint64, a arrival.Arrival, done func()) {
	p.mu.Lock()
	if p.stopped || p.paused || p.open == nil || p.openGen != gen || p.ctx.Err() != nil {
		p.mu.Unlock()
		done()
		return
	}
	ctx := p.ctx
	p.openRunning++
	p.wg.Add(1)
	var call *Call
	if p.open.trace != nil {
		call = p.open.trace.call(a.Index)
	}
	f := p.sendLocked()
	p.mu.Unlock()
	go p.openRequest(ctx, f, a, done, call)
}

// openRequest streams one arrival's request and reports its Sample.
func (p *Pool) openRequest(ctx context.Context, f *flight, a arrival.Arrival, done func(), call *Call) {
	defer p.wg.Done()
	f.sample = p.streamOne(ctx, &f.prog, call)
	done()

	p.mu.Lock()
	p.endLocked(f)
	p.mu.Unlock()

	s := &f.sample
	s.Endpoint, s.Segment, s.Concurrency, s.Warmup = p.endpoint, f.segment, f.concurrency, f.warmup
	s.OpenLoop, s.ClientWait, s.Capped = true, a.Wait, a.Capped
	p.emitMu.Lock()
	p.emitSegments()
	p.out <- Event{Endpoint: p.endpoint, Sample: s}
	p.emitMu.Unlock()

	p.mu.Lock()
	p.openRunning--
	p.checkDoneLocked()
	p.mu.Unlock()
}
