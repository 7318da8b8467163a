package engine

import (
	"math"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// loopSwitcher is a Control that can switch between users and rate mode
// (*probe.Pool).
type loopSwitcher interface {
	SetOpenLoop(on bool, n int)
}

// ModeWindow is how far back a switch of mode (SwitchMode) reads the load an endpoint
// achieved.
const ModeWindow = 30 * time.Second

// modeAnswers is the fewest answers a switch of mode reads a request rate from: over
// fewer (a level steady for 2 s), one answer more or less moves the rate by half.
const modeAnswers = 10

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
	SeenLive                    // the newest seconds of the level, once steady (paused ones left out), with modeAnswers answers
	SeenLevel                   // the level's steady window (it is warming up again: an earlier visit), as many
	SeenLittle                  // the level's answers' mean length, by Little's law
	SeenRecent                  // the newest seconds whatever their level: nothing measured at From yet
)

// SwitchMode switches every endpoint to rate mode (on) or to users mode, each at the
// load it achieved at its current level over the last seconds (ModeWindow): to rate
// mode, the request rate its users achieved, rounded down (16 users at 7 s an answer:
// 2 requests/s, not 16); to users mode, the mean requests in flight at its rate,
// rounded. Whole numbers, at least 1. Seconds that hold too few answers give way to the
// level's steady window, then to its answers' mean length (Little's law), then to the
// newest seconds whatever their level. It reports the starts, and false (changing nothing) when an endpoint's
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
	bs := ep.book.Buckets(int(ModeWindow / time.Second))
	var live seen
	if seg.Open && !seg.SteadyAt.IsZero() && seg.Concurrency == st.From {
		live = seenSince(bs, seg.SteadyAt)
	}
	l, ok := ep.book.Level(st.From)
	switch {
	case live.enough(on):
		st.How, st.Over, st.Seen = SeenLive, live.over(), live.of(on)
	case ok && l.Duration > 0 && l.Steady >= modeAnswers:
		st.How, st.Over, st.Seen = SeenLevel, l.Duration.Round(time.Second), l.InFlight
		if on {
			st.Seen = l.RequestRate
		}
	case ok && l.E2E.Count > 0 && l.E2E.Mean > 0:
		st.How, st.Seen = SeenLittle, float64(st.From)*l.E2E.Mean/1000
		if on {
			st.Seen = float64(st.From) / (l.E2E.Mean / 1000)
		}
	default: // the level has just begun (m as a ramp steps up): the seconds before it
		if recent := seenSince(bs, time.Time{}); recent.secs >= 1 && (recent.finished > 0 || !on) {
			st.How, st.Over, st.Seen = SeenRecent, recent.over(), recent.of(on)
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
	e.noteSwitch(on)
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

// seen is what the live buckets read by a switch of mode add up to.
type seen struct{ secs, finished, inFlight float64 }

// seenSince adds up the unpaused buckets that began at or after since, newest first
// (every bucket when since is zero).
func seenSince(bs []model.Bucket, since time.Time) seen {
	var s seen
	for j := len(bs) - 1; j >= 0 && !bs[j].Start.Before(since); j-- {
		if b := &bs[j]; !b.Paused {
			s.secs += b.Width.Seconds()
			s.finished += float64(b.Finished)
			s.inFlight += float64(b.Active) * b.Width.Seconds()
		}
	}
	return s
}

// enough reports whether the seconds read tell the load well: to rate mode (on),
// modeAnswers answers ended in them; to users mode, 5 s of requests in flight.
func (s seen) enough(on bool) bool {
	if on {
		return s.secs >= 1 && s.finished >= modeAnswers
	}
	return s.secs >= 5
}

// of is the request rate achieved (on) or the mean requests in flight.
func (s seen) of(on bool) float64 {
	if on {
		return s.finished / s.secs
	}
	return s.inFlight / s.secs
}

// over is the length of the seconds read, to the second.
func (s seen) over() time.Duration {
	return time.Duration(s.secs * float64(time.Second)).Round(time.Second)
}
