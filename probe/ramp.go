package probe

import "time"

// Ramp is an auto-ramp plan: hold each concurrency in Levels for Hold, in order.
type Ramp struct {
	Levels []int
	Hold   time.Duration
}

// DefaultRamp is 1,2,4,8,16,32,64 held 10 s each (the TUI's default).
var DefaultRamp = Ramp{Levels: []int{1, 2, 4, 8, 16, 32, 64}, Hold: 10 * time.Second}

// At returns the concurrency to hold at elapsed time since the ramp started, its index in
// Levels, and done = true once every level has been held for Hold.
func (r Ramp) At(elapsed time.Duration) (concurrency, index int, done bool) {
	panic("not implemented")
}
