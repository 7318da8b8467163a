// Package run is tpsmon's one run engine: it owns the endpoints' pools, their level books
// (one model.Tracker per endpoint), the ramp walk and its stop rules, the drain and the
// end-of-run report. The live screen and `tpsmon bench` are two views of it: both feed it
// pool events (Handle) and move it on with a clock (Step), from one goroutine.
package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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

// MinFloor is the sequential level rule's floor of steady requests: 8, the fewest whose
// median has a two-sided interval at the rule's look confidence (model.LookConfidence,
// 99%: the smallest and the largest of 8 requests hold the median with probability
// 1 - 2/256). Below it no per-user figure can be known to ±5%, whatever the requests
// show. Config.MinRequests raises it. It is model.MinFloor: the judgement reads a level
// with fewer as not measured in full.
const MinFloor = model.MinFloor

// Walk is one endpoint's way through a Ramp by the sequential level rule. A level is
// held until, after its warm-up, it has at least its floor of steady requests and Hold of
// steady time (counted from model.Segment.SteadyAt), its curve figures (per-user p50,
// aggregate tok/s) are known to ±5% (model.CurvePrecision), and its criteria are
// settled at 95% (model.LevelCall.Waiting): exploring (the ramp's levels and the
// bisection), until no criterion whose figure fails its target is undecided;
// confirming (the capacity's level), until every criterion is decided but a share of
// requests whose figure meets its target. It ends earlier at MaxHold counted from its
// start: short when its warm-up, floor or hold were not met, else undecided when a
// criterion was (naming it); a curve figure still not known to ±5% is said, not marked
// (the level's interval shows it). On a fixed schedule (Ramp.Fixed) a level lasts exactly Hold and is short
// with fewer steady requests than its need.
//
// Once its levels are walked, a Walk is done; Extend gives it one more level (the
// capacity's refinement, see refine.go). Walk is pure: every time and count comes in as
// an argument.
type Walk struct {
	ramp    Ramp
	levels  []int // the ramp's levels, then those Extend added
	listLen int   // how many of levels are the ramp's (the others are the refinement's)
	index   int
	began   time.Time // when the current level began
	steady  time.Time // when it became steady; zero while warming up
	base    int       // steady requests its row already had when it began (a level held twice)
	done    bool
	lastEnd LevelEnd            // how the previous level ended
	need    func(users int) int // the steady requests a level needs; nil means MinFloor
	confirm bool                // the current level is the capacity's, being confirmed
	lo, hi  int                 // Extend: the meeting and failing levels the current level lies between
}

// LevelEnd is how a level of a walk ended.
type LevelEnd struct {
	Users int
	Short bool // it reached the maximum hold before its floor, hold or curve were met
	// Undecided names the criteria (SLO terms) still undecided when it reached the
	// maximum hold with its floor, hold and curve met.
	Undecided []string
	Missing   []string // Short: what it lacked, in words ("0 of 8 steady requests", "its hold not over")
	Confirm   bool     // it was the capacity's level, being confirmed
	// Imprecise names the curve figures not known to ±5% when it reached the maximum
	// hold with its floor and hold met ("per-user p50", "aggregate tok/s"): its criteria
	// may still be decided (it decides the capacity then); its intervals say how well
	// those figures are known.
	Imprecise []string
	// Fails names, for a confirmation that reached the maximum hold (Confirm, Short or
	// Undecided), the criteria the level's figures fail as measured then ("errors 1.67%
	// > 1%"): its first hold met them, the two holds together do not, so it is not the
	// capacity (the judgement reads the level as they left it).
	Fails []string
}

// confirmEnd says what a confirmation that reached the maximum hold leaves: the level
// as measured, the capacity still, or no longer when its figures now fail a criterion.
func (e LevelEnd) confirmEnd() string {
	if len(e.Fails) > 0 {
		return "not confirmed, and its figures now fail (" + strings.Join(e.Fails, "; ") + "): it is not the capacity"
	}
	return "not confirmed, its first hold stands"
}

// LevelState is how the current level's row stands, as the engine reads it.
type LevelState struct {
	Steady int             // steady completed requests the row counts (every visit)
	Call   model.LevelCall // its criteria and curve at 95% (model.SLO.Call)
	Rate   float64         // its steady requests per second (model.LevelStats.RequestRate)
	More   int             // more steady requests its criteria and curve need (model.SLO.MoreRequests)
	MoreOK bool            // More is known
}

// Walk starts the plan at its first level at now. An empty plan is done at once.
func (r Ramp) Walk(now time.Time) *Walk {
	return &Walk{ramp: r, levels: slices.Clone(r.Levels), listLen: len(r.Levels), began: now, done: len(r.Levels) == 0}
}

// Level is the current level's index and its users (the last level once done; -1 and
// 0 for an empty plan).
func (w *Walk) Level() (index, users int) {
	if len(w.levels) == 0 {
		return -1, 0
	}
	return w.index, w.levels[w.index]
}

