package model

import (
	"maps"
	"time"
)

// TrackerOptions configures a Tracker.
type TrackerOptions struct {
	Endpoint   int
	SLO        SLO           // capacity criteria; zero value means DefaultSLO
	TTFTWindow time.Duration // trailing window of the live TTFT series; 0 means 10 s
	History    int           // live buckets kept (ring buffer); 0 means 3600
	// MinRequests is the level rule's floor of steady requests that the Tracker's claims
	// (Capacity, its report's capacity) read a level measured in full by
	// (ReportSettings.MinRequests); 0 means MinFloor.
	MinRequests int
}

// Default TrackerOptions values.
const (
	DefaultTTFTWindow = 10 * time.Second
	DefaultHistory    = 3600
)

// Tracker turns one endpoint's samples, ticks and segments into live series, levels,
// the degradation curve, capacity and saturation. It is not safe for concurrent use:
// one goroutine (the run engine's loop) feeds it and reads it. Memory is bounded: a ring
// of buckets, and one set of histograms per concurrency.
//
// It composes three parts: the live series (series.go), the level books (book.go: one
// of users levels, one of rate levels, each sample and segment in that of its mode) and
// the totals (totals.go). The levels read (Levels, Level, Capacity, ReportEndpoint) are
// those of the mode set by SetRateMode; ReportMode reads either.
//
// Samples with ErrCanceled are ignored everywhere. Every other sample is counted in
// exactly one level (that of its Concurrency), warm-up included, so that the levels'
// requests and errors add up to Totals. Failed samples count as errors (by kind, in
// their level, in Totals and in the bucket they ended in) and are kept out of every
// distribution; warm-up samples are kept out of the distributions too (see LevelStats.Steady).
type Tracker struct {
	slo    SLO
	rule   ReportSettings // the criteria and level rule its claims read (TrackerOptions.MinRequests)
	live   series
	books  [2]book // users levels, rate levels
	book   *book   // the book of the mode in use (SetRateMode)
	totals totals
	ttfo   ttfoWindow
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
		slo:    opt.SLO.orDefault(),
		live:   newSeries(opt.History, opt.TTFTWindow),
		books:  [2]book{newBook(false), newBook(true)},
		totals: newTotals(),
		ttfo:   ttfoWindow{window: opt.TTFTWindow},
	}
	t.rule = DefaultRule(t.slo)
	if opt.MinRequests > 0 {
		t.rule.MinRequests = opt.MinRequests
	}
	t.books[0].target, t.books[1].target = t.slo.Goodput(), t.slo.Goodput()
	t.book = &t.books[0]
	return t
}

// SetRateMode sets the mode whose levels Levels, Level, MarkShort, Capacity, Saturation
// and ReportEndpoint read: rate levels (arrival rates) when on, else users levels. The
// levels of the other mode are kept (ReportMode reads them).
func (t *Tracker) SetRateMode(on bool) { t.book = t.bookOf(on) }

// RateMode reports whether the levels read are rate levels (SetRateMode).
func (t *Tracker) RateMode() bool { return t.book.rate }

// bookOf is the book of rate levels when rate, else that of users levels.
func (t *Tracker) bookOf(rate bool) *book {
	if rate {
		return &t.books[1]
	}
	return &t.books[0]
}

// SLO returns the capacity criteria in use.
func (t *Tracker) SLO() SLO { return t.slo }

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
	if s.Err == ErrCanceled || t.book.forgotten(s) {
		return
	}
	t.totals.add(s)
	t.ttfo.add(s)
	if !s.OK() {
		t.live.addError(s.End)
	}
	t.bookOf(s.OpenLoop).add(s)
}

// AddTick appends one live bucket.
func (t *Tracker) AddTick(tk *Tick) {
	t.live.addTick(tk, t.totals.tokensPerChunk())
	t.ttfo.update(tk.End)
}

// UpdateSegment records the latest state of a segment (replacing an earlier state with the same ID).
func (t *Tracker) UpdateSegment(seg Segment) { t.bookOf(seg.OpenLoop).updateSegment(seg) }

// MarkShort marks the level at concurrency c as short: it reached the maximum hold
// before it had MinSteady(c) steady requests. The mark stays until Reset, also when the
// same concurrency is held again later (its requests merge into the same level).
func (t *Tracker) MarkShort(c int) { t.book.markShort(c) }

// MarkUndecided marks the level at concurrency c as undecided on the criteria terms (SLO
// terms, e.g. "ttft_p95"): it reached its maximum hold with them still undecided at 95%.
// It then neither sets nor bounds a capacity. The mark stays until Reset; a later call
// replaces it (nil clears it: a later visit decided the level).
func (t *Tracker) MarkUndecided(c int, terms []string) { t.book.markUndecided(c, terms) }

// MarkRefined marks the level at concurrency c as added by the capacity's bisection
// (a level not on the ramp's list).
func (t *Tracker) MarkRefined(c int) { t.book.markRefined(c) }

