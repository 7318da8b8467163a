// Package run is tpsmon's one run engine: it owns the endpoints' pools, their level books
// (one model.Tracker per endpoint), the ramp walk and its stop rules, the drain and the
// end-of-run report. The live screen and `tpsmon bench` are two views of it: both feed it
// pool events (Handle) and move it on with a clock (Step), from one goroutine.
package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
)

// Ramp is an auto-ramp plan: its levels in order, each held by the level rule (see Walk).
type Ramp struct {
	Levels  []int
	Hold    time.Duration // steady time a level needs at least
	MaxHold time.Duration // the longest a level is held, from its start; 0 means DefaultMaxHold(Hold)
	// Fixed puts the walk on a fixed schedule: level i lasts exactly Hold, from the walk's
	// start + i x Hold, whatever its requests (shards on several machines cannot agree
	// on the level rule). MaxHold does not apply; a level that ends with fewer steady
	// requests than the rule's minimum is short.
	Fixed bool
}

// DefaultRamp is 1,2,4,8,16,32,64 held 10 s each (the live screen's default).
var DefaultRamp = Ramp{Levels: []int{1, 2, 4, 8, 16, 32, 64}, Hold: 10 * time.Second}

// DefaultMaxHold is the maximum hold when none is given: 120 s or 4 x hold, whichever is larger.
func DefaultMaxHold(hold time.Duration) time.Duration { return max(120*time.Second, 4*hold) }

// MaxHoldOr is r.MaxHold, or DefaultMaxHold(r.Hold) when it is zero.
func (r Ramp) MaxHoldOr() time.Duration {
	if r.MaxHold > 0 {
		return r.MaxHold
	}
	return DefaultMaxHold(r.Hold)
}

// The run settings a *client.FieldError from this package can name (beside the client's own
// Endpoint fields). cmd maps them to its flags and config keys.
const (
	FieldRamp        = "ramp"
	FieldHold        = "hold"
	FieldMaxHold     = "max_hold"
	FieldSettle      = "settle"
	FieldMaxDuration = "max_duration"
	FieldEndpoints   = "endpoints"
	FieldTraceSpeed  = "trace_speed"
	FieldTraceWindow = "trace_window"
)

// fieldErr is a *client.FieldError: the setting by its field, never by a flag.
func fieldErr(field, value, problem string) error {
	return &client.FieldError{Field: field, Value: value, Problem: problem}
}

// Validate says what is wrong with the plan: at least one level, every level at least 1
// (levels need not increase), Hold > 0, MaxHold 0 or at least Hold. The errors are
// *client.FieldError, joined.
func (r Ramp) Validate() error {
	var errs []error
	if len(r.Levels) == 0 {
		errs = append(errs, fieldErr(FieldRamp, "", "no levels: give at least one number of users"))
	}
	for i, c := range r.Levels {
		if c < 1 {
			errs = append(errs, fieldErr(FieldRamp, "", fmt.Sprintf("level %d is %d: every level must be at least 1 user", i+1, c)))
		}
	}
	if r.Hold <= 0 {
		errs = append(errs, fieldErr(FieldHold, r.Hold.String(), "the hold must be positive"))
	}
	if r.MaxHold < 0 || (r.MaxHold > 0 && r.MaxHold < r.Hold) {
		errs = append(errs, fieldErr(FieldMaxHold, r.MaxHold.String(), fmt.Sprintf("the maximum hold must be at least the hold (%v)", r.Hold)))
	}
	return errors.Join(errs...)
}

// Walk is one endpoint's way through a Ramp, by the level rule: a level is held until it
// has at least model MinSteady(users) steady completed requests and at least Hold of
// steady time (counted from the moment it became steady, model.Segment.SteadyAt),
// whichever comes later, but no longer than MaxHold counted from the level's start. A
// level that reached MaxHold first is short. Walk is pure: every time and count comes
// in as an argument.
type Walk struct {
	ramp    Ramp
	index   int
	began   time.Time // when the current level began
	steady  time.Time // when it became steady; zero while warming up
	base    int       // steady requests its row already had when it began (a level held twice)
	done    bool
	lastEnd LevelEnd            // how the previous level ended
	need    func(users int) int // the steady requests a level needs; nil means MinSteady
}

// LevelEnd is how a level of a walk ended.
type LevelEnd struct {
	Users int
	Short bool // it reached the maximum hold before the rule was met
}

