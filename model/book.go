package model

import (
	"maps"
	"slices"
	"time"
)

// book is one endpoint's level book of one mode (users or rate: a Tracker keeps one of
// each, so that 2 users and 2 requests/s are two levels, never merged): a level per
// concurrency (every ended request in
// its counts, the steady successful ones in its histograms) and the latest state of
// every segment (their steady windows, cut at the latest Reset). Memory is bounded: one
// set of histograms per concurrency, one state per segment since the latest Reset.
type book struct {
	resetAt  time.Time // requests sent before it are warm-up; ended before it, forgotten
	levels   map[int]*level
	segments map[int]*segState
	target   GoodputTarget // the per-request SLO of every level's goodput
	rate     bool          // the book of rate mode: its levels are arrival rates
}

// level accumulates the samples of one concurrency: every ended one in the counts,
// the steady successful ones in the distributions.
type level struct {
	conc              int
	requests, success int
	steady            int               // ended requests that were not warm-up
	cooldown          int               // of those, the ones that ended after their level (cooldown)
	coolWarm          int               // warm-up requests that ended after their level (its cool-down too)
	coolErrors        map[ErrorKind]int // the failures among the cool-down (warm-up included), by kind
	short             bool
	errors            map[ErrorKind]int
	ttft, ttfo, tpot  *Hist
	e2e, user, stall  *Hist
	outputTokens      int64
	srcUsage, srcChk  int

	traffic  *Traffic      // goodput, lengths and chunk gaps of the steady requests
	wait     ClientWait    // rate mode: every arrival's client-side wait
	busy     time.Duration // sum of the steady requests' E2E (mean in flight = busy / window)
	openLoop bool          // the level is an arrival rate (rate mode)
	bursts   int           // steady successes that arrived in one burst (Sample.Burst)

	agg       AggSums  // the steady successful requests' tokens and E2E: the aggregate's interval
	undecided []string // criteria still undecided when the level reached its maximum hold
	refined   bool     // the capacity's bisection added the level (it is not on the ramp's list)
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

// newBook is an empty book of users levels, or of rate levels (arrival rates) when rate.
func newBook(rate bool) book {
	return book{levels: map[int]*level{}, segments: map[int]*segState{}, rate: rate}
}

// forgotten reports whether s ended before the latest Reset.
func (t *book) forgotten(s *Sample) bool {
	return !t.resetAt.IsZero() && !s.End.IsZero() && s.End.Before(t.resetAt)
}

// add counts a sample that was not canceled nor forgotten in the level of its
// Concurrency (none when Concurrency <= 0), and records it in the level's distributions
// when it succeeded and was steady: neither warm-up nor sent before the latest Reset.
func (t *book) add(s *Sample) {
	if s.Concurrency <= 0 {
		return
	}
	l := t.level(s.Concurrency)
	l.requests++
	steady := !s.Warmup && (t.resetAt.IsZero() || !s.Send.Before(t.resetAt))
	after := t.cooldown(s)     // it ended after its level: in no figure the level was judged on
	judged := steady && !after // its whole life ran at the level's load
	if s.OpenLoop {
		l.openLoop = true
		l.wait.Add(s.ClientWait, s.Capped)
	}
	if steady {
		l.steady++
		if after {
			l.cooldown++
		}
		if !s.Send.IsZero() && s.End.After(s.Send) {
			l.busy += s.End.Sub(s.Send)
		}
	}
	if after && !steady {
		l.coolWarm++
	}
	if judged {
		l.traffic.Add(s)
	}
	if !s.OK() {
		l.errors[s.Err]++
		if after {
			l.coolErrors[s.Err]++
		}
		return
	}
	l.success++
	if judged {
		l.record(s)
	}
}

// cooldown reports whether s ended after its segment closed: it was still in flight
// when its level ended (the load changed, paused or stopped), so the end of its life ran
// at another load. It counts in its level's requests, errors and steady requests (it was
// sent in the steady window: the request rate counts it), not in its distributions nor
// its goodput. (The pool sends a segment's closed state before the samples that end
// after it.)
func (t *book) cooldown(s *Sample) bool {
	st := t.segments[s.Segment]
	return st != nil && !st.seg.Open && !s.End.IsZero() && s.End.After(st.seg.End)
}

// reset forgets the levels and the closed segments at now. Open segments go on: their
// steady windows restart at now (see segState), and their levels stay, empty.
func (t *book) reset(now time.Time) {
	t.resetAt = now
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
}

// level returns the level at concurrency c, created empty when new.
func (t *book) level(c int) *level {
	l := t.levels[c]
	if l == nil {
		l = &level{
			conc:       c,
			errors:     map[ErrorKind]int{},
			coolErrors: map[ErrorKind]int{},
			ttft:       NewLatencyHist(),
			ttfo:       NewLatencyHist(),
			tpot:       NewLatencyHist(),
			e2e:        NewLatencyHist(),
			user:       NewRateHist(),
			stall:      NewLatencyHist(),
			traffic:    NewTraffic(t.target),
			wait:       NewClientWait(),
		}
		l.openLoop = t.rate
		t.levels[c] = l
	}
	return l
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
	burst := s.Burst()
	if burst {
		l.bursts++ // its per-user tok/s and TPOT are the proxy's, not the server's
	}
	if d, ok := s.TPOT(); ok && !burst {
		l.tpot.RecordDuration(d)
	}
	if d, ok := s.E2E(); ok {
		l.e2e.RecordDuration(d)
		l.agg.Add(float64(s.Tokens), d.Seconds())
	}
	if s.Chunks >= 2 {
		l.stall.RecordDuration(s.MaxGap)
	}
	if v, ok := s.UserTPS(); ok && !burst {
		l.user.RecordRate(v)
	}
}

// markShort marks the level at concurrency c as short (see Tracker.MarkShort).
func (t *book) markShort(c int) {
	if c > 0 {
		t.level(c).short = true
	}
}

// markUndecided marks the level at concurrency c as undecided on the given criteria
// (see Tracker.MarkUndecided).
func (t *book) markUndecided(c int, terms []string) {
	if l := t.levels[c]; l != nil {
		l.undecided = slices.Clone(terms)
	} else if c > 0 && len(terms) > 0 {
		t.level(c).undecided = slices.Clone(terms)
	}
}

// markRefined marks the level at concurrency c as added by the capacity's bisection.
func (t *book) markRefined(c int) {
	if c > 0 {
		t.level(c).refined = true
	}
}

// updateSegment records the latest state of a segment (replacing an earlier state with the same ID).
func (t *book) updateSegment(seg Segment) {
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

// window is what the segments held at one concurrency add up to.
type window struct {
	d      time.Duration // steady windows
	chunks int64         // chunks delivered in them
	open   bool          // one of them is open
}

func (w *window) add(st *segState) {
	d, c := st.window()
	w.d += d
	w.chunks += c
	w.open = w.open || st.seg.Open
}

// stats returns one LevelStats per concurrency measured, ordered by concurrency; ratio
// is the learned tokens-per-chunk ratio that scales the steady chunks.
func (t *book) stats(ratio float64) []LevelStats {
	wins := make(map[int]window, len(t.levels))
	for _, st := range t.segments {
		w := wins[st.seg.Concurrency]
		w.add(st)
		wins[st.seg.Concurrency] = w
	}
	out := make([]LevelStats, 0, len(t.levels))
	for _, c := range slices.Sorted(maps.Keys(t.levels)) {
		out = append(out, t.levels[c].stats(wins[c], ratio))
	}
	return out
}

// one is the LevelStats of concurrency c alone; ok is false when there is no level at c.
func (t *book) one(c int, ratio float64) (LevelStats, bool) {
	l := t.levels[c]
	if l == nil {
		return LevelStats{}, false
	}
	var w window
	for _, st := range t.segments {
		if st.seg.Concurrency == c {
			w.add(st)
		}
	}
	return l.stats(w, ratio), true
}

// stats summarises the level over the steady windows w of its segments.
func (l *level) stats(w window, ratio float64) LevelStats {
	return l.summary(w.d, float64(w.chunks)*ratio, w.open)
}

// summary summarises the level over steady windows of total length d in which tokens
// were delivered; open says one of them is being measured now.
func (l *level) summary(d time.Duration, tokens float64, open bool) LevelStats {
	ls := LevelStats{
		Concurrency:  l.conc,
		Duration:     d,
		Requests:     l.requests,
		Succeeded:    l.success,
		Steady:       l.steady,
		Cooldown:     l.cooldown,
		CoolErrors:   maps.Clone(l.coolErrors),
		CoolWarmup:   l.coolWarm,
		Short:        l.short,
		Errors:       maps.Clone(l.errors),
		ErrorRate:    errorRate(l.judgedCounts()),
		TTFT:         l.ttft.Dist(),
		TTFO:         l.ttfo.Dist(),
		TPOT:         l.tpot.Dist(),
		E2E:          l.e2e.Dist(),
		Stall:        l.stall.Dist(),
		UserTPS:      l.user.Dist(),
		OutputTokens: l.outputTokens,
		TokenSource:  tokenSource(l.srcUsage, l.srcChk),
		Open:         open,
		OpenLoop:     l.openLoop,
		Wait:         l.wait.Stats(),
		Bursts:       l.bursts,
	}
	if l.traffic != nil {
		ls.Traffic = l.traffic.Stats(d)
	}
	if sec := d.Seconds(); sec > 0 {
		ls.SteadyTokens = tokens
		ls.AggregateTPS = tokens / sec
		ls.RequestRate = float64(l.steady) / sec
		ls.InFlight = l.busy.Seconds() / sec
	}
	l.setCI(&ls)
	ls.Undecided = slices.Clone(l.undecided)
	ls.Refined = l.refined
	return ls
}
