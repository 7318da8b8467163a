package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// Verdict is what a report says first: each series' judgement (model.JudgeEndpoint,
// the words every surface says), and each later series against the first.
type Verdict struct {
	Lines    []VerdictLine // one per series
	Criteria string        // the criteria, when every series used the same
	Changes  []string      // each later series against the first, at the highest level both measured
}

// VerdictLine is one series' judgement, labelled.
type VerdictLine struct {
	Label     string
	Judgement *model.EndpointJudgement
	Criteria  string // this series' criteria, when they differ between series
}

// Meets reports whether a capacity was found (some level measured in full meets the
// criteria), or a trace's load was held (model.EndpointJudgement.Meets).
func (l VerdictLine) Meets() bool { return l.Judgement.Meets() }

// Class is the verdict's weight as the HTML page colours it: "bad" when no level meets
// the criteria, "warn" when the capacity was not measured, "ok" otherwise.
func (l VerdictLine) Class() string {
	switch l.Judgement.Verdict.Severity {
	case model.SevProblem:
		return "bad"
	case model.SevWarning:
		return "warn"
	}
	return "ok"
}

// Text is the verdict sentence.
func (l VerdictLine) Text() string { return l.Judgement.Verdict.Text }

// Failures are the levels that fail the criteria, each with how ("4 users: per-user
// p50 28.9 tok/s < 30 tok/s").
func (l VerdictLine) Failures() []string { return l.Judgement.Failing() }

// Notes are the judgement's other statements, one line each.
func (l VerdictLine) Notes() []string {
	var out []string
	for _, n := range l.Judgement.Notes {
		out = append(out, n.Text)
	}
	return out
}

// Diagnosis is the judgement's diagnosis of the series: each finding with its weight,
// words, when it held and its evidence; that nothing wrong was seen when none held.
// Every report format shows it in its Diagnosis section.
func (l VerdictLine) Diagnosis() []model.Statement { return l.Judgement.Diagnosis }

// Diagnosed reports whether some series has a diagnosis to show.
func (v Verdict) Diagnosed() bool {
	for _, l := range v.Lines {
		if len(l.Diagnosis()) > 0 {
			return true
		}
	}
	return false
}

// VerdictOf words the verdict of every series.
func VerdictOf(series []Series) Verdict {
	var v Verdict
	same := true
	for i := range series {
		if series[i].SLO() != series[0].SLO() {
			same = false
		}
	}
	for i := range series {
		s := &series[i]
		line := VerdictLine{Label: s.Label, Judgement: &s.Judgement}
		if !same {
			line.Criteria = s.SLO().String()
		}
		v.Lines = append(v.Lines, line)
	}
	if same && len(series) > 0 {
		v.Criteria = series[0].SLO().String()
	}
	for i := 1; i < len(series); i++ {
		if c := change(&series[0], &series[i]); c != "" {
			v.Changes = append(v.Changes, c)
		}
	}
	return v
}

// Failures names each criterion level l fails, with its value and the limit, e.g.
// "errors 4.55% > 1%"; none when l meets them all. The words are the judgement's
// (model.SLO.ReportFailures), so that every report says a level's failures alike.
func Failures(l model.ReportLevel, slo model.SLO) []string { return slo.ReportFailures(&l) }

// change compares series b with series a at the highest level both measured with a
// steady window, e.g. "after vs before: capacity 4 users vs at least 8 users; at 8
// users per-user p50 26 vs 52.2 tok/s (-50.2%), ...".
func change(a, b *Series) string {
	la, lb, ok := highestCommon(a.Endpoint.Levels, b.Endpoint.Levels)
	if !ok {
		what := "number of users"
		switch {
		case a.Judgement.Trace != nil:
			what = "window of the trace"
		case a.Judgement.Rate:
			what = "rate"
		}
		return fmt.Sprintf("%s vs %s: no level with the same %s in both", b.Label, a.Label, what)
	}
	claim := "capacity " + b.Judgement.Capacity.Words(b.Judgement.Rate) + " vs " + a.Judgement.Capacity.Words(a.Judgement.Rate)
	if a.Judgement.Trace != nil && b.Judgement.Trace != nil {
		claim = b.Judgement.Trace.Words() + " vs " + a.Judgement.Trace.Words()
	}
	s := fmt.Sprintf("%s vs %s: %s; at %s per-user p50 %s vs %s tok/s (%s), aggregate %s vs %s tok/s (%s), TTFT p95 %s vs %s (%s)",
		b.Label, a.Label, claim, a.Judgement.LevelName(la.Concurrency),
		num(lb.UserTPS.P50), num(la.UserTPS.P50), Percent(la.UserTPS.P50, lb.UserTPS.P50),
		num(lb.AggregateTPS), num(la.AggregateTPS), Percent(la.AggregateTPS, lb.AggregateTPS),
		model.Millis(lb.TTFTMs.P95), model.Millis(la.TTFTMs.P95), Percent(la.TTFTMs.P95, lb.TTFTMs.P95))
	if a.Judgement.TTFO || b.Judgement.TTFO {
		s += fmt.Sprintf(", TTFO p95 %s vs %s (%s)", model.Millis(lb.TTFOMs.P95), model.Millis(la.TTFOMs.P95), Percent(la.TTFOMs.P95, lb.TTFOMs.P95))
	}
	return s
}

// highestCommon finds the levels of a and b with the highest concurrency both measured
// with a steady window.
func highestCommon(a, b []model.ReportLevel) (la, lb model.ReportLevel, ok bool) {
	for _, x := range a {
		for _, y := range b {
			if x.Concurrency == y.Concurrency && x.DurationS > 0 && y.DurationS > 0 && x.Concurrency >= la.Concurrency {
				la, lb, ok = x, y, true
			}
		}
	}
	return la, lb, ok
}

// Percent is the change from a to b in percent, signed ("+12.5%", "-3%"); from twice
// a on, as a factor ("2.4x", "169x": "+16846.8%" reads as noise); "-" when a is 0.
func Percent(a, b float64) string {
	if a == 0 {
		if b == 0 {
			return "0%"
		}
		return "-"
	}
	if r := b / a; a > 0 && r >= 2 {
		if r < 10 {
			return strings.TrimSuffix(strconv.FormatFloat(r, 'f', 1, 64), ".0") + "x"
		}
		return strconv.FormatFloat(math.Round(r), 'f', 0, 64) + "x"
	}
	p := (b - a) / a * 100
	s := strconv.FormatFloat(p, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if p >= 0.05 {
		s = "+" + s
	}
	if s == "-0" {
		s = "0"
	}
	return s + "%"
}

// num formats a figure with at most one decimal, without a trailing ".0".
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}