// Walk starts the plan at its first level at now. An empty plan is done at once.
func (r Ramp) Walk(now time.Time) *Walk {
	return &Walk{ramp: r, began: now, done: len(r.Levels) == 0}
}

// Level is the current level's index in Levels and its users (the last level once done;
// -1 and 0 for an empty plan).
func (w *Walk) Level() (index, users int) {
	if len(w.ramp.Levels) == 0 {
		return -1, 0
	}
	return w.index, w.ramp.Levels[w.index]
}

// Done reports whether every level has been held.
func (w *Walk) Done() bool { return w.done }

// Rebase sets how many steady requests the current level's row held when the level
// began (they were measured at an earlier visit of the same users, or were cleared).
func (w *Walk) Rebase(steady int) { w.base = steady }

// MarkSteady records that the current level became steady at at (a time before the level
// began counts as its beginning). Only the first mark of a level counts.
func (w *Walk) MarkSteady(at time.Time) {
	if w.done || !w.steady.IsZero() {
		return
	}
	if at.Before(w.began) {
		at = w.began
	}
	w.steady = at
}

// Observe marks the current level steady when seg, a state of the walking endpoint's
// segments, says that the open segment at the walk's users has turned over.
func (w *Walk) Observe(seg *model.Segment) {
	if _, c := w.Level(); seg.Open && !seg.SteadyAt.IsZero() && seg.Concurrency == c {
		w.MarkSteady(seg.SteadyAt)
	}
}

// LevelProgress is how the current level of a walk stands.
type LevelProgress struct {
	Index, Levels, Users int
	Warming              bool          // not steady yet: its hold has not started
	Steady, Need         int           // steady completed requests so far, and the rule's minimum
	Left                 time.Duration // steady time still to hold (0 once held); Fixed: time left
	MaxLeft              time.Duration // time left before the maximum hold ends the level
	Fixed                bool          // the level ends on a fixed schedule (Ramp.Fixed)
}

// Progress says how the current level stands at now, given the steady completed requests
// its row counts now.
func (w *Walk) Progress(now time.Time, steady int) LevelProgress {
	idx, c := w.Level()
	p := LevelProgress{Index: idx, Levels: len(w.ramp.Levels), Users: c, Need: w.needOf(c),
		Steady: max(steady-w.base, 0), Warming: w.steady.IsZero(), Left: w.ramp.Hold,
		MaxLeft: max(w.ramp.MaxHoldOr()-now.Sub(w.began), 0), Fixed: w.ramp.Fixed}
	if p.Fixed {
		p.Left = max(w.ramp.Hold-now.Sub(w.began), 0)
		p.MaxLeft = p.Left
	} else if !p.Warming {
		p.Left = max(w.ramp.Hold-now.Sub(w.steady), 0)
	}
	return p
}

// Next moves to the next level when the current one is held by the rule at now, given
// the steady completed requests its row counts now. It returns the users to hold,
// whether they changed, and whether the walk is done (then the users are the last
// level's and changed is false). LastEnd says how the level that just ended ended.
func (w *Walk) Next(now time.Time, steady int) (users int, changed, done bool) {
	_, c := w.Level()
	if w.done {
		return c, false, true
	}
	p := w.Progress(now, steady)
	held := !p.Warming && p.Left == 0 && p.Steady >= p.Need
	next := now
	if w.ramp.Fixed {
		end, _ := w.Ends()
		if now.Before(end) {
			return c, false, false
		}
		held, next = p.Steady >= p.Need, end // the next level begins on the schedule, not late
	} else if !held && p.MaxLeft > 0 {
		return c, false, false
	}
	w.lastEnd = LevelEnd{Users: c, Short: !held}
	if w.index == len(w.ramp.Levels)-1 {
		w.done = true
		return c, false, true
	}
	w.index++
	w.began, w.steady, w.base = next, time.Time{}, 0
	return w.ramp.Levels[w.index], true, false
}

// LastEnd is how the latest level that ended ended (zero before any did).
func (w *Walk) LastEnd() LevelEnd { return w.lastEnd }

// Ends is when the current level ends on a fixed schedule; ok is false when the walk
// is not on one (Ramp.Fixed) or is done.
func (w *Walk) Ends() (at time.Time, ok bool) {
	if !w.ramp.Fixed || w.done {
		return time.Time{}, false
	}
	return w.began.Add(w.ramp.Hold), true
}

// needOf is the steady requests a level of users needs.
func (w *Walk) needOf(users int) int {
	if w.need != nil {
		return w.need(users)
	}
	return MinSteady(users)
}
