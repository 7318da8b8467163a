package engine

import (
	"net/url"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// StartRamp starts the ramp at now on the endpoints targets (resuming paused ones), each
// at the first level. Each endpoint walks on its own.
func (e *Engine) StartRamp(targets []int, now time.Time) {
	if e.trace != nil {
		e.trace("start", nil, now)
	}
	e.clock(now)
	for _, i := range targets {
		ep := e.eps[i]
		w := e.cfg.Ramp.Walk(now)
		w.need = e.need
		if ep.ctl.Paused() {
			ep.ctl.Resume()
		}
		_, c := w.Level()
		e.hold(ep, c)
		w.Rebase(steadyOf(ep.book, c))
		ep.walk, ep.end, ep.stop, ep.refined, ep.byHand, ep.probes = w, RampEnd{}, nil, 0, false, nil
		ep.rampRate = e.rate
		clear(ep.warned)
	}
}

// StopRamp ends the ramp on every endpoint: each holds the level it is at. It reports
// whether the ramp was running.
func (e *Engine) StopRamp() bool { return e.endRamps(EndUser) }

// endRamps ends the ramp on every endpoint it drives, as kind: each holds the level it
// is at. It reports whether the ramp was running.
func (e *Engine) endRamps(kind EndKind) bool {
	was := false
	for _, ep := range e.eps {
		if ep.walk != nil {
			_, c := ep.walk.Level()
			ep.walk, ep.end = nil, RampEnd{Kind: kind, Users: c}
			was = true
		}
	}
	return was
}

// Interrupt ends the ramp on every endpoint as interrupted (Ctrl-C, a signal, or the
// user quitting the screen mid-ramp): each holds the level it is at. It reports whether
// the ramp was running.
func (e *Engine) Interrupt() bool {
	e.stopped = true
	return e.endRamps(EndInterrupt)
}

// Interrupted reports whether the run was interrupted (Interrupt): the time series
// says so on its lines from then on, and replay judges the run as interrupted.
func (e *Engine) Interrupted() bool { return e.stopped }

// SetUsers sets endpoint i's users (clamped to 0..Room(i)). A manual change stops the
// ramp (on every endpoint) when it drives i; the result says so.
func (e *Engine) SetUsers(i, n int) (stoppedRamp bool) {
	if e.eps[i].walk != nil {
		stoppedRamp = e.StopRamp()
	}
	e.eps[i].ctl.SetConcurrency(min(max(n, 0), e.Room(i)))
	return stoppedRamp
}

// MaxStreams is the most users the run holds, all endpoints together: Config.MaxStreams,
// at most MaxUsers.
func (e *Engine) MaxStreams() int {
	if n := e.cfg.MaxStreams; n > 0 && n < MaxUsers {
		return n
	}
	return MaxUsers
}

// Room is the most users endpoint i can have with the other endpoints' users as they
// are: MaxStreams less theirs.
func (e *Engine) Room(i int) int {
	n := e.MaxStreams()
	for j, ep := range e.eps {
		if j != i {
			n -= ep.ctl.Concurrency()
		}
	}
	return max(n, 0)
}

// Pause pauses endpoint i (in-flight requests finish, no new ones). A paused endpoint
// sends nothing, so a ramp that drives it would walk its levels unloaded: it stops the
// ramp (on every endpoint) then, and says so.
func (e *Engine) Pause(i int) (stoppedRamp bool) {
	if e.eps[i].walk != nil {
		stoppedRamp = e.StopRamp()
	}
	e.eps[i].ctl.Pause()
	return stoppedRamp
}

// Resume resumes endpoint i at its users.
func (e *Engine) Resume(i int) { e.eps[i].ctl.Resume() }

// Reset forgets every endpoint's levels of both modes, curve, errors and live series at
// now (the screen's `c`); a ramp in progress counts its current level's requests from
// now. How an earlier ramp ended is forgotten with the levels it was about.
func (e *Engine) Reset(now time.Time) {
	for _, ep := range e.eps {
		ep.book.Reset(now)
		ep.server.reset()
		clear(ep.short)
		if ep.walk != nil {
			ep.walk.Rebase(0)
		} else {
			ep.end = RampEnd{}
		}
	}
}

// Stop ends the ramp and stops every pool: no new requests; in-flight ones finish.
func (e *Engine) Stop() {
	e.StopRamp()
	for _, ep := range e.eps {
		ep.ctl.Stop()
	}
}

// Cut stops every pool and cancels the requests in flight (they end as canceled). An
// engine built by New only stops its controls.
func (e *Engine) Cut() {
	e.done = true
	e.Stop()
	if e.fleet != nil {
		e.fleet.Cut()
	}
}

// Len is the number of endpoints.
func (e *Engine) Len() int { return len(e.eps) }

// Info names endpoint i for screens and reports (its URL without secrets).
func (e *Engine) Info(i int) model.EndpointInfo { return e.eps[i].info }

// BaseURL is endpoint i's configured base URL (it may hold a secret: never show it whole).
func (e *Engine) BaseURL(i int) string { return e.eps[i].ep.BaseURL }

// Host is the host[:port] of endpoint i's base URL, as the screen's header shows it
// ("?" for a URL without one: never echo such a URL, it may hold a secret).
func (e *Engine) Host(i int) string {
	u, err := url.Parse(e.eps[i].ep.BaseURL)
	if err != nil || u.Host == "" {
		return "?"
	}
	return u.Host
}

// Book is endpoint i's level book and live series.
func (e *Engine) Book(i int) Book { return e.eps[i].book }

// Control is endpoint i's load control (read its users, activity and pause state).
func (e *Engine) Control(i int) Control { return e.eps[i].ctl }

// SLO is the capacity criteria of the run.
func (e *Engine) SLO() model.SLO { return e.cfg.SLO }

// Ramp is the run's ramp plan.
func (e *Engine) Ramp() Ramp { return e.cfg.Ramp }

// Ramping reports whether the ramp drives any endpoint.
func (e *Engine) Ramping() bool {
	for _, ep := range e.eps {
		if ep.walk != nil {
			return true
		}
	}
	return false
}

// Walking reports whether the ramp drives endpoint i.
func (e *Engine) Walking(i int) bool { return e.eps[i].walk != nil }

// Status is how endpoint i's current ramp level stands at now; ok is false when the ramp
// does not drive it.
func (e *Engine) Status(i int, now time.Time) (p LevelProgress, ok bool) {
	ep := e.eps[i]
	if ep.walk == nil {
		return LevelProgress{}, false
	}
	_, c := ep.walk.Level()
	return ep.walk.Progress(now, e.levelState(row(ep.book, c), ep.walk)), true
}

// End is how endpoint i's latest ramp ended.
func (e *Engine) End(i int) RampEnd { return e.eps[i].end }

// Short reports whether endpoint i's level at users reached the maximum hold first.
func (e *Engine) Short(i, users int) bool { return e.eps[i].short[users] }

// MaxDuration is the run's maximum duration (0: none).
func (e *Engine) MaxDuration() time.Duration { return e.cfg.MaxDuration }

// Over reports whether the run's maximum duration ended it.
func (e *Engine) Over() bool { return e.over }
