package model

import (
	"maps"
	"slices"
	"time"
)

// TrackerOptions configures a Tracker.
type TrackerOptions struct {
	Endpoint   int
	SLO        SLO           // capacity criteria; zero value means DefaultSLO
	TTFTWindow time.Duration // trailing window of the live TTFT series; 0 means 10 s
	History    int           // live buckets kept (ring buffer); 0 means 3600
}

// Default TrackerOptions values.
const (
	DefaultTTFTWindow = 10 * time.Second
	DefaultHistory    = 3600
)

// maxPendingErrors bounds the failed-sample end times waiting for the tick that covers
// them; beyond it they are counted into the next bucket without their time.
const maxPendingErrors = 4096

// Tracker turns one endpoint's samples, ticks and segments into live series, levels,
// the degradation curve, capacity and saturation. It is not safe for concurrent use:
// one goroutine (the bench loop, or the TUI's Update) feeds it and reads it.
// Memory is bounded: a ring of buckets, and one set of histograms per concurrency.
//
// Samples with ErrCanceled are ignored everywhere. Every other sample is counted in
// exactly one level (that of its Concurrency), warm-up included, so that the levels'
// requests and errors add up to Totals. Failed samples count as errors (by kind, in
// their level, in Totals and in the bucket they ended in) and are kept out of every
// distribution; warm-up samples are kept out of the distributions too (see LevelStats.Steady).
type Tracker struct {
	opt TrackerOptions
	slo SLO

	// Tokens-per-chunk ratio, over successful samples that reported usage (kept by Reset).
	usageTokens, usageChunks int64

	// Since start or Reset.
	resetAt           time.Time // samples sent before it are kept out of levels
	requests, success int
	errors            map[ErrorKind]int
	srcUsage, srcChk  int // successful samples by token source
	lastErr           string
	lastErrAt         time.Time
	lastOKAt          time.Time // end of the newest success

	levels   map[int]*level
	segments map[int]*segState

	// Live series: a ring of buckets, oldest at ring[head].
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

// level accumulates the samples of one concurrency: every ended one in the counts,
// the steady successful ones in the distributions.
type level struct {
	conc              int
	requests, success int
	steady            int // ended requests that were not warm-up
	short             bool
	errors            map[ErrorKind]int
	ttft, ttfo, tpot  *Hist
	e2e, user, stall  *Hist
	outputTokens      int64
	srcUsage, srcChk  int
}

// segState is the latest state of one segment, with what a Reset cut off.
type segState struct {
	seg Segment
	// Set by Reset while the segment was open.
	cut     time.Time // reset time; zero when never cut
	baseSet bool      // the segment was steady at the cut: the window starts at baseAt
	// baseAt/baseChunks: the segment's state at its latest update before the cut, moved
	// to the cut (chunks prorated over that one interval) by the first update after it.
	baseAt     time.Time
	baseChunks int64
}

type ttftBucket struct {
	start time.Time
	mid   time.Time // the middle of the bucket: it is in the window while mid is
	vals  []time.Duration
}

// NewTracker returns an empty Tracker.
func NewTracker(opt TrackerOptions) *Tracker {
	if opt.TTFTWindow <= 0 {
		opt.TTFTWindow = DefaultTTFTWindow
	}
	if opt.History <= 0 {
		opt.History = DefaultHistory
	}
	t := &Tracker{
		opt:      opt,
		slo:      opt.SLO.orDefault(),
		errors:   map[ErrorKind]int{},
		levels:   map[int]*level{},
		segments: map[int]*segState{},
		ring:     make([]Bucket, opt.History),
		pending:  make([]time.Time, 0, 64),
	}
	return t
}

// SLO returns the capacity criteria in use.
func (t *Tracker) SLO() SLO { return t.slo }

func (t *Tracker) level(c int) *level {
	l := t.levels[c]
	if l == nil {
		l = &level{
			conc:   c,
			errors: map[ErrorKind]int{},
			ttft:   NewLatencyHist(),
			ttfo:   NewLatencyHist(),
			tpot:   NewLatencyHist(),
			e2e:    NewLatencyHist(),
			user:   NewRateHist(),
			stall:  NewLatencyHist(),
		}
		t.levels[c] = l
	}
	return l
}

// AddSample records a finished request: into its level's counts (requests, successes,
// errors by kind), into its level's distributions when it succeeded and was steady
// (neither warm-up nor sent before the latest Reset), into the totals and the bucket it
// ended in when it failed, into the tokens-per-chunk ratio when it reported usage, and
// as the last error message.
//
// A sample belongs to the level of its Concurrency (none when Concurrency <= 0: the pool
// sends nothing then). A sample sent before the latest Reset but ended after it counts
// in its level like warm-up; a sample that ended before it is ignored.
func (t *Tracker) AddSample(s *Sample) {
	if s.Err == ErrCanceled {
		return
	}
	if !t.resetAt.IsZero() && !s.End.IsZero() && s.End.Before(t.resetAt) {
		return // ended before the Reset: it belongs to what was forgotten
	}
	t.addTotals(s)
	if s.Concurrency <= 0 {
		return
	}
	l := t.level(s.Concurrency)
	l.requests++
	steady := !s.Warmup && (t.resetAt.IsZero() || !s.Send.Before(t.resetAt))
	if steady {
		l.steady++
	}
	if !s.OK() {
		l.errors[s.Err]++
		return
	}
	l.success++
	if steady {
		l.record(s)
	}
}

// addTotals counts a sample that was not canceled in the totals, the token sources, the
// tokens-per-chunk ratio, the last error and the live error counts.
func (t *Tracker) addTotals(s *Sample) {
	t.requests++
	if !s.OK() {
		t.errors[s.Err]++
		// Newest failure wins, unless a success ended after it.
		if !s.End.Before(t.lastErrAt) && !s.End.Before(t.lastOKAt) {
			t.lastErr, t.lastErrAt = s.ErrMsg, s.End
			if t.lastErr == "" {
				t.lastErr = string(s.Err)
			}
		}
		t.addError(s.End)
		return
	}
	t.success++
	if s.Usage {
		t.srcUsage++
		// A usage count of 0 or less after token-bearing events contradicts the
		// stream: it would drag the ratio down (or below 0), so it is left out.
		if s.Chunks > 0 && s.Tokens > 0 {
			t.usageTokens += int64(s.Tokens)
			t.usageChunks += int64(s.Chunks)
		}
	} else {
		t.srcChk++
	}
	if s.End.After(t.lastOKAt) {
		t.lastOKAt = s.End
	}
	if t.lastErr != "" && s.End.After(t.lastErrAt) {
		t.lastErr, t.lastErrAt = "", time.Time{}
	}
}

// record adds a steady successful sample to the level's distributions.
func (l *level) record(s *Sample) {
	l.outputTokens += int64(max(s.Tokens, 0))
	if s.Usage {
		l.srcUsage++
	} else {
		l.srcChk++
	}
	if d, ok := s.TTFT(); ok {
		l.ttft.RecordDuration(d)
	}
	if d, ok := s.TTFO(); ok {
		l.ttfo.RecordDuration(d)
	}
	if d, ok := s.TPOT(); ok {
		l.tpot.RecordDuration(d)
	}
	if d, ok := s.E2E(); ok {
		l.e2e.RecordDuration(d)
	}
	if s.Chunks >= 2 {
		l.stall.RecordDuration(s.MaxGap)
	}
	if v, ok := s.UserTPS(); ok {
		l.user.RecordRate(v)
	}
}

// MarkShort marks the level at concurrency c as short: it reached the maximum hold
// before it had MinSteady(c) steady requests. The mark stays until Reset, also when the
// same concurrency is held again later (its requests merge into the same level).
func (t *Tracker) MarkShort(c int) {
	if c > 0 {
		t.level(c).short = true
	}
}

// at returns the i-th bucket of the ring, oldest first.
func (t *Tracker) at(i int) *Bucket { return &t.ring[(t.head+i)%len(t.ring)] }

// addError attributes a failure that ended at end to the bucket covering end when it is
// still in the ring (to the next bucket when end falls in a gap between two), to the
// newest bucket when end is older than the ring, and to a later tick when end is
// newer than every bucket.
func (t *Tracker) addError(end time.Time) {
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

// UserHold is how many buckets in a row keep the previous per-user value when no stream
// decoded during a whole bucket (answers shorter than a few seconds at low concurrency
// leave such gaps); the kept value is marked Bucket.UserCarried.
const UserHold = 3

// AddTick appends one live bucket.
func (t *Tracker) AddTick(tk *Tick) {
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
	}
	ratio := t.TokensPerChunk()
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
func (t *Tracker) medianChunks(v []int32) float64 {
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
func (t *Tracker) addTTFT(tk *Tick, end time.Time) (p50, p95 time.Duration, ok bool) {
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
	from := end.Add(-t.opt.TTFTWindow)
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

// UpdateSegment records the latest state of a segment (replacing an earlier state with the same ID).
func (t *Tracker) UpdateSegment(seg Segment) {
	if seg.Concurrency <= 0 {
		return
	}
	st := t.segments[seg.ID]
	if st == nil {
		st = &segState{}
		if !t.resetAt.IsZero() && seg.Start.Before(t.resetAt) {
			st.cut = t.resetAt // first seen after a Reset it began before
		}
		t.segments[seg.ID] = st
	}
	if st.baseSet && st.baseAt.Before(st.cut) && seg.End.After(st.cut) {
		// The Reset fell between two updates: move the base to the Reset, prorating
		// the chunks of that one interval over time.
		n := max(seg.SteadyChunks-st.baseChunks, 0)
		st.baseChunks += int64(float64(n) * float64(st.cut.Sub(st.baseAt)) / float64(seg.End.Sub(st.baseAt)))
		st.baseAt = st.cut
	}
	st.seg = seg
	t.level(seg.Concurrency)
}

// window is the segment's steady window and the chunks delivered in it, both counted
// from the latest Reset. When the segment became steady before a Reset that was not
// known at the Reset, its chunks are prorated over time.
func (st *segState) window() (time.Duration, int64) {
	seg := st.seg
	if seg.SteadyAt.IsZero() || !seg.End.After(seg.SteadyAt) {
		return 0, 0
	}
	switch {
	case st.baseSet:
		if !seg.End.After(st.baseAt) || !seg.End.After(st.cut) {
			return 0, 0
		}
		return seg.End.Sub(st.baseAt), max(seg.SteadyChunks-st.baseChunks, 0)
	case !st.cut.IsZero() && seg.SteadyAt.Before(st.cut):
		if !seg.End.After(st.cut) {
			return 0, 0
		}
		full := seg.End.Sub(seg.SteadyAt)
		d := seg.End.Sub(st.cut)
		return d, int64(float64(seg.SteadyChunks) * float64(d) / float64(full))
	}
	return seg.Steady(), seg.SteadyChunks
}

// Reset forgets levels, the curve, errors and the live series (the TUI's `c`), keeping the
// learned tokens-per-chunk ratio. Segments still open keep being tracked from now on:
// their steady windows restart at now, and requests sent before now are kept out of
// levels (like warm-up).
func (t *Tracker) Reset(now time.Time) {
	t.resetAt = now
	t.requests, t.success = 0, 0
	clear(t.errors)
	t.srcUsage, t.srcChk = 0, 0
	t.lastErr, t.lastErrAt, t.lastOKAt = "", time.Time{}, time.Time{}
	clear(t.levels)
	for id, st := range t.segments {
		if !st.seg.Open {
			delete(t.segments, id)
			continue
		}
		*st = segState{seg: st.seg, cut: now}
		if !st.seg.SteadyAt.IsZero() {
			st.baseSet, st.baseAt, st.baseChunks = true, st.seg.End, st.seg.SteadyChunks
		}
		t.level(st.seg.Concurrency)
	}
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

// Levels returns one LevelStats per concurrency measured, ordered by concurrency.
func (t *Tracker) Levels() []LevelStats {
	type acc struct {
		d      time.Duration
		chunks int64
		open   bool
	}
	segs := make(map[int]acc, len(t.levels))
	for _, st := range t.segments {
		a := segs[st.seg.Concurrency]
		d, c := st.window()
		a.d += d
		a.chunks += c
		a.open = a.open || st.seg.Open
		segs[st.seg.Concurrency] = a
	}
	ratio := t.TokensPerChunk()
	out := make([]LevelStats, 0, len(t.levels))
	for _, c := range slices.Sorted(maps.Keys(t.levels)) {
		l := t.levels[c]
		a := segs[c]
		ls := LevelStats{
			Concurrency:  c,
			Duration:     a.d,
			Requests:     l.requests,
			Succeeded:    l.success,
			Steady:       l.steady,
			Short:        l.short,
			Errors:       maps.Clone(l.errors),
			TTFT:         l.ttft.Dist(),
			TTFO:         l.ttfo.Dist(),
			TPOT:         l.tpot.Dist(),
			E2E:          l.e2e.Dist(),
			Stall:        l.stall.Dist(),
			UserTPS:      l.user.Dist(),
			OutputTokens: l.outputTokens,
			TokenSource:  tokenSource(l.srcUsage, l.srcChk),
			Open:         a.open,
		}
		ls.ErrorRate = errorRate(l.requests, l.errors)
		if sec := a.d.Seconds(); sec > 0 {
			ls.AggregateTPS = float64(a.chunks) * ratio / sec
			ls.RequestRate = float64(l.steady) / sec
		}
		out = append(out, ls)
	}
	return out
}

// errorRate is the failures charged to the endpoint over the requests that could be:
// client failures (tpsmon's own limits) are in neither. 0 when nothing could be charged.
func errorRate(requests int, errors map[ErrorKind]int) float64 {
	charged, client := 0, 0
	for k, n := range errors {
		switch {
		case k.Charged():
			charged += n
		case k == ErrClient:
			client += n
		}
	}
	if n := requests - client; n > 0 {
		return float64(charged) / float64(n)
	}
	return 0
}

func tokenSource(usage, chunks int) string {
	switch {
	case usage > 0 && chunks > 0:
		return SourceMixed
	case usage > 0:
		return SourceUsage
	case chunks > 0:
		return SourceChunks
	}
	return ""
}

// Buckets returns up to n newest live buckets, oldest first (fewer when fewer exist).
func (t *Tracker) Buckets(n int) []Bucket {
	n = min(max(n, 0), t.count)
	out := make([]Bucket, n)
	for i := range out {
		out[i] = *t.at(t.count - n + i)
	}
	return out
}

// Live returns the newest live values: those of the newest bucket, At being its end.
// It is the zero Live before the first tick.
func (t *Tracker) Live() Live {
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
	}
}

// TokensPerChunk is the ratio learned from completed requests that reported usage (1 until
// then): sum(completion_tokens) / sum(chunks) over the successful ones with at least one
// chunk and a positive completion_tokens.
func (t *Tracker) TokensPerChunk() float64 {
	if t.usageChunks == 0 || t.usageTokens == 0 {
		return 1
	}
	return float64(t.usageTokens) / float64(t.usageChunks)
}

// TokenSource is SourceUsage, SourceChunks, SourceMixed, or "" before the first
// successful sample (since start or Reset).
func (t *Tracker) TokenSource() string { return tokenSource(t.srcUsage, t.srcChk) }

// Totals returns requests ended, succeeded, and failed by kind, since start or Reset.
// Warm-up requests count; canceled ones do not. The map is a copy.
func (t *Tracker) Totals() (requests, succeeded int, errors map[ErrorKind]int) {
	return t.requests, t.success, maps.Clone(t.errors)
}

// LastError returns the message of the newest failed request and when it ended; it is
// cleared ("" ) once a later request succeeds.
func (t *Tracker) LastError() (msg string, at time.Time) { return t.lastErr, t.lastErrAt }

// Capacity is the largest measured concurrency whose level meets the SLO, 0 when none:
// a level with Requests > 0, a measured TTFT, UserTPS.P50 >= UserTPSMin,
// TTFT.P95 <= TTFTP95Max and ErrorRate <= ErrorRateMax (see SLO.Meets).
func (t *Tracker) Capacity() int { return capacity(t.Levels(), t.slo) }

// capacity is Capacity over the given levels.
func capacity(levels []LevelStats, slo SLO) int {
	best := 0
	for i := range levels {
		if slo.Meets(&levels[i]) && levels[i].Concurrency > best {
			best = levels[i].Concurrency
		}
	}
	return best
}

// Saturation is the first level after which doubling users raises aggregate TPS by less
// than 10%; ok is false when not reached. The exact rule: among the levels with a
// steady window (Duration > 0), in increasing concurrency, compare each level c with the
// level of the smallest concurrency >= 2c (skip c when there is none); the answer is
// the first c whose comparison level has aggregate TPS < 1.10 x the aggregate TPS at c.
func (t *Tracker) Saturation() (users int, ok bool) { return saturation(t.Levels()) }

// saturation is Saturation over the given levels (ordered by concurrency).
func saturation(levels []LevelStats) (int, bool) {
	var ms []*LevelStats
	for i := range levels {
		if levels[i].Duration > 0 {
			ms = append(ms, &levels[i])
		}
	}
	for i, l := range ms {
		for _, m := range ms[i+1:] {
			if m.Concurrency >= 2*l.Concurrency {
				if m.AggregateTPS < 1.10*l.AggregateTPS {
					return l.Concurrency, true
				}
				break
			}
		}
	}
	return 0, false
}
