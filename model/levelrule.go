package model

import "time"

// LevelRule applies the warm-up rule to one endpoint's requests. The pool calls it,
// under its own lock, once when a request is sent and once when it ends (never per
// token), at every concurrency change, pause and resume, and with the count of chunks
// delivered so far at each tick and at the steady transition. See Segment for the rule.
//
// LevelRule is pure bookkeeping: it reads no clock (every time is an argument) and is
// not safe for concurrent use.
//
// Steady chunks are accounted from a cumulative counter that the caller owns: the
// number of token-bearing events delivered by all of the endpoint's streams since the
// run began (finished streams plus the live counts of the streams in flight). The rule
// remembers that total at the steady moment (its base) and reports SteadyChunks as the
// latest total minus the base, so chunks are never counted twice nor lost between calls.
type LevelRule struct {
	endpoint int
	lastID   int // ID of the newest segment ever opened (IDs start at 1)

	open bool
	cur  Segment

	inflight    int // requests in flight, all segments
	curInflight int // of those, requests sent in the open segment

	needBase bool  // steady, but no delivered total seen since SteadyAt
	base     int64 // delivered total at SteadyAt

	openLoop   bool // the segments opened now are arrival rates (SetOpenLoop)
	continuous bool // Continuous: a level after a steady one is steady at once
}

// SetOpenLoop says whether the segments Begin opens from now on are arrival rates (rate
// mode: Segment.OpenLoop) or users. The open segment keeps its mode.
func (r *LevelRule) SetOpenLoop(on bool) { r.openLoop = on }

// Continuous makes the rule treat a change of level as a cut in time, not a change of
// load: a segment opened right after a steady one is steady at once (a trace's windows:
// the load goes on as recorded, and no population turns over). The first segment, and
// one opened after a pause, still warm up.
func (r *LevelRule) Continuous() { r.continuous = true }

// NewLevelRule returns a rule with no open segment (paused, concurrency 0).
func NewLevelRule(endpoint int) *LevelRule { return &LevelRule{endpoint: endpoint} }

// Begin closes the open segment (if any) at now and, when open is true and c > 0,
// opens a new one at concurrency c. A pause, a stop or a concurrency of 0 passes
// open=false: it closes without opening. delivered is the caller's cumulative count of
// delivered chunks at now: it completes the closed segment's SteadyChunks and is the
// new segment's base when it is steady at once (nothing of an earlier segment in flight).
//
// It returns the closed segment (hadClosed false when none was open) and the opened one
// (opened.Open false when none was opened).
func (r *LevelRule) Begin(c int, open bool, delivered int64, now time.Time) (closed Segment, hadClosed bool, opened Segment) {
	wasSteady := false
	if r.open {
		r.account(delivered)
		wasSteady = !r.cur.SteadyAt.IsZero()
		closed = r.cur
		closed.End = now
		closed.Open = false
		hadClosed = true
		r.open = false
		r.needBase = false
	}
	if !open || c <= 0 {
		return closed, hadClosed, Segment{}
	}
	r.lastID++
	r.open = true
	r.curInflight = 0
	r.cur = Segment{Endpoint: r.endpoint, ID: r.lastID, Concurrency: c, Start: now, End: now, Open: true}
	if r.inflight == 0 || (r.continuous && wasSteady) {
		r.steady(delivered, now)
	}
	r.cur.OpenLoop = r.openLoop
	return closed, hadClosed, r.cur
}

// Send registers a request sent at now and says which segment it belongs to and whether
// it is warm-up (sent while a request of an earlier segment is still in flight). With no
// open segment (the pool is paused or at concurrency 0, which the pool never sends in)
// it returns segment 0 and warm-up, so that the request stays out of every level.
func (r *LevelRule) Send(now time.Time) (segment, concurrency int, warmup bool) {
	r.inflight++
	if !r.open {
		return 0, 0, true
	}
	r.curInflight++
	return r.cur.ID, r.cur.Concurrency, r.cur.SteadyAt.IsZero()
}

// Done registers the end, at now, of a request sent in the given segment. When that
// makes the open segment steady (no request of an earlier segment in flight any more)
// it sets SteadyAt = now and returns true; the caller must then call Delivered with its
// cumulative delivered count at now, which becomes the base of SteadyChunks.
func (r *LevelRule) Done(segment int, now time.Time) (becameSteady bool) {
	if r.inflight > 0 {
		r.inflight--
	}
	if !r.open {
		return false
	}
	if segment == r.cur.ID && r.curInflight > 0 {
		r.curInflight--
	}
	if !r.cur.SteadyAt.IsZero() || r.inflight > r.curInflight {
		return false
	}
	r.cur.SteadyAt = now
	r.needBase = true
	return true
}

// Delivered reports the caller's cumulative count of delivered chunks at now. The first
// call after the open segment became steady sets its base; later calls update its
// SteadyChunks (chunks delivered in [SteadyAt, now)). Before the segment is steady it
// does nothing: those chunks belong to the warm-up.
func (r *LevelRule) Delivered(total int64, now time.Time) {
	if !r.open {
		return
	}
	r.account(total)
}

// Current returns the open segment with End = now, ok false when none is open.
func (r *LevelRule) Current(now time.Time) (seg Segment, ok bool) {
	if !r.open {
		return Segment{}, false
	}
	seg = r.cur
	seg.End = now
	return seg, true
}

// InFlight returns the requests in flight: all of them, and those sent in earlier
// segments than the open one (the warm-up population still to turn over).
func (r *LevelRule) InFlight() (all, earlier int) {
	if !r.open {
		return r.inflight, r.inflight
	}
	return r.inflight, r.inflight - r.curInflight
}

func (r *LevelRule) steady(delivered int64, now time.Time) {
	r.cur.SteadyAt = now
	r.base = delivered
	r.needBase = false
}

// account updates the open segment's SteadyChunks from a cumulative total.
func (r *LevelRule) account(total int64) {
	if r.cur.SteadyAt.IsZero() {
		return
	}
	if r.needBase {
		r.base = total
		r.needBase = false
	}
	if n := total - r.base; n > r.cur.SteadyChunks {
		r.cur.SteadyChunks = n
	}
}