// Reset forgets levels, the curve, errors and the live series (the TUI's `c`), keeping the
// learned tokens-per-chunk ratio. Segments still open keep being tracked from now on:
// their steady windows restart at now; requests sent before now and ended after it
// count in their level like warm-up, those ended before now are ignored.
func (t *Tracker) Reset(now time.Time) {
	t.totals.reset()
	t.books[0].reset(now)
	t.books[1].reset(now)
	t.live.reset()
	t.ttfo.reset()
}

// Levels returns one LevelStats per concurrency measured in the mode in use, ordered by
// concurrency.
func (t *Tracker) Levels() []LevelStats { return t.book.stats(t.totals.tokensPerChunk()) }

// Level returns the LevelStats of concurrency c alone, as Levels has it (cheaper than
// Levels for a rule that reads the current level at every step); ok is false when no
// level at c exists.
func (t *Tracker) Level(c int) (LevelStats, bool) { return t.book.one(c, t.totals.tokensPerChunk()) }

// Buckets returns up to n newest live buckets, oldest first (fewer when fewer exist).
func (t *Tracker) Buckets(n int) []Bucket { return t.live.buckets(n) }

// Live returns the newest live values: those of the newest bucket, At being its end.
// It is the zero Live before the first tick.
func (t *Tracker) Live() Live {
	l := t.live.live()
	l.Reasoning = t.ttfo.reasoning
	l.TTFOP50, l.TTFOP95, l.HasTTFO = t.ttfo.p50, t.ttfo.p95, t.ttfo.has
	return l
}

// TokensPerChunk is the ratio learned from completed requests that reported usage (1 until
// then): sum(completion_tokens) / sum(chunks) over the successful ones with at least one
// chunk and a positive completion_tokens.
func (t *Tracker) TokensPerChunk() float64 { return t.totals.tokensPerChunk() }

// TokenSource is SourceUsage, SourceChunks, SourceMixed, or "" before the first
// successful sample (since start or Reset).
func (t *Tracker) TokenSource() string { return tokenSource(t.totals.srcUsage, t.totals.srcChk) }

// Totals returns requests ended, succeeded, and failed by kind, since start or Reset.
// Warm-up requests count; canceled ones do not. The map is a copy.
func (t *Tracker) Totals() (requests, succeeded int, errors map[ErrorKind]int) {
	return t.totals.requests, t.totals.success, maps.Clone(t.totals.errors)
}

// LastError returns the message of the newest failed request and when it ended; it is
// cleared ("" ) once a later request succeeds.
func (t *Tracker) LastError() (msg string, at time.Time) { return t.totals.lastErr, t.totals.lastErrAt }

// Capacity is the largest measured concurrency whose level meets the SLO, 0 when none:
// a level with Requests > 0, a measured TTFT, UserTPS.P50 >= UserTPSMin,
// TTFT.P95 <= TTFTP95Max and ErrorRate <= ErrorRateMax (see SLO.Meets).
func (t *Tracker) Capacity() int {
	return judgeWith(t.Levels(), &t.rule, false, false).Capacity.Report().Users
}

// Saturation is the first level after which doubling users raises aggregate TPS by less
// than 10%; ok is false when not reached. The exact rule: among the levels with a
// steady window (Duration > 0), in increasing concurrency, compare each level c with the
// level of the smallest concurrency >= 2c (skip c when there is none); the answer is
// the first c whose comparison level has aggregate TPS < 1.10 x the aggregate TPS at c.
func (t *Tracker) Saturation() (users int, ok bool) { return saturation(t.Levels()) }

// ReportEndpoint builds the report entry of the endpoint this Tracker measures in the
// mode in use (SetRateMode): see ReportMode.
func (t *Tracker) ReportEndpoint(info EndpointInfo) ReportEndpoint {
	e, _ := t.ReportMode(info, t.RateMode())
	return e
}

// ReportMode builds the report entry of the endpoint this Tracker measures, from its
// levels of one mode (rate levels when rate, else users levels): every level (ordered
// by concurrency) with its histograms and steady windows, with floats rounded for
// reading, and the capacity and saturation its judgement claims (SetClaims, with the
// Tracker's level rule, TrackerOptions.MinRequests: the engine sets them again with the
// run's settings). ok says some level of that mode has requests or is being measured.
func (t *Tracker) ReportMode(info EndpointInfo, rate bool) (e ReportEndpoint, ok bool) {
	b := t.bookOf(rate)
	levels := b.stats(t.totals.tokensPerChunk())
	e = ReportEndpoint{
		Name:        info.Name,
		URL:         info.URL,
		Model:       info.Model,
		API:         info.API,
		Simulated:   info.Simulated,
		TokenSource: t.TokenSource(),
		Levels:      make([]ReportLevel, 0, len(levels)),
	}
	for i := range levels {
		rl := levels[i].Report()
		c := levels[i].Concurrency
		rl.Hist = b.levels[c].hists()
		rl.Windows = reportWindows(b.windows(c), info.Clock)
		e.Levels = append(e.Levels, rl)
		ok = ok || rl.Requests > 0 || rl.Open
	}
	e.SetClaims(&t.rule, info.Interrupted)
	return e, ok
}
