package engine

import (
	"context"
	"errors"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

// MaxDrain bounds the whole drain of a bench (see Config.Drain), for servers that stream
// past max_tokens for ever.
const MaxDrain = 15 * time.Minute

// rampStep is how often Run moves the ramp on (Step).
const rampStep = 100 * time.Millisecond

// Result is a finished (or interrupted) bench.
type Result struct {
	Report   *model.Report
	Outcomes []Outcome // one per endpoint, in order
	Ramps    []RampEnd // how each endpoint's ramp ended
	Notices  []Notice  // what Step announced, in order (level changes left out)
	Over     bool      // the run's maximum duration ended it
	// Late is how long after Config.StartAt this run started (0: on time, or no StartAt):
	// its first level was that much shorter than the other shards'.
	Late time.Duration
}

// ErrNoFleet is Run on an engine that New built: Run needs the pools Start builds.
var ErrNoFleet = errors.New("run: the engine has no pools of its own (build it with Start)")

// Run is bench: every endpoint walks the ramp at the same time, each level held by the
// level rule; an endpoint whose ramp ends (finished, or a stop rule unless FullRamp)
// goes to 0 users while the others go on. After the ramp, in-flight requests finish
// (cut once quiet for Drain) and the report is built. When ctx is canceled (Ctrl-C) it
// cuts the requests in flight and still returns the report of what was measured, with
// Interrupted set; when MaxDuration is over it does the same. progress, when set, is
// called at every level change, live tick and drain step; it must not block for long.
func (e *Engine) Run(ctx context.Context, progress func(Progress)) (*Result, error) {
	if e.fleet == nil {
		return nil, ErrNoFleet
	}
	e.cfg.Settle = 0
	b := &bench{e: e, events: e.fleet.Events(), server: e.ServerUpdates(), progress: progress}
	start, late, ok, err := e.begin(ctx)
	if err != nil {
		return nil, err
	}
	all := make([]int, len(e.eps))
	for i := range all {
		all[i] = i
	}
	interrupted := !ok // Ctrl-C while waiting for the start time: nothing measured
	if ok {
		e.StartRamp(all, start)
		b.late = late
		for i := range e.eps {
			b.report(i, true, time.Now())
		}
		interrupted = b.walk(ctx)
	}
	interrupted = b.drain(ctx, interrupted) || interrupted
	// A last look once every request ended: failures of the run's final second (a stop
	// rule can end a level between two looks) are named, not left unexplained.
	e.diagAt = time.Time{}
	for _, n := range e.stepServer(time.Now()) {
		b.note(n)
	}
	e.done = true
	for _, n := range e.stoppedNotices() {
		b.note(n)
	}
	res := &Result{Report: e.Report(interrupted), Notices: b.notices, Over: e.over, Late: late}
	for i, ep := range e.eps {
		end := ep.end
		if interrupted && end.Kind == NotEnded {
			end.Kind = EndInterrupt
		}
		res.Ramps = append(res.Ramps, end)
		res.Outcomes = append(res.Outcomes, e.Outcome(i))
	}
	return res, nil
}

// bench is the state of Run's loop (one goroutine).
type bench struct {
	e        *Engine
	events   <-chan probe.Event
	server   <-chan ServerUpdate // the scrapers' reports (nil: none)
	progress func(Progress)
	notices  []Notice
	draining bool
	since    time.Time     // when the drain began
	late     time.Duration // how late the ramp started (the first level change says so)
	edgeT    *time.Timer   // fires when a fixed schedule changes level
	edgeAt   time.Time
}

// walk runs the ramp until every endpoint's ramp ended; true when ctx ended it.
func (b *bench) walk(ctx context.Context) (interrupted bool) {
	step := time.NewTicker(rampStep)
	defer step.Stop()
	defer func() {
		if b.edgeT != nil {
			b.edgeT.Stop()
		}
	}()
	for b.e.Ramping() {
		select {
		case ev, ok := <-b.events:
			if !ok {
				b.events = nil // every pool ended early (should not happen)
				return false
			}
			b.handle(ev)
		case u, ok := <-b.server:
			b.handleServer(u, ok)
		case now := <-step.C:
			b.step(now)
		case now := <-b.edge():
			b.step(now)
		case <-ctx.Done():
			b.e.Interrupt()
			b.e.Say("interrupted (Ctrl-C or a signal): the ramp ended and the requests in flight were canceled; the results cover what was measured until then", true)
			for _, ep := range b.e.eps {
				ep.ctl.SetConcurrency(0)
			}
			return true
		}
	}
	return false
}

// step moves the ramp on at now and reports what it did.
func (b *bench) step(now time.Time) {
	for _, n := range b.e.Step(now) {
		if b.note(n) {
			continue
		}
		if n.Kind == LevelStarted {
			b.report(n.Endpoint, true, now)
			continue
		}
		if n.Kind == RampStopped && b.e.Ramping() {
			b.report(n.Endpoint, true, now) // the others go on: say why this one ended
		}
		b.notices = append(b.notices, n)
	}
}

// edge is a channel that fires when a fixed schedule changes level (nil when none
// does), so that shards change level at the same moment, not at their next step.
func (b *bench) edge() <-chan time.Time {
	at, ok := b.e.nextChange()
	switch {
	case !ok:
		return nil
	case b.edgeT == nil:
		b.edgeT = time.NewTimer(time.Until(at))
	case !at.Equal(b.edgeAt):
		b.edgeT.Reset(time.Until(at))
	}
	b.edgeAt = at
	return b.edgeT.C
}

func (b *bench) handle(ev probe.Event) {
	b.e.Handle(ev)
	if ev.Tick != nil {
		b.report(ev.Endpoint, false, time.Now())
	}
}

// drain lets in-flight requests finish (or cuts them when interrupted or over) and
// reads every event until the pools ended; true when ctx ended it.
func (b *bench) drain(ctx context.Context, interrupted bool) bool {
	e, fleet := b.e, b.e.fleet
	drain := e.drainBound()
	if interrupted || e.over {
		fleet.Cut()
	} else {
		fleet.Stop()
		b.draining, b.since = true, time.Now()
		for i := range e.eps {
			b.report(i, true, b.since)
		}
	}
	bound := time.NewTimer(drain)
	defer bound.Stop()
	left := e.timeLeft(time.Now())
	hardCap := time.NewTimer(min(MaxDrain, left))
	defer hardCap.Stop()
	done, cut := ctx.Done(), false
	for b.events != nil {
		select {
		case ev, ok := <-b.events:
			if !ok {
				b.events = nil
				continue
			}
			b.handle(ev)
			if ev.Tick != nil && ev.Tick.Chunks > 0 && !cut {
				bound.Reset(drain) // tokens still flow: the drain is not quiet
			}
		case u, ok := <-b.server:
			b.handleServer(u, ok)
		case <-bound.C:
			cut = true
			fleet.Cut() // in-flight requests past the bound end as canceled
		case <-hardCap.C:
			cut = true
			fleet.Cut()
			if left < MaxDrain && !e.over {
				e.over = true // the maximum duration ended the drain: the run was cut
				b.notices = append(b.notices, Notice{Kind: MaxDuration, Endpoint: -1, After: e.cfg.MaxDuration})
			}
		case <-done:
			done, interrupted = nil, true
			fleet.Cut()
		}
	}
	return interrupted
}

// drainBound is Config.Drain, or the longest endpoint timeout plus 5 s.
func (e *Engine) drainBound() time.Duration {
	if e.cfg.Drain > 0 {
		return e.cfg.Drain
	}
	longest := time.Duration(0)
	for _, ep := range e.eps {
		t := ep.ep.Timeout
		if t <= 0 {
			t = 60 * time.Second
		}
		longest = max(longest, t)
	}
	return longest + 5*time.Second
}

// timeLeft is the time left before MaxDuration at now (MaxDrain when there is no bound).
func (e *Engine) timeLeft(now time.Time) time.Duration {
	if e.cfg.MaxDuration <= 0 || e.t0.IsZero() {
		return MaxDrain
	}
	return max(e.cfg.MaxDuration-now.Sub(e.t0), 0)
}
