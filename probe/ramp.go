package probe

import (
	"errors"
	"fmt"
	"github.com/tpsmon/tpsmon/model"
	"time"
)

// Ramp is an auto-ramp plan: hold each concurrency in Levels for Hold, in order.
type Ramp struct {
	Levels []int
	Hold   time.Duration
}

// DefaultRamp is 1,2,4,8,16,32,64 held 10 s each (the TUI's default).
var DefaultRamp = Ramp{Levels: []int{1, 2, 4, 8, 16, 32, 64}, Hold: 10 * time.Second}

// MaxWarmup is how long a level waits for its warm-up to end (see Walk) before its
// hold starts anyway: 3 x Hold.
func (r Ramp) MaxWarmup() time.Duration { return 3 * r.Hold }

// Walk is one endpoint's way through a Ramp. Each level is held for Hold counted from the
// moment it becomes steady: when no request sent at an earlier level is in flight any
// more (model.Segment.SteadyAt), so that every level gets a steady window of Hold however
// long the previous level's requests take. A level whose warm-up lasts longer than
// MaxWarmup starts its hold then. Walk is pure: every time comes in as an argument.
type Walk struct {
	ramp   Ramp
	index  int
	began  time.Time // when the current level began
	steady time.Time // when it became steady; zero while warming up
	done   bool
}

// Walk starts the plan at its first level at now. An empty plan is done at once.
func (r Ramp) Walk(now time.Time) *Walk {
	return &Walk{ramp: r, began: now, done: len(r.Levels) == 0}
}

// Level is the current level's index in Levels and its concurrency (the last level
// once done; -1 and 0 for an empty plan).
func (w *Walk) Level() (index, concurrency int) {
	if len(w.ramp.Levels) == 0 {
		return -1, 0
	}
	return w.index, w.ramp.Levels[w.index]
}

// Done reports whether every level has been held.
func (w *Walk) Done() bool { return w.done }

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
// segments, says that the open segment at the walk's concurrency has turned over.
func (w *Walk) Observe(seg *model.Segment) {
	if _, c := w.Level(); seg.Open && !seg.SteadyAt.IsZero() && seg.Concurrency == c {
		w.MarkSteady(seg.SteadyAt)
	}
}

// holdStart is when the current level's hold began, and whether it has.
func (w *Walk) holdStart(now time.Time) (time.Time, bool) {
	if !w.steady.IsZero() {
		return w.steady, true
	}
	if late := w.began.Add(w.ramp.MaxWarmup()); !now.Before(late) {
		return late, true
	}
	return time.Time{}, false
}

// Next moves to the next level when the current one has been held for Hold at now. It
// returns the concurrency to hold, whether it changed, and whether the walk is done (then
// the concurrency is the last level's and changed is false).
func (w *Walk) Next(now time.Time) (concurrency int, changed, done bool) {
	_, c := w.Level()
	if w.done {
		return c, false, true
	}
	from, ok := w.holdStart(now)
	if !ok || now.Sub(from) < w.ramp.Hold {
		return c, false, false
	}
	if w.index == len(w.ramp.Levels)-1 {
		w.done = true
		return c, false, true
	}
	w.index++
	w.began, w.steady = now, time.Time{}
	return w.ramp.Levels[w.index], true, false
}

// Left says how the current level stands at now: warming (its hold has not started) or
// the hold time left.
func (w *Walk) Left(now time.Time) (warming bool, left time.Duration) {
	from, ok := w.holdStart(now)
	if !ok {
		return true, w.ramp.Hold
	}
	return false, max(w.ramp.Hold-now.Sub(from), 0)
}

// Validate says what is wrong with the plan, in words for the --ramp and --hold flags:
// at least one level, every level at least 1 (levels need not increase), and Hold > 0.
func (r Ramp) Validate() error {
	var errs []error
	if len(r.Levels) == 0 {
		errs = append(errs, errors.New("ramp: no concurrency levels: give at least one, e.g. --ramp 1,2,4,8"))
	}
	for i, c := range r.Levels {
		if c < 1 {
			errs = append(errs, fmt.Errorf("ramp: level %d is %d: every concurrency must be at least 1, e.g. --ramp 1,2,4,8", i+1, c))
		}
	}
	if r.Hold <= 0 {
		errs = append(errs, fmt.Errorf("ramp: hold is %v: it must be positive, e.g. --hold 15s", r.Hold))
	}
	return errors.Join(errs...)
}
