package model

import "time"

// Tick is one live bucket of raw counts from one endpoint's pool, normally one
// second wide. The pool produces it; Tracker.AddTick turns it into a Bucket.
type Tick struct {
	Endpoint int
	Start    time.Time
	End      time.Time
	Target   int // target concurrency at End
	Active   int // streams in flight at End
	Paused   bool

	// Chunks is the number of token-bearing events delivered in [Start, End) across all
	// streams, those of requests that later failed included (users received them).
	Chunks int64
	// UserChunks has one entry per stream that was decoding during the whole bucket
	// (first token before Start, still open at End): the chunks it received in the bucket.
	UserChunks []int32
	// FirstTokens holds the TTFT of every request whose first token arrived in [Start, End).
	FirstTokens []time.Duration
	// FirstSends holds when each request of FirstTokens was sent, in the same order
	// (nil when the producer does not say): the diagnosis reads requests sent together.
	FirstSends []time.Time
	// Started and Finished count requests sent and ended in [Start, End).
	Started, Finished int
	// Silent counts the streams open at End that received no token for more than
	// SilentAfter (since their previous token, or since they were sent); SilentFor is
	// the longest of those silences (to the pool's tick: about one bucket).
	Silent    int
	SilentFor time.Duration
}

// SilentAfter is how long an open stream goes without a token before it counts as
// silent (Tick.Silent): longer than any healthy gap between tokens.
const SilentAfter = 2 * time.Second

// Segment is one period at a fixed target concurrency of one endpoint's pool. It is
// opened by a concurrency change or a resume, and closed by the next change, a pause,
// or the end of the run. While open, End is the time of the latest update and Open is true.
//
// Warm-up rule (measurement contract, "Levels"): a segment becomes steady at SteadyAt,
// the moment no request sent in an earlier segment is in flight any more. Requests sent
// before SteadyAt are warm-up (Sample.Warmup) and are kept out of the level's statistics;
// the level's aggregate TPS is SteadyChunks over [SteadyAt, End).
//
// An open-loop segment (a rate) warms up in rounds, because its arrivals do not wait for
// answers: those sent while a faster level's backlog drained queue behind it, and its
// first requests sent after would queue behind them. Round 0 ends when no request of an
// earlier segment is in flight; each next round waits for the segment's own requests
// sent before the round began. The segment is steady at the end of a round that found
// none in flight, or that was not shorter than RoundShrink times the round before it
// (the queue stopped draining: it is the level's own). Over capacity the rounds grow,
// so it is steady after round 1; under capacity each further round is shorter by more
// than a tenth and holds a request sent in the round before, so they end, after at
// most about ten times round 1 (the sum of the shrinking rounds) and a last round.
type Segment struct {
	Endpoint     int
	ID           int
	Concurrency  int
	Start        time.Time
	SteadyAt     time.Time // zero until the population has turned over
	End          time.Time
	Open         bool
	SteadyChunks int64 // token-bearing events delivered in [SteadyAt, End)
	// OpenLoop says the segment's Concurrency is an arrival rate (rate mode): its level is
	// a rate level, never merged with the users level of the same number.
	OpenLoop bool
}

// Steady is the length of the segment's steady window, zero when it never turned over.
func (s Segment) Steady() time.Duration {
	if s.SteadyAt.IsZero() || !s.End.After(s.SteadyAt) {
		return 0
	}
	return s.End.Sub(s.SteadyAt)
}
