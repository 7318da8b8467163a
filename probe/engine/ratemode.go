package engine

import (
	"math"
	"time"
)

// loopSwitcher is a Control that can switch between users and rate mode
// (*probe.Pool).
type loopSwitcher interface {
	SetOpenLoop(on bool, n int)
}

// ModeWindow is how far back a switch of mode (SwitchMode) reads the load an endpoint
// achieved.
const ModeWindow = 30 * time.Second

// RateMode reports whether the engine's levels are arrival rates (rate mode).
func (e *Engine) RateMode() bool { return e.rate }

// SetRateMode switches every endpoint to rate mode (on: n arrivals per second) or to
// users mode (n users). See SwitchMode, which starts each endpoint at the load it
// achieved. It reports false, and changes nothing, when an endpoint's control cannot
// switch.
func (e *Engine) SetRateMode(on bool, n int, _ time.Time) bool {
	return e.setRateMode(on, func(int) int { return n })
}

// ModeStart is where an endpoint starts after a switch of mode, and why.
type ModeStart struct {
	N    int // the rate (requests/s) or the users it starts at: at least 1
	From int // the users (or the rate) it held before
	// Seen is what the load achieved: its request rate (to rate mode) or its mean
	// requests in flight (to users mode), read as How says, over Over (SeenLive and
	// SeenLevel).
	Seen float64
	Over time.Duration
	How  SeenFrom
}

// SeenFrom is where a switch of mode read the load achieved.
type SeenFrom int

// Where ModeStart.Seen comes from, the best first.
const (
	SeenNothing SeenFrom = iota // nothing measured at From: N is 1
	SeenLive                    // the newest seconds of the level, once steady (paused ones left out)
	SeenLevel                   // the level's steady window (it is warming up again: an earlier visit)
	SeenLittle                  // the level's answers' mean length, by Little's law
)

// SwitchMode switches every endpoint to rate mode (on) or to users mode, each at the
// load it achieved at its current level over the last seconds (ModeWindow): to rate
// mode, the request rate its users achieved, rounded down (16 users at 7 s an answer:
// 2 requests/s, not 16); to users mode, the mean requests in flight at its rate,
// rounded. Whole numbers, at least 1. It reports the starts, and false (changing nothing) when an endpoint's
// control cannot switch or the engine is in that mode already.
func (e *Engine) SwitchMode(on bool) ([]ModeStart, bool) {
	if on == e.rate {
		return nil, false
	}
	starts := make([]ModeStart, len(e.eps))
	for i := range e.eps {
		starts[i] = e.startIn(i, on)
	}
	if !e.setRateMode(on, func(i int) int { return starts[i].N }) {
		return nil, false
	}
	return starts, true
}

// startIn is where endpoint i starts in the other mode (on: rate mode): see SwitchMode.
// The live seconds read are those since the level's segment became steady: before, the
// answers of the level before it still end.
func (e *Engine) startIn(i int, on bool) ModeStart {
	ep := e.eps[i]
	st := ModeStart{From: ep.ctl.Concurrency()}
	seg := ep.server.seg // the pool's newest segment
	var secs, finished, inFlight float64
	if seg.Open && !seg.SteadyAt.IsZero() && seg.Concurrency == st.From {
		bs := ep.book.Buckets(int(ModeWindow / time.Second))
		for j := len(bs) - 1; j >= 0 && !bs[j].Start.Before(seg.SteadyAt); j-- {
			if b := &bs[j]; !b.Paused {
				secs += b.Width.Seconds()
				finished += float64(b.Finished)
				inFlight += float64(b.Active) * b.Width.Seconds()
			}
		}
	}
	l, ok := ep.book.Level(st.From)
	switch {
	case secs >= 1 && (finished > 0 || !on):
		st.How, st.Over = SeenLive, time.Duration(secs*float64(time.Second)).Round(time.Second)
		st.Seen = inFlight / secs
		if on {
			st.Seen = finished / secs
		}
	case ok && l.Duration > 0 && l.Steady > 0:
		st.How, st.Over, st.Seen = SeenLevel, l.Duration.Round(time.Second), l.InFlight
		if on {
			st.Seen = l.RequestRate
		}
	case ok && l.E2E.Count > 0 && l.E2E.Mean > 0:
		st.How, st.Seen = SeenLittle, float64(st.From)*l.E2E.Mean/1000
		if on {
			st.Seen = float64(st.From) / (l.E2E.Mean / 1000)
		}
	}
	n := math.Round(st.Seen) // users: a closed loop holds its own pace
	if on {
		// A rate above what the users achieved would queue more than the server answers,
		// without end: rounded down (a twentieth of a request/s is measurement noise).
		n = math.Floor(st.Seen + 0.05)
	}
	st.N = min(max(int(n), 1), MaxUsers)
	return st
}

// setRateMode switches every endpoint to rate mode (on) or users mode, endpoint i at
// n(i). A switch stops the ramp; the levels of each mode are kept apart (users levels and
// rate levels are not the same axis): the books read the new mode's levels (a curve of
// its own), and Reports keeps both. The ramp then walks the mode's own levels
// (Config.RateLevels in rate mode).
func (e *Engine) setRateMode(on bool, n func(i int) int) bool {
	for _, ep := range e.eps {
		if _, ok := ep.ctl.(loopSwitcher); !ok {
			return false
		}
	}
	if on == e.rate {
		return true
	}
	e.StopRamp()
	if e.rate {
		e.rateLevels = e.cfg.Ramp.Levels
		e.cfg.Ramp.Levels = e.userLevels
	} else {
		e.userLevels = e.cfg.Ramp.Levels
		e.cfg.Ramp.Levels = e.rateLevels
	}
	e.rate = on
	for i, ep := range e.eps {
		ep.ctl.(loopSwitcher).SetOpenLoop(on, min(max(n(i), 0), MaxUsers))
		ep.book.SetRateMode(on)
		clear(ep.short)
		clear(ep.warned)
	}
	return true
}

// initRate sets the engine's mode from its config: rate mode when OpenLoop is set.
// The levels of the other mode wait in userLevels or rateLevels.
func (e *Engine) initRate() {
	e.rate = e.cfg.OpenLoop != nil
	other := e.cfg.RateLevels
	if len(other) == 0 {
		other = DefaultRamp.Levels
	}
	if e.rate {
		e.userLevels = DefaultRamp.Levels
	} else {
		e.rateLevels = other
	}
}
