package model

import (
	"fmt"
	"math"
	"time"
)

// SLO holds the capacity criteria: a level meets them when its per-user TPS p50 is at
// least UserTPSMin, its TTFT p95 at most TTFTP95Max, and its error rate at most ErrorRateMax.
type SLO struct {
	UserTPSMin   float64
	TTFTP95Max   time.Duration
	ErrorRateMax float64
	// TTFOP95Max, when above 0, is also required of a level: its time to first answer
	// token (TTFO, reasoning models) p95 at most this. 0: no TTFO criterion.
	TTFOP95Max time.Duration
	// GoodputMin, when above 0, is the least share of a level's requests that must meet
	// the per-request SLO (goodput: TTFT and the request's own tok/s, see SLO.Goodput).
	GoodputMin float64
}

// DefaultSLO is 30 tok/s per user, TTFT p95 2 s, 1% errors.
var DefaultSLO = SLO{UserTPSMin: 30, TTFTP95Max: 2 * time.Second, ErrorRateMax: 0.01}

// orDefault is s, or DefaultSLO when s is the zero value.
func (s SLO) orDefault() SLO {
	if s == (SLO{}) {
		return DefaultSLO
	}
	return s
}

// String describes the criteria, e.g.
// "per-user p50 >= 30 tok/s, TTFT p95 <= 2 s, errors <= 1%" (times as Limit says them).
func (s SLO) String() string {
	out := fmt.Sprintf("per-user p50 >= %s tok/s, TTFT p95 <= %s, errors <= %s",
		fmtNum(s.UserTPSMin, 2), Limit(ms(s.TTFTP95Max)), FormatPercent(s.ErrorRateMax))
	if s.TTFOP95Max > 0 {
		out += ", TTFO p95 <= " + Limit(ms(s.TTFOP95Max))
	}
	if s.GoodputMin > 0 {
		out += ", goodput >= " + FormatPercent(s.GoodputMin)
	}
	return out
}

// Report returns the criteria in the report's units. Values that JSON cannot carry
// (criteria set without ParseSLO, e.g. .nan or .inf in a config file) become finite:
// NaN is 0, an infinity the largest float of its sign.
func (s SLO) Report() ReportSLO {
	return ReportSLO{UserTPSMin: finite(s.UserTPSMin), TTFTP95MaxMs: ms(s.TTFTP95Max), ErrorRateMax: finite(s.ErrorRateMax),
		TTFOP95MaxMs: ms(s.TTFOP95Max), GoodputMin: finite(s.GoodputMin)}
}

// finite is v, with NaN as 0 and an infinity as the largest float of its sign.
func finite(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return 0
	case math.IsInf(v, 1):
		return math.MaxFloat64
	case math.IsInf(v, -1):
		return -math.MaxFloat64
	}
	return v
}

