package probe

import "time"

// Option configures a Pool.
type Option func(*Pool)

// WithTickEvery sets the live bucket width (default 1 s). Non-positive values are ignored.
func WithTickEvery(d time.Duration) Option {
	return func(p *Pool) {
		if d > 0 {
			p.tickEvery = d
		}
	}
}

// WithOutput makes the pool send its events on ch (shared by several pools) instead of
// a channel of its own; the pool never closes a channel it did not make. Use Done to
// learn when such a pool has finished. A nil ch is ignored.
func WithOutput(ch chan Event) Option {
	return func(p *Pool) {
		if ch != nil {
			p.out, p.ownOut = ch, false
		}
	}
}

// withTicks replaces the collector's ticker by c (tests drive ticks by hand).
func withTicks(c <-chan time.Time) Option { return func(p *Pool) { p.ticks = c } }
