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

	inflight    int    // requests in flight, all segments
	curInflight int    // of those, requests sent in the open segment
	seq         uint64 // requests ever sent: the newest one's sequence number

	// Rounds of an open-loop segment's warm-up (see Segment): round 0 waits for the
	// earlier segments' requests; round k >= 1 for the open segment's own requests of
	// sequence number <= cutSeq (those sent before cutAt), waitOwn of them still in
	// flight. prevRound is the length of the round before the current one.
	round     int
	cutAt     time.Time
	cutSeq    uint64
	waitOwn   int
	prevRound time.Duration

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
	r.round, r.waitOwn = 0, 0
	r.cur = Segment{Endpoint: r.endpoint, ID: r.lastID, Concurrency: c, Start: now, End: now, Open: true}
	if r.inflight == 0 || (r.continuous && wasSteady) {
		r.steady(delivered, now)
	}
	r.cur.OpenLoop = r.openLoop
	return closed, hadClosed, r.cur
}

// Send registers a request sent at now and says which segment it belongs to, whether
// it is warm-up (sent before the segment became steady) and its sequence number, which
// the caller gives back to Done with the segment. With no open segment (the pool is
// paused or at concurrency 0, which the pool never sends in) it returns segment 0 and
// warm-up, so that the request stays out of every level.
func (r *LevelRule) Send(now time.Time) (segment, concurrency int, warmup bool, seq uint64) {
	r.inflight++
	r.seq++
	if !r.open {
		return 0, 0, true, r.seq
	}
	r.curInflight++
	return r.cur.ID, r.cur.Concurrency, r.cur.SteadyAt.IsZero(), r.seq
}

// Done registers the end, at now, of a request sent in the given segment with the given
// sequence number (both as Send returned them). When that makes the open segment steady
// (see Segment) it sets SteadyAt = now and returns true; the caller must then call
// Delivered with its cumulative delivered count at now, which becomes the base of
// SteadyChunks.
func (r *LevelRule) Done(segment int, seq uint64, now time.Time) (becameSteady bool) {
	if r.inflight > 0 {
		r.inflight--
	}
	if !r.open {
		return false
	}
	own := segment == r.cur.ID
	if own && r.curInflight > 0 {
		r.curInflight--
	}
	if !r.cur.SteadyAt.IsZero() {
		return false
	}
	switch {
	case r.round == 0 && r.inflight > r.curInflight:
		return false // a request of an earlier segment is still in flight
	case r.round == 0 && r.cur.OpenLoop:
		if r.nextRound(now.Sub(r.cur.Start), now) {
			return false
		}
	case r.round > 0:
		if own && seq <= r.cutSeq && r.waitOwn > 0 {
			r.waitOwn--
		}
		if r.waitOwn > 0 {
			return false
		}
		if d := now.Sub(r.cutAt); float64(d) < RoundShrink*float64(r.prevRound) && r.nextRound(d, now) {
			return false
		}
	}
	r.cur.SteadyAt = now
	r.needBase = true
	return true
}

// RoundShrink is how much shorter than the round before it a round of an open-loop
// segment's warm-up must be for the warm-up to go on with another round (see Segment):
// shorter than 0.9 times, so the queue was still draining by more than a tenth a round.
const RoundShrink = 0.9

// nextRound opens a round of an open-loop segment's warm-up at now, after a round of
// length last: it waits for the segment's requests in flight now. It returns false when
// there are none (the segment is steady now).
func (r *LevelRule) nextRound(last time.Duration, now time.Time) bool {
	if r.curInflight == 0 {
		return false
	}
	r.round++
	r.cutAt, r.cutSeq, r.waitOwn, r.prevRound = now, r.seq, r.curInflight, last
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

// InFlight returns the requests in flight: all of them, and those the open segment's
// warm-up still waits for (sent in earlier segments, or in an open-loop round, its own
// sent before the round began; 0 once steady).
func (r *LevelRule) InFlight() (all, waited int) {
	switch {
	case !r.open:
		return r.inflight, r.inflight
	case !r.cur.SteadyAt.IsZero():
		return r.inflight, 0
	case r.round > 0:
		return r.inflight, r.waitOwn
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
