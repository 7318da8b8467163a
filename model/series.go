package model

import (
	"slices"
	"time"
)

// maxPendingErrors bounds the failed-sample end times waiting for the tick that covers
// them; beyond it they are counted into the next bucket without their time.
const maxPendingErrors = 4096

// UserHold is how many buckets in a row keep the previous per-user value when no stream
// decoded during a whole bucket (answers shorter than a few seconds at low concurrency
// leave such gaps); the kept value is marked Bucket.UserCarried.
const UserHold = 3

// series is one endpoint's live series (what the sparklines show): a ring of buckets,
// the first-token times of the trailing TTFT window, the per-user value carried over
// short gaps, and the end times of failures waiting for the tick that covers them.
// Memory is bounded by the ring's length and the window.
type series struct {
	window time.Duration // trailing window of the TTFT series

	// A ring of buckets, oldest at ring[head].
	ring  []Bucket
	head  int
	count int
	// First-token times of the buckets still inside the TTFT window, oldest first.
	win     []ttftBucket
	freeTT  [][]time.Duration
	ttftBuf []time.Duration
	userBuf []int32
	// userCarried counts the newest buckets in a row whose per-user value was carried.
	userCarried int
	// End times of failed samples newer than every bucket, for the next ticks.
	pending      []time.Time
	pendingExtra int
}

type ttftBucket struct {
	start time.Time
	mid   time.Time // the middle of the bucket: it is in the window while mid is
	vals  []time.Duration
}

// newSeries returns an empty series of history buckets and a TTFT window.
func newSeries(history int, window time.Duration) series {
	return series{window: window, ring: make([]Bucket, history), pending: make([]time.Time, 0, 64)}
}

// reset forgets every bucket, the TTFT window and the pending failures, keeping the
// buffers for reuse.
func (t *series) reset() {
	clear(t.ring)
	t.head, t.count, t.userCarried = 0, 0, 0
	for _, w := range t.win {
		t.freeTT = append(t.freeTT, w.vals[:0])
	}
	clear(t.win)
	t.win = t.win[:0]
	t.pending = t.pending[:0]
	t.pendingExtra = 0
}

// at returns the i-th bucket of the ring, oldest first.
func (t *series) at(i int) *Bucket { return &t.ring[(t.head+i)%len(t.ring)] }

