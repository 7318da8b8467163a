package model

import (
	"fmt"
	"slices"
	"strconv"
)

// SLOError says which criterion of an SLO cannot be used, and why. Term is the
// criterion's name in the SLO syntax ("user_tps_p50", "ttft_p95" or "error_rate"), for
// the caller to map to where the value came from (a flag, a config key and its line).
type SLOError struct {
	Term  string
	Value string // the refused value, as text
	Why   string
}

// Error says it in words, without naming a flag or a config key.
func (e *SLOError) Error() string {
	return fmt.Sprintf("the %s criterion %s is not usable: %s", e.Term, e.Value, e.Why)
}

// fmtFloat is v in the shortest form, "+Inf", "-Inf" or "NaN" included.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// judged is what the criteria read from a level, from its stats or its report entry.
type judged struct {
	requests     int
	ttftMeasured bool
	userMeasured bool
	userP50      float64 // tok/s
	ttftP95      float64 // ms
	errorRate    float64
	ttfoMeasured bool
	ttfoP95      float64 // ms
	judgedGood   int     // requests judged for goodput
	goodput      float64 // share of them that met the per-request SLO
	ci           LevelCI // the figures' 95% intervals
	bursts       int     // steady answers that arrived in one burst (no per-user tok/s)
	steadyS      float64 // seconds of steady window: 0 when the load left it in its warm-up
}

func judgeStats(l *LevelStats) judged {
	return judged{requests: l.Requests, ttftMeasured: l.TTFT.Count > 0, userMeasured: l.UserTPS.Count > 0,
		userP50: l.UserTPS.P50, ttftP95: l.TTFT.P95, errorRate: l.ErrorRate,
		ttfoMeasured: l.TTFO.Count > 0, ttfoP95: l.TTFO.P95,
		judgedGood: l.Traffic.Goodput.Judged, goodput: l.Traffic.Goodput.Share, ci: l.CI, bursts: l.Bursts,
		steadyS: l.Duration.Seconds()}
}

func judgeReport(l *ReportLevel) judged {
	return judged{requests: l.Requests, ttftMeasured: l.TTFTMs != (LatencyJSON{}), userMeasured: l.UserTPS != (RateJSON{}),
		userP50: l.UserTPS.P50, ttftP95: l.TTFTMs.P95, errorRate: l.ErrorRate,
		ttfoMeasured: l.TTFOMs != (LatencyJSON{}), ttfoP95: l.TTFOMs.P95,
		judgedGood: l.Goodput.Judged, goodput: l.Goodput.Share, ci: l.CI95, bursts: l.UserTPSBursts,
		steadyS: l.DurationS}
}

// measured reports whether the level can be judged at all: a steady request delivered
// a token, or a request failed on the endpoint. A level left in its warm-up with only
// successful requests (the load moved on before it became steady) shows nothing about
// the endpoint at its load, so it neither sets nor bounds a capacity.
func (j judged) measured() bool { return j.ttftMeasured || j.errorRate > 0 }

// notMeasuredWords says why a level that is not measured shows nothing: the load left it
// in its warm-up, or (an interruption, a key) before a request sent in its steady time
// ended: those in flight were canceled, or ended at the next level's load.
func (j judged) notMeasuredWords() string {
	if j.steadyS > 0 {
		return "the load moved on " + seconds(j.steadyS) + " into its steady time, before a steady request ended; none failed"
	}
	return "the load moved on during its warm-up: no steady request delivered a token and none failed"
}

// noRequest is the failure of a level no request ended in.
const noRequest = "no request ended"

// AnyMeasured reports whether some level of a saved report is measured (as
// LevelStats.Measured): when none is, its capacity was not measured, rather than met
// by no level.
func AnyMeasured(levels []ReportLevel) bool {
	return slices.ContainsFunc(levels, func(l ReportLevel) bool { return judgeReport(&l).measured() })
}

// apart formats a value and its limit with dec decimals, or more (up to 6) when they
// would read the same, so that "errors 1.004% > 1%" never reads "1% > 1%".
func apart(v, limit float64, dec int, f func(float64, int) string) (string, string) {
	a, b := f(v, dec), f(limit, dec)
	for d := dec + 1; a == b && d <= 6; d++ {
		a, b = f(v, d), f(limit, d)
	}
	return a, b
}

// p95Over says why a time to a first token (name: TTFT, TTFO) fails its p95 limit in ms,
// or "" when it meets it. what is the token it waits for, for the case none arrived.
func p95Over(name, what string, measured bool, p95, limit float64) string {
	switch {
	case !measured:
		return "no " + name + " measured (no steady request delivered " + what + ")"
	case p95 > limit:
		a, b := MillisApart(p95, limit)
		return name + " p95 " + a + " > " + b
	}
	return ""
}
