package arrival

import (
	"context"
	"sync"
	"time"
)

// Clock is a Dispatcher's time source: SystemClock, or a fake in tests.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// SystemClock is the machine's clock.
var SystemClock Clock = systemClock{}

// Arrival is one request the dispatcher let go: when it was due and when it left, both
// counted from the start of Run. Wait is the time it spent on tpsmon's side (Left - Due,
// at least 0): it belongs to the client, never to TTFT (the request's t_send is taken
// after it). Capped says the concurrency cap was full when it was due: the cap, not the
// server, set the pace.
type Arrival struct {
	Index  uint64
	Due    time.Duration
	Left   time.Duration
	Wait   time.Duration
	Capped bool
}

// Dispatcher is rate mode's open loop: it lets requests go at the times a Schedule
// plans, whatever the answers take, with at most a given number in flight. An arrival
// that finds the cap full waits for a place, and that wait is reported in its Arrival.
// Run owns the schedule; SetRate may be called from any goroutine.
type Dispatcher struct {
	sched Plan
	clock Clock
	slots chan struct{} // a token per request in flight; nil = no cap

	mu      sync.Mutex
	pending float64 // the latest rate asked for by SetRate
	changed chan struct{}

	onFull func() // tests: called before waiting for a place under the cap
}

// NewDispatcher returns a dispatcher of s's arrivals (a Schedule, or the Times of a
// trace) with at most maxConcurrency requests in flight (0 = no cap), timed by clock
// (nil = SystemClock).
func NewDispatcher(s Plan, maxConcurrency int, clock Clock) *Dispatcher {
	if clock == nil {
		clock = SystemClock
	}
	d := &Dispatcher{sched: s, clock: clock, changed: make(chan struct{}, 1)}
	if maxConcurrency > 0 {
		d.slots = make(chan struct{}, maxConcurrency)
	}
	return d
}

// SetRate changes the rate from the next arrival not yet due on (safe from any
// goroutine; the latest call wins). It refuses what CheckRate refuses.
func (d *Dispatcher) SetRate(r float64) error {
	if err := CheckRate(r); err != nil {
		return err
	}
	d.mu.Lock()
	d.pending = r
	d.mu.Unlock()
	select {
	case d.changed <- struct{}{}:
	default:
	}
	return nil
}

// InFlight is how many requests hold a place under the cap (0 without a cap).
func (d *Dispatcher) InFlight() int { return len(d.slots) }

// Run dispatches arrivals until ctx ends (it returns ctx.Err()) or the schedule stops
// (nil). For each arrival it calls start from Run's goroutine: start must not block
// (run the request on its own goroutine) and must call done exactly once when the
// request has ended, to free its place under the cap.
func (d *Dispatcher) Run(ctx context.Context, start func(a Arrival, done func())) error {
	t0 := d.clock.Now()
	elapsed := func() time.Duration { return d.clock.Now().Sub(t0) }
	for hits := uint64(0); ; {
		select { // a rate change comes before any further arrival
		case <-d.changed:
			d.applyRate(elapsed())
		default:
		}
		wait, stop := d.sched.Pace(elapsed(), hits)
		if stop {
			return nil
		}
		if wait > 0 {
			var timer <-chan time.Time
			if wait != Never {
				timer = d.clock.After(wait)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-d.changed:
				d.applyRate(elapsed())
			case <-timer:
			}
			continue
		}
		due := d.sched.Due(hits)
		capped, err := d.acquire(ctx)
		if err != nil {
			return err
		}
		left := elapsed()
		start(Arrival{Index: hits, Due: due, Left: left, Wait: max(left-due, 0), Capped: capped}, d.release())
		hits++
	}
}

// applyRate gives the schedule the latest rate SetRate was asked for.
func (d *Dispatcher) applyRate(at time.Duration) {
	d.mu.Lock()
	r := d.pending
	d.mu.Unlock()
	_ = d.sched.SetRate(r, at) // checked by SetRate
}

// acquire takes a place under the cap, waiting when it is full (capped).
func (d *Dispatcher) acquire(ctx context.Context) (capped bool, err error) {
	if d.slots == nil {
		return false, nil
	}
	select {
	case d.slots <- struct{}{}:
		return false, nil
	default:
	}
	if d.onFull != nil {
		d.onFull()
	}
	select {
	case d.slots <- struct{}{}:
		return true, nil
	case <-ctx.Done():
		return true, ctx.Err()
	}
}

// release returns the done function of one request: it frees its place once.
func (d *Dispatcher) release() func() {
	if d.slots == nil {
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(func() { <-d.slots }) }
}
