package model

import (
	"fmt"
	"math"
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

// Validate refuses criteria that no level could be judged by: a per-user tok/s minimum
// that is NaN, infinite or negative; a TTFT limit of 0 or less; an error-rate limit
// that is NaN or outside [0, 1]. It accepts exactly what ParseSLO accepts, and the zero
// SLO (which stands for DefaultSLO). The error is an *SLOError.
func (s SLO) Validate() error {
	if s == (SLO{}) {
		return nil
	}
	u := s.UserTPSMin
	if math.IsNaN(u) || math.IsInf(u, 0) || u < 0 {
		return &SLOError{Term: "user_tps_p50", Value: fmtFloat(u), Why: "the per-user tok/s minimum must be a finite number, 0 or more"}
	}
	if s.TTFTP95Max <= 0 {
		return &SLOError{Term: "ttft_p95", Value: s.TTFTP95Max.String(), Why: "the TTFT p95 limit must be above 0"}
	}
	e := s.ErrorRateMax
	if math.IsNaN(e) || e < 0 || e > 1 {
		return &SLOError{Term: "error_rate", Value: fmtFloat(e), Why: "the error-rate limit must be a fraction from 0 to 1 (0% to 100%)"}
	}
	if s.TTFOP95Max < 0 {
		return &SLOError{Term: "ttfo_p95", Value: s.TTFOP95Max.String(), Why: "the TTFO p95 limit must be above 0 (or absent)"}
	}
	if g := s.GoodputMin; math.IsNaN(g) || g < 0 || g > 1 {
		return &SLOError{Term: "goodput", Value: fmtFloat(g), Why: "the goodput minimum must be a fraction from 0 to 1 (0% to 100%)"}
	}
	return nil
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
}

func judgeStats(l *LevelStats) judged {
	return judged{requests: l.Requests, ttftMeasured: l.TTFT.Count > 0, userMeasured: l.UserTPS.Count > 0,
		userP50: l.UserTPS.P50, ttftP95: l.TTFT.P95, errorRate: l.ErrorRate,
		ttfoMeasured: l.TTFO.Count > 0, ttfoP95: l.TTFO.P95,
		judgedGood: l.Traffic.Goodput.Judged, goodput: l.Traffic.Goodput.Share, ci: l.CI, bursts: l.Bursts}
}

func judgeReport(l *ReportLevel) judged {
	return judged{requests: l.Requests, ttftMeasured: l.TTFTMs != (LatencyJSON{}), userMeasured: l.UserTPS != (RateJSON{}),
		userP50: l.UserTPS.P50, ttftP95: l.TTFTMs.P95, errorRate: l.ErrorRate,
		ttfoMeasured: l.TTFOMs != (LatencyJSON{}), ttfoP95: l.TTFOMs.P95,
		judgedGood: l.Goodput.Judged, goodput: l.Goodput.Share, ci: l.CI95, bursts: l.UserTPSBursts}
}

// measured reports whether the level can be judged at all: a steady request delivered
// a token, or a request failed on the endpoint. A level left in its warm-up with only
// successful requests (the load moved on before it became steady) shows nothing about
// the endpoint at its load, so it neither sets nor bounds a capacity.
func (j judged) measured() bool { return j.ttftMeasured || j.errorRate > 0 }

// Measured reports whether the level can be judged against criteria: it has a steady
// request that delivered a token, or a failure charged to the endpoint (warm-up
// included). A level the load left during its warm-up, with only successes, is not.
func (l *LevelStats) Measured() bool { return judgeStats(l).measured() }

// meets is SLO.Meets on what a level shows.
func (s SLO) meets(j judged) bool {
	return j.requests > 0 && j.ttftMeasured && j.userP50 >= s.UserTPSMin &&
		j.ttftP95 <= ms(s.TTFTP95Max) && j.errorRate <= s.ErrorRateMax &&
		(s.TTFOP95Max <= 0 || j.ttfoMeasured && j.ttfoP95 <= ms(s.TTFOP95Max)) &&
		(s.GoodputMin <= 0 || (j.judgedGood > 0 && j.goodput >= s.GoodputMin))
}

// noRequest is the failure of a level no request ended in.
const noRequest = "no request ended"

// ReportFailures is Failures on a level of a saved report (its rounded figures), for
// the reports drawn from results files.
func (s SLO) ReportFailures(l *ReportLevel) []string { return s.failures(judgeReport(l)) }

// AnyMeasured reports whether some level of a saved report is measured (as
// LevelStats.Measured): when none is, its capacity was not measured, rather than met
// by no level.
func AnyMeasured(levels []ReportLevel) bool {
	return slices.ContainsFunc(levels, func(l ReportLevel) bool { return judgeReport(&l).measured() })
}

// Failures names, in words, each criterion the level fails, e.g. "errors 4.55% > 1%"
// or "TTFT p95 3100 ms > 2000 ms"; nil when it meets them (exactly when Meets is true).
func (s SLO) Failures(l *LevelStats) []string { return s.failures(judgeStats(l)) }

func (s SLO) failures(j judged) []string {
	if j.requests == 0 {
		return []string{noRequest}
	}
	if !j.measured() {
		return []string{"not measured (the load moved on during its warm-up: no steady request delivered a token and none failed)"}
	}
	var out []string
	if why := p95Over("TTFT", "a token", j.ttftMeasured, j.ttftP95, ms(s.TTFTP95Max)); why != "" {
		out = append(out, why)
	}
	if j.userP50 < s.UserTPSMin {
		switch {
		case !j.userMeasured && j.bursts > 0:
			out = append(out, "per-user tok/s means nothing: the answers arrive in one burst (needs >= "+fmtNum(s.UserTPSMin, 2)+" tok/s)")
		case !j.userMeasured:
			out = append(out, "per-user tok/s not measured (needs >= "+fmtNum(s.UserTPSMin, 2)+" tok/s)")
		default:
			a, b := apart(j.userP50, s.UserTPSMin, 1, func(v float64, d int) string { return fmtNum(v, d) + " tok/s" })
			out = append(out, "per-user p50 "+a+" < "+b)
		}
	}
	if j.errorRate > s.ErrorRateMax {
		a, b := apart(j.errorRate*100, s.ErrorRateMax*100, 2, func(v float64, d int) string { return fmtNum(v, d) + "%" })
		out = append(out, "errors "+a+" > "+b)
	}
	if lim := ms(s.TTFOP95Max); lim > 0 {
		if why := p95Over("TTFO", "an answer token", j.ttfoMeasured, j.ttfoP95, lim); why != "" {
			out = append(out, why)
		}
	}
	if s.GoodputMin > 0 {
		switch {
		case j.judgedGood == 0:
			out = append(out, "goodput not measured (no steady request judged)")
		case j.goodput < s.GoodputMin:
			a, b := apart(j.goodput*100, s.GoodputMin*100, 1, func(v float64, d int) string { return fmtNum(v, d) + "%" })
			out = append(out, "goodput "+a+" < "+b)
		}
	}
	return out
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