// Done reports whether the walk has no level to hold.
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
	Steady, Need         int           // steady completed requests so far, and the rule's floor
	Left                 time.Duration // steady time still to hold (0 once held); Fixed: time left
	MaxLeft              time.Duration // time left before the maximum hold ends the level
	Fixed                bool          // the level ends on a fixed schedule (Ramp.Fixed)

	Held    bool     // the rule is met: the level ends at the next step
	Curve   []string // curve figures not yet known to ±5% ("per-user p50", "aggregate tok/s")
	Waiting []string // criteria (SLO terms) the rule waits for, undecided at 95%
	// More is the steady requests the level still needs for its floor, curve and
	// criteria, if what it shows stays what it is; -1 when unknown (a figure on its
	// target, or nothing measured yet).
	More int
	// ETA estimates the time left from the observed request rate and the hold left;
	// -1 when unknown (warming up, no request rate yet, More unknown).
	ETA     time.Duration
	Confirm bool // the level is the capacity's, being confirmed
	Refined bool // Extend added it: Lo and Hi are the levels it lies between
	Lo, Hi  int
}

// Progress says how the current level stands at now, given its row's state.
func (w *Walk) Progress(now time.Time, st LevelState) LevelProgress {
	idx, c := w.Level()
	p := LevelProgress{Index: idx, Levels: len(w.ramp.Levels), Users: c, Need: w.needOf(c),
		Steady: max(st.Steady-w.base, 0), Warming: w.steady.IsZero(), Left: w.ramp.Hold,
		MaxLeft: max(w.ramp.MaxHoldOr()-now.Sub(w.began), 0), Fixed: w.ramp.Fixed,
		Confirm: w.confirm, Refined: idx >= w.listLen, Lo: w.lo, Hi: w.hi, More: -1, ETA: -1}
	if p.Fixed {
		p.Left = max(w.ramp.Hold-now.Sub(w.began), 0)
		p.MaxLeft = p.Left
		p.Held = p.Steady >= p.Need
		return p
	}
	if !p.Warming {
		p.Left = max(w.ramp.Hold-now.Sub(w.steady), 0)
	}
	p.Curve = st.Call.Curve
	p.Waiting = model.Terms(st.Call.Waiting(w.confirm))
	p.Held = !p.Warming && p.Left == 0 && p.Steady >= p.Need && len(p.Curve) == 0 && len(p.Waiting) == 0
	if st.MoreOK || (len(p.Curve) == 0 && len(p.Waiting) == 0) {
		p.More = max(p.Need-p.Steady, 0)
		if st.MoreOK {
			p.More = max(p.More, st.More)
		}
	}
	if !p.Warming && p.More >= 0 && (p.More == 0 || st.Rate > 0) {
		p.ETA = p.Left
		if p.More > 0 {
			p.ETA = max(p.ETA, time.Duration(float64(p.More)/st.Rate*float64(time.Second)))
		}
	}
	return p
}

// Next moves to the next level when the current one is held by the rule at now, given
// its row's state. It returns the users to hold, whether they changed, and whether the
// walk is done (then the users are the last level's and changed is false). LastEnd says
// how the level that just ended ended.
func (w *Walk) Next(now time.Time, st LevelState) (users int, changed, done bool) {
	_, c := w.Level()
	if w.done {
		return c, false, true
	}
	p := w.Progress(now, st)
	next := now
	if w.ramp.Fixed {
		end, _ := w.Ends()
		if now.Before(end) {
			return c, false, false
		}
		next = end // the next level begins on the schedule, not late
	} else if !p.Held && p.MaxLeft > 0 {
		return c, false, false
	}
	w.lastEnd = endOf(p)
	if w.index == len(w.levels)-1 {
		w.done = true
		return c, false, true
	}
	w.index++
	w.began, w.steady, w.base, w.confirm = next, time.Time{}, 0, false
	return w.levels[w.index], true, false
}

// endOf is how a level that stands as p ends.
func endOf(p LevelProgress) LevelEnd {
	end := LevelEnd{Users: p.Users, Confirm: p.Confirm}
	if p.Held {
		return end
	}
	if p.Warming {
		end.Missing = append(end.Missing, "its warm-up not over")
	}
	if p.Steady < p.Need {
		end.Missing = append(end.Missing, fmt.Sprintf("%d of %d steady requests", p.Steady, p.Need))
	}
	if p.Left > 0 && !p.Warming {
		end.Missing = append(end.Missing, "its hold not over")
	}
	end.Short = len(end.Missing) > 0
	if !end.Short {
		end.Undecided = p.Waiting
		end.Imprecise = p.Curve
	}
	return end
}

// Finish ends the current level now and the walk with it, as held (a stop rule tripped
// at it: it fails, whatever its figures); Extend may go on.
func (w *Walk) Finish() {
	_, c := w.Level()
	w.lastEnd, w.done = LevelEnd{Users: c, Confirm: w.confirm}, true
}

// Extend gives a walk that is done one more level at now: users, between the meeting
// level lo and the failing level hi (0 when none), confirming when confirm is set (the
// capacity's level). When users is the level just held, it goes on without a new
// warm-up: its hold and floor stay met, its maximum hold starts again.
func (w *Walk) Extend(users, lo, hi int, confirm bool, now time.Time) {
	_, c := w.Level()
	same := len(w.levels) > 0 && users == c
	w.levels = append(w.levels, users)
	w.index = len(w.levels) - 1
	w.done, w.confirm, w.lo, w.hi = false, confirm, lo, hi
	w.began = now
	if !same {
		w.steady, w.base = time.Time{}, 0
	}
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
	return MinFloor
}