// Meets reports whether a level meets the criteria: it has requests, its per-user
// TPS p50 is at least UserTPSMin, its TTFT p95 at most TTFTP95Max and its error
// rate at most ErrorRateMax. A level with no TTFT measured (every request failed,
// or none sent a token) does not meet it, whatever the criteria: its p95 of 0 was
// never measured.
func (s SLO) Meets(l *LevelStats) bool { return s.meets(judgeStats(l)) }

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Goodput is the per-request form of the capacity criteria: the TTFT limit and the
// per-user tok/s target, applied to each request instead of to the level's p95 and p50.
func (s SLO) Goodput() GoodputTarget {
	s = s.orDefault()
	return GoodputTarget{TTFTMax: s.TTFTP95Max, UserTPSMin: s.UserTPSMin}
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

// meets is SLO.Meets on what a level shows.
func (s SLO) meets(j judged) bool {
	return j.requests > 0 && j.ttftMeasured && j.userP50 >= s.UserTPSMin &&
		j.ttftP95 <= ms(s.TTFTP95Max) && j.errorRate <= s.ErrorRateMax &&
		(s.TTFOP95Max <= 0 || j.ttfoMeasured && j.ttfoP95 <= ms(s.TTFOP95Max)) &&
		(s.GoodputMin <= 0 || (j.judgedGood > 0 && j.goodput >= s.GoodputMin))
}

// ReportFailures is Failures on a level of a saved report (its rounded figures), for
// the reports drawn from results files.
func (s SLO) ReportFailures(l *ReportLevel) []string { return s.failures(judgeReport(l)) }

// Failures names, in words, each criterion the level fails, e.g. "errors 4.55% > 1%"
// or "TTFT p95 3100 ms > 2000 ms"; nil when it meets them (exactly when Meets is true).
func (s SLO) Failures(l *LevelStats) []string { return s.failures(judgeStats(l)) }

func (s SLO) failures(j judged) []string {
	if j.requests == 0 {
		return []string{noRequest}
	}
	if !j.measured() {
		return []string{"not measured (" + j.notMeasuredWords() + ")"}
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

// Call decides each criterion of the level and says which curve figures are not known
// to ±CurvePrecision yet, on the intervals the level rule reads at each look
// (LookConfidence: 99%, so that its repeated looks decide at 95%), or on the level's
// 95% intervals when it has no others (a LevelStats built by hand).
func (s SLO) Call(l *LevelStats) LevelCall {
	j := judgeStats(l)
	if l.look != nil {
		j.ci = *l.look
	}
	c := LevelCall{Calls: s.calls(j)}
	if iv := j.ci.UserTPSP50; iv == nil || !iv.Within(l.UserTPS.P50, CurvePrecision) {
		c.Curve = append(c.Curve, "per-user p50")
	}
	if iv := j.ci.AggregateTPS; iv == nil || !iv.Within(l.AggregateTPS, CurvePrecision) {
		c.Curve = append(c.Curve, "aggregate tok/s")
	}
	return c
}

// ReportCalls decides each criterion of a saved level at 95%, from its rounded figures
// and intervals.
func (s SLO) ReportCalls(l *ReportLevel) []Call { return s.calls(judgeReport(l)) }

// calls decides each criterion of the SLO on what a level shows, in the order Failures
// names them.
func (s SLO) calls(j judged) []Call {
	out := []Call{
		atMost(TermTTFT, j.ci.TTFTP95, j.ttftMeasured && j.ttftP95 <= ms(s.TTFTP95Max), ms(s.TTFTP95Max), false),
		atLeast(TermUserTPS, j.ci.UserTPSP50, j.ttftMeasured && j.userP50 >= s.UserTPSMin, s.UserTPSMin, false),
		atMost(TermErrorRate, j.ci.ErrorRate, j.requests > 0 && j.errorRate <= s.ErrorRateMax, s.ErrorRateMax, true),
	}
	if s.TTFOP95Max > 0 {
		out = append(out, atMost(TermTTFO, j.ci.TTFOP95, j.ttfoMeasured && j.ttfoP95 <= ms(s.TTFOP95Max), ms(s.TTFOP95Max), false))
	}
	if s.GoodputMin > 0 {
		out = append(out, atLeast(TermGoodput, j.ci.Goodput, j.judgedGood > 0 && j.goodput >= s.GoodputMin, s.GoodputMin, true))
	}
	return out
}

// MoreRequests estimates how many more steady requests the level needs before each of
// the given criteria (SLO terms) is decided and its curve figures are known to
// ±CurvePrecision, if what it shows so far stays what it is: the largest of the
// estimates. ok is false when a criterion cannot be decided that way (its figure sits on
// its target, or nothing was measured) or needs more than maxMore.
//
// A percentile's interval is read from the level's own histogram at the ranks that n
// more samples would use; a share's Wilson interval at the same share of more
// requests; the curve's half-widths shrink as 1/sqrt(n).
func (s SLO) MoreRequests(l *LevelStats, terms []string, curve []string) (more int, ok bool) {
	n := l.UserTPS.Count
	for _, t := range terms {
		m, ok := s.moreFor(l, t)
		if !ok {
			return 0, false
		}
		more = max(more, m)
	}
	for _, c := range curve {
		var rel float64
		switch c {
		case "per-user p50":
			if iv := l.lookCI().UserTPSP50; iv != nil {
				rel = iv.HalfWidth(l.UserTPS.P50)
			}
		case "aggregate tok/s":
			if iv := l.lookCI().AggregateTPS; iv != nil {
				rel = iv.HalfWidth(l.AggregateTPS)
			}
		}
		need := 6 // the fewest samples whose median has a two-sided interval
		if rel > 0 && !math.IsInf(rel, 1) && n > 0 {
			need = int(math.Ceil(float64(n) * (rel / CurvePrecision) * (rel / CurvePrecision)))
		}
		more = max(more, min(need, maxMore+n)-n)
	}
	return max(more, 0), more <= maxMore
}

// moreFor is MoreRequests for one criterion.
func (s SLO) moreFor(l *LevelStats, term string) (int, bool) {
	switch term {
	case TermTTFT:
		return moreQuantile(l.ttftHist, 0.95, ms(s.TTFTP95Max), false)
	case TermTTFO:
		return moreQuantile(l.ttfoHist, 0.95, ms(s.TTFOP95Max), false)
	case TermUserTPS:
		return moreQuantile(l.userHist, 0.5, s.UserTPSMin, true)
	case TermErrorRate:
		k, n := l.Charged()
		return moreShare(k, n, s.ErrorRateMax, false)
	case TermGoodput:
		g := l.Traffic.Goodput
		return moreShare(g.Met, g.Judged, s.GoodputMin, true)
	}
	return 0, false
}
