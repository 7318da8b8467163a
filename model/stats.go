package model

import "time"

// Dist summarises one distribution. Times are in milliseconds, rates in tokens/s.
// Percentiles come from an HDR histogram (3 significant digits; see Hist for the
// exact precision). Count is 0 when there was nothing to measure; then every other
// field is 0.
type Dist struct {
	Count   int
	Mean    float64
	Min     float64
	P10     float64
	P50     float64
	P90     float64
	P95     float64
	P99     float64
	Max     float64
	Clamped int // values outside the histogram's range, clamped to it (see Hist)
}

// LevelStats is everything measured at one concurrency: the segments held at that
// concurrency, merged (holding the same concurrency twice merges).
//
// Counts cover every ended request of the level, warm-up included (canceled ones are
// never counted): the levels' requests and errors add up to Tracker.Totals. The
// distributions, OutputTokens and TokenSource cover the steady successful requests only
// (not warm-up, not sent before a Reset); Duration, AggregateTPS and RequestRate cover
// the steady windows.
type LevelStats struct {
	Concurrency int
	Duration    time.Duration     // total steady window
	Requests    int               // every ended request of the level, warm-up and failed ones included
	Succeeded   int               // of Requests, those that succeeded
	Steady      int               // of Requests, those that were not warm-up (failed ones included)
	Cooldown    int               // of Steady, those still in flight when the level ended (its cool-down)
	CoolErrors  map[ErrorKind]int // of Errors, the cool-down's failures, warm-up included (in no error rate)
	CoolWarmup  int               // of Requests, the warm-up ones still in flight when the level ended (in no error rate)
	Errors      map[ErrorKind]int
	// ErrorRate is charged failures / (Requests - client failures) of the requests that
	// ended while the level was held (its cool-down left out); 0 when that is 0 (see
	// ErrorKind.Charged).
	ErrorRate    float64
	TTFT         Dist    // ms
	TTFO         Dist    // ms
	TPOT         Dist    // ms
	Stall        Dist    // ms: each successful request's largest gap between two chunks
	E2E          Dist    // ms
	UserTPS      Dist    // tokens/s, per request
	SteadyTokens float64 // tokens delivered in the steady windows (chunks scaled by the tokens-per-chunk ratio); 0 without one
	AggregateTPS float64 // SteadyTokens / Duration
	RequestRate  float64 // Steady / Duration, requests/s
	OutputTokens int64   // output tokens of the level's steady successful requests
	TokenSource  string  // SourceUsage, SourceChunks or SourceMixed ("" when no steady success)
	Open         bool    // a segment at this concurrency is being measured now
	Short        bool    // held to the maximum hold before it had MinSteady steady requests (Tracker.MarkShort)

	Traffic  TrafficStats // goodput, input/output lengths and chunk gaps of the steady requests
	OpenLoop bool         // rate mode: Concurrency is the arrival rate asked for (requests/s)
	Wait     WaitStats    // rate mode: the arrivals' client-side wait for the concurrency cap
	InFlight float64      // mean requests in flight over the steady window (Little's law: sum of E2E / window)
	// Bursts counts the steady successful requests whose tokens all arrived in one burst
	// (a buffering proxy): their per-user tok/s and TPOT mean nothing, and are left out.
	Bursts int

	CI LevelCI // the 95% intervals of the level's figures
	// Undecided names the criteria (SLO terms) still undecided when the level reached its
	// maximum hold (Tracker.MarkUndecided): such a level neither sets nor bounds a capacity.
	Undecided []string
	Refined   bool // the capacity's bisection added the level (Tracker.MarkRefined)

	// look is the level's intervals at LookConfidence, what the level rule reads (nil in
	// a LevelStats built by hand: CI then stands for it). The histograms are the level's
	// own, for SLO.MoreRequests: the book's, to read before the next sample comes in.
	look                         *LevelCI
	ttftHist, ttfoHist, userHist *Hist
}

// MinSteady is how many steady requests a level of the given users must have before it
// may end: max(20, 2 x users). A level that reaches its maximum hold first is short.
func MinSteady(users int) int { return max(20, 2*users) }

// Live is the latest value of each live series (the newest complete bucket, and the
// trailing TTFT window).
type Live struct {
	At           time.Time
	AggregateTPS float64
	UserTPS      float64 // median over streams decoding the whole bucket; 0 with HasUser false
	HasUser      bool
	TTFTP50      time.Duration // over first tokens in the trailing window
	TTFTP95      time.Duration
	HasTTFT      bool
	Active       int
	Target       int
	Silent       int           // streams open with no token for more than SilentAfter (Tick.Silent)
	SilentFor    time.Duration // the longest of those silences
	// Reasoning says a request sent reasoning tokens before its answer (since the last
	// Reset): TTFO, time to the first answer token, is then worth showing beside TTFT.
	Reasoning bool
	TTFOP50   time.Duration // over the successful requests that ended in the trailing window
	TTFOP95   time.Duration
	HasTTFO   bool
}