// addError attributes a failure that ended at end to the bucket covering end when it is
// still in the ring (to the next bucket when end falls in a gap between two), to the
// newest bucket when end is older than the ring, and to a later tick when end is
// newer than every bucket.
func (t *series) addError(end time.Time) {
	if t.count == 0 || !end.Before(bucketEnd(t.at(t.count-1))) {
		if len(t.pending) < maxPendingErrors {
			t.pending = append(t.pending, end)
		} else {
			t.pendingExtra++
		}
		return
	}
	// First bucket (oldest first) whose Start is after end.
	lo, hi := 0, t.count
	for lo < hi {
		m := (lo + hi) / 2
		if t.at(m).Start.After(end) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	switch {
	case lo == 0: // older than the ring
		t.at(t.count-1).Errors++
	case end.Before(bucketEnd(t.at(lo - 1))):
		t.at(lo-1).Errors++
	default: // in a gap: lo < count, since end is before the newest bucket's end
		t.at(lo).Errors++
	}
}

func bucketEnd(b *Bucket) time.Time { return b.Start.Add(b.Width) }

// addTick appends one live bucket; ratio is the learned tokens-per-chunk ratio.
func (t *series) addTick(tk *Tick, ratio float64) {
	var prev Bucket
	if t.count > 0 {
		prev = *t.at(t.count - 1)
	}
	var b *Bucket
	if t.count < len(t.ring) {
		b = t.at(t.count)
		t.count++
	} else {
		b = &t.ring[t.head]
		t.head = (t.head + 1) % len(t.ring)
	}
	// A tick that ends before it starts (a clock the model cannot trust) is an
	// empty bucket at Start: never a negative width.
	end := tk.End
	if end.Before(tk.Start) {
		end = tk.Start
	}
	width := end.Sub(tk.Start)
	*b = Bucket{
		Start:    tk.Start,
		Width:    width,
		Active:   tk.Active,
		Target:   tk.Target,
		Started:  tk.Started,
		Finished: tk.Finished,
		Silent:   tk.Silent, SilentFor: tk.SilentFor,
		Paused: tk.Paused,
	}
	if sec := width.Seconds(); sec > 0 {
		b.AggregateTPS = float64(tk.Chunks) * ratio / sec
		if len(tk.UserChunks) > 0 {
			b.UserTPS = t.medianChunks(tk.UserChunks) * ratio / sec
			b.HasUser = true
			t.userCarried = 0
		}
	}
	if !b.HasUser && prev.HasUser && t.userCarried < UserHold {
		b.UserTPS, b.HasUser, b.UserCarried = prev.UserTPS, true, true
		t.userCarried++
	}
	b.TTFTP50, b.TTFTP95, b.HasTTFT = t.addTTFT(tk, end)

	// Failures that ended before this bucket's end and were waiting for it.
	kept := t.pending[:0]
	for _, e := range t.pending {
		if e.Before(end) {
			b.Errors++
		} else {
			kept = append(kept, e)
		}
	}
	t.pending = kept
	b.Errors += t.pendingExtra
	t.pendingExtra = 0
}

// medianChunks is the median of v (the mean of the two middle values when len(v) is even).
func (t *series) medianChunks(v []int32) float64 {
	t.userBuf = append(t.userBuf[:0], v...)
	slices.Sort(t.userBuf)
	n := len(t.userBuf)
	if n%2 == 1 {
		return float64(t.userBuf[n/2])
	}
	return (float64(t.userBuf[n/2-1]) + float64(t.userBuf[n/2])) / 2
}

// addTTFT adds the tick's first tokens to the trailing window ending at end (the tick's
// End, never before its Start) and returns its p50 and p95.
func (t *series) addTTFT(tk *Tick, end time.Time) (p50, p95 time.Duration, ok bool) {
	if len(tk.FirstTokens) > 0 {
		var vals []time.Duration
		if n := len(t.freeTT); n > 0 {
			vals = t.freeTT[n-1]
			t.freeTT[n-1] = nil
			t.freeTT = t.freeTT[:n-1]
		}
		mid := tk.Start.Add(end.Sub(tk.Start) / 2)
		t.win = append(t.win, ttftBucket{start: tk.Start, mid: mid, vals: append(vals, tk.FirstTokens...)})
	}
	// Drop the buckets whose middle is before the window, so that a 10 s window holds
	// ten 1 s buckets even when tick boundaries jitter by a few ms (a bucket starting
	// 2 ms before the window is still in it); this bucket always stays, even when it
	// is wider than the window.
	from := end.Add(-t.window)
	drop := 0
	for drop < len(t.win) && t.win[drop].mid.Before(from) && t.win[drop].start.Before(tk.Start) {
		t.freeTT = append(t.freeTT, t.win[drop].vals[:0])
		drop++
	}
	if drop > 0 {
		n := copy(t.win, t.win[drop:])
		clear(t.win[n:])
		t.win = t.win[:n]
	}
	all := t.ttftBuf[:0]
	for _, w := range t.win {
		all = append(all, w.vals...)
	}
	t.ttftBuf = all
	if len(all) == 0 {
		return 0, 0, false
	}
	slices.Sort(all)
	return nearestRank(all, 50), nearestRank(all, 95), true
}

// nearestRank is the k-th smallest of sorted v, k = round(p/100*n) within [1, n]: the
// rank rule Hist uses.
func nearestRank[T any](sorted []T, p float64) T {
	n := len(sorted)
	k := int(p/100*float64(n) + 0.5)
	k = min(max(k, 1), n)
	return sorted[k-1]
}

// buckets returns up to n newest live buckets, oldest first (fewer when fewer exist).
func (t *series) buckets(n int) []Bucket {
	n = min(max(n, 0), t.count)
	out := make([]Bucket, n)
	for i := range out {
		out[i] = *t.at(t.count - n + i)
	}
	return out
}

// live returns the newest live values: those of the newest bucket, At being its end.
// It is the zero Live before the first tick.
func (t *series) live() Live {
	if t.count == 0 {
		return Live{}
	}
	b := t.at(t.count - 1)
	return Live{
		At:           bucketEnd(b),
		AggregateTPS: b.AggregateTPS,
		UserTPS:      b.UserTPS,
		HasUser:      b.HasUser,
		TTFTP50:      b.TTFTP50,
		TTFTP95:      b.TTFTP95,
		HasTTFT:      b.HasTTFT,
		Active:       b.Active,
		Target:       b.Target,
		Silent:       b.Silent,
		SilentFor:    b.SilentFor,
	}
}
