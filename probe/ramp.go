package probe

import (
	"errors"
	"fmt"
	"time"
)

// Ramp is an auto-ramp plan: hold each concurrency in Levels for Hold, in order.
type Ramp struct {
	Levels []int
	Hold   time.Duration
}

// DefaultRamp is 1,2,4,8,16,32,64 held 10 s each (the TUI's default).
var DefaultRamp = Ramp{Levels: []int{1, 2, 4, 8, 16, 32, 64}, Hold: 10 * time.Second}

// At returns the concurrency to hold at elapsed time since the ramp started, its index in
// Levels, and done = true once every level has been held for Hold. Level i is held over
// [i*Hold, (i+1)*Hold); a negative elapsed time is the first level. Once done it keeps
// returning the last level. An empty plan, or one with Hold <= 0, is done at once (with
// concurrency 0 and index -1 when empty); Validate rejects both.
func (r Ramp) At(elapsed time.Duration) (concurrency, index int, done bool) {
	n := len(r.Levels)
	if n == 0 {
		return 0, -1, true
	}
	if r.Hold <= 0 {
		return r.Levels[n-1], n - 1, true
	}
	if elapsed < 0 {
		elapsed = 0
	}
	i := elapsed / r.Hold
	if i >= time.Duration(n) {
		return r.Levels[n-1], n - 1, true
	}
	return r.Levels[i], int(i), false
}

// Duration is the whole plan's length: len(Levels) * Hold.
func (r Ramp) Duration() time.Duration { return time.Duration(len(r.Levels)) * r.Hold }

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