// Bucket is one point of the live series (one per Tick).
type Bucket struct {
	Start        time.Time
	Width        time.Duration
	AggregateTPS float64 // tokens/s: Chunks scaled by the learned tokens-per-chunk ratio, over Width
	UserTPS      float64 // tokens/s: median of UserChunks (scaled) over Width; valid when HasUser
	HasUser      bool
	UserCarried  bool          // no stream decoded the whole bucket: UserTPS is the previous bucket's (see UserHold)
	TTFTP50      time.Duration // trailing window ending at this bucket; valid when HasTTFT
	TTFTP95      time.Duration
	HasTTFT      bool
	Active       int
	Target       int
	Started      int
	Finished     int
	Errors       int           // failed requests that ended in this bucket
	Silent       int           // Tick.Silent
	SilentFor    time.Duration // Tick.SilentFor
	Paused       bool          // Tick.Paused: the endpoint was paused at the bucket's end
}

// Latency converts a latency Dist (ms) to its report form, rounded to 0.01 ms.
func (d Dist) Latency() LatencyJSON {
	return LatencyJSON{
		Mean: round(d.Mean, 2), Min: round(d.Min, 2), P50: round(d.P50, 2), P90: round(d.P90, 2),
		P95: round(d.P95, 2), P99: round(d.P99, 2), Max: round(d.Max, 2),
	}
}

// Rate converts a rate Dist (tok/s) to its report form, rounded to 0.01 tok/s.
func (d Dist) Rate() RateJSON {
	return RateJSON{
		Mean: round(d.Mean, 2), Min: round(d.Min, 2), P10: round(d.P10, 2), P50: round(d.P50, 2),
		P90: round(d.P90, 2), Max: round(d.Max, 2),
	}
}

// Charged returns the level's failures charged to the endpoint and the requests its
// ErrorRate divides them by (its cool-down left out).
func (l *LevelStats) Charged() (failures, requests int) {
	return chargedCounts(withoutCooldown(l.Requests, l.Errors, l.Cooldown+l.CoolWarmup, l.CoolErrors))
}

// Measured reports whether the level can be judged against criteria: it has a steady
// request that delivered a token, or a failure charged to the endpoint (warm-up
// included). A level the load left during its warm-up, with only successes, is not.
func (l *LevelStats) Measured() bool { return judgeStats(l).measured() }

// Report converts a level to its report entry, without its histograms and windows
// (Tracker.ReportEndpoint adds them). Latencies are rounded to 0.01 ms, rates to 0.01
// tok/s, durations to 0.01 s, the error rate to 4 decimals, the request rate to 0.001
// requests/s and steady tokens to 0.001.
func (l *LevelStats) Report() ReportLevel {
	errs := make(map[string]int, len(l.Errors))
	for k, n := range l.Errors {
		errs[string(k)] = n
	}
	var cool map[string]int
	for k, n := range l.CoolErrors {
		if n > 0 {
			if cool == nil {
				cool = map[string]int{}
			}
			cool[string(k)] = n
		}
	}
	rl := ReportLevel{
		Concurrency:   l.Concurrency,
		DurationS:     round(l.Duration.Seconds(), 2),
		Requests:      l.Requests,
		Steady:        l.Steady,
		Cooldown:      l.Cooldown,
		CoolErrors:    cool,
		CoolWarmup:    l.CoolWarmup,
		Short:         l.Short,
		Succeeded:     l.Succeeded,
		Errors:        errs,
		ErrorRate:     round(l.ErrorRate, 4),
		TTFTMs:        l.TTFT.Latency(),
		TTFOMs:        l.TTFO.Latency(),
		TPOTMs:        l.TPOT.Latency(),
		E2EMs:         l.E2E.Latency(),
		StallMs:       l.Stall.Latency(),
		UserTPS:       l.UserTPS.Rate(),
		AggregateTPS:  round(l.AggregateTPS, 2),
		RequestRate:   round(l.RequestRate, 3),
		OutputTokens:  l.OutputTokens,
		SteadyTokens:  round(l.SteadyTokens, 3),
		Windows:       []ReportWindow{},
		InFlightMean:  round(l.InFlight, 2),
		TrafficStats:  l.Traffic.rounded(),
		Open:          l.Open,
		UserTPSBursts: l.Bursts,
		CI95:          l.CI.Rounded(),
		Undecided:     l.Undecided,
		Refined:       l.Refined,
	}
	if l.OpenLoop {
		rate, w := l.Concurrency, l.Wait
		w.CappedShare, w.P50, w.P95, w.Max = round(w.CappedShare, 4), round(w.P50, 2), round(w.P95, 2), round(w.Max, 2)
		rl.Rate, rl.ClientWaitMs = &rate, &w
	}
	return rl
}

// lookCI is the intervals the level rule reads: at LookConfidence, or the 95% ones of a
// LevelStats built by hand.
func (l *LevelStats) lookCI() LevelCI {
	if l.look != nil {
		return *l.look
	}
	return l.CI
}
