package model

import "time"

// TrackerOptions configures a Tracker.
type TrackerOptions struct {
	Endpoint   int
	SLO        SLO           // capacity criteria; zero value means DefaultSLO
	TTFTWindow time.Duration // trailing window of the live TTFT series; 0 means 10 s
	History    int           // live buckets kept (ring buffer); 0 means 3600
}

// Tracker turns one endpoint's samples, ticks and segments into live series, levels,
// the degradation curve, capacity and saturation. It is not safe for concurrent use:
// one goroutine (the bench loop, or the TUI's Update) feeds it and reads it.
// Memory is bounded: a ring of buckets, and one set of histograms per concurrency.
type Tracker struct {
	// implemented in the model worktree
}

// NewTracker returns an empty Tracker.
func NewTracker(opt TrackerOptions) *Tracker { panic("not implemented") }

// AddSample records a finished request: into its level's histograms unless it is warm-up
// or canceled, into error counts (by kind, totals and the bucket it ended in), into the
// tokens-per-chunk ratio when it reported usage, and as the last error message.
func (t *Tracker) AddSample(s *Sample) { panic("not implemented") }

// AddTick appends one live bucket.
func (t *Tracker) AddTick(tk *Tick) { panic("not implemented") }

// UpdateSegment records the latest state of a segment (replacing an earlier state with the same ID).
func (t *Tracker) UpdateSegment(seg Segment) { panic("not implemented") }

// Reset forgets levels, the curve, errors and the live series (the TUI's `c`), keeping the
// learned tokens-per-chunk ratio. Segments still open keep being tracked from now on.
func (t *Tracker) Reset(now time.Time) { panic("not implemented") }

// Levels returns one LevelStats per concurrency measured, ordered by concurrency.
func (t *Tracker) Levels() []LevelStats { panic("not implemented") }

// Buckets returns up to n newest live buckets, oldest first (fewer when fewer exist).
func (t *Tracker) Buckets(n int) []Bucket { panic("not implemented") }

// Live returns the newest live values.
func (t *Tracker) Live() Live { panic("not implemented") }

// TokensPerChunk is the ratio learned from completed requests that reported usage (1 until then).
func (t *Tracker) TokensPerChunk() float64 { panic("not implemented") }

// TokenSource is SourceUsage, SourceChunks, SourceMixed, or "" before the first sample.
func (t *Tracker) TokenSource() string { panic("not implemented") }

// Totals returns requests ended, succeeded, and failed by kind, since start or Reset.
func (t *Tracker) Totals() (requests, succeeded int, errors map[ErrorKind]int) {
	panic("not implemented")
}

// LastError returns the message of the newest failed request and when it ended; it is
// cleared ("" ) once a later request succeeds.
func (t *Tracker) LastError() (msg string, at time.Time) { panic("not implemented") }

// Capacity is the largest measured concurrency whose level meets the SLO, 0 when none.
func (t *Tracker) Capacity() int { panic("not implemented") }

// Saturation is the first level after which doubling users raises aggregate TPS by less
// than 10%; ok is false when not reached (see the README for the exact rule).
func (t *Tracker) Saturation() (users int, ok bool) { panic("not implemented") }
