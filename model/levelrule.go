package model

import "time"

// LevelRule applies the warm-up rule to one endpoint's requests. The pool calls it,
// under its own lock, once when a request is sent and once when it ends (never per
// token). See Segment for the rule itself.
type LevelRule struct {
	// implemented in the pool worktree
}

// NewLevelRule returns a rule with no open segment (paused, concurrency 0).
func NewLevelRule(endpoint int) *LevelRule { panic("not implemented") }

// Begin closes the open segment (if any) at now and opens a new one at concurrency c.
// c == 0 (or a pause) closes without opening: pass open=false. It returns the closed
// segment (ok false when none was open) and the opened one.
func (r *LevelRule) Begin(c int, open bool, now time.Time) (closed Segment, hadClosed bool, opened Segment) {
	panic("not implemented")
}

// Send registers a request sent at now and says which segment it belongs to and whether
// it is warm-up (a request of an earlier segment is still in flight).
func (r *LevelRule) Send(now time.Time) (segment, concurrency int, warmup bool) {
	panic("not implemented")
}

// Done registers the end of a request of the given segment; when that makes the open
// segment steady it sets SteadyAt = now and returns true.
func (r *LevelRule) Done(segment int, now time.Time) (becameSteady bool) { panic("not implemented") }

// AddChunks adds token-bearing events delivered up to now to the open segment's
// steady total (the pool calls it at each tick, level change and steady transition
// with the chunks delivered since its previous call).
func (r *LevelRule) AddChunks(n int64, now time.Time) { panic("not implemented") }

// Current returns the open segment (End = now, Open = true), ok false when none is open.
func (r *LevelRule) Current(now time.Time) (seg Segment, ok bool) { panic("not implemented") }
