package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// Verdict is what a report says first: each series' judgement (model.JudgeEndpoint,
// the words every surface says), and each later series against the first.
type Verdict struct {
	Lines    []VerdictLine // one per series
	Criteria string        // the criteria, when every series used the same
	Changes  []ChangeLine  // each later series against the first, judged as compare judges them
}

// ChangeLine is a later series against the first, judged by compare's rule and said in
// its words: the result ("small-gpu vs base: small-gpu is worse than base; capacity 2
// users vs at least 8 users (thresholds: ...)"), and as Items each regression and each
// change beyond the thresholds that the 95% intervals do not decide, the same sentences
// compare lists for the same two files. Two series whose runs compare would not compare
// (another ramp, workload or criteria) are said not compared, and why.
type ChangeLine struct {
	Text  string
	Items []string
	Worse bool // some regression was called
}

// Class is the line's weight as the HTML page colours it: "bad" when a regression was
// called, "" otherwise.
func (c ChangeLine) Class() string {
	if c.Worse {
		return "bad"
	}
	return ""
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
		v.Changes = append(v.Changes, change(&series[0], &series[i]))
	}
	return v
}

// Failures names each criterion level l fails, with its value and the limit, e.g.
// "errors 4.55% > 1%"; none when l meets them all. The words are the judgement's
// (model.SLO.ReportFailures), so that every report says a level's failures alike.
func Failures(l model.ReportLevel, slo model.SLO) []string { return slo.ReportFailures(&l) }

// change judges series b (NEW) against series a (BASE) as compare judges two runs, with
// the default thresholds: the same calls (model.Change.Call on every figure of every
// level both measured, the capacity's or the trace's claim) said in the same sentences
// (callWords), so that a report and compare never disagree on what regressed. Series of
// two runs that compare would refuse (another mode, ramp, workload or criteria) are
// said not compared, with compare's reasons.
func change(a, b *Series) ChangeLine {
	p := endpointPair{name: b.Label + " vs " + a.Label, base: *a, next: *b}
	var mismatches []string
	if a.Run != b.Run {
		mismatches, _ = settingsDiff(a.Run, b.Run)
	}
	mismatches = append(mismatches, p.mismatches()...)
	if len(mismatches) > 0 {
		return ChangeLine{Text: p.name + ": not compared (BASE " + a.Label + ", NEW " + b.Label + "): " + strings.Join(mismatches, "; ")}
	}
	th := DefaultThresholds
	j := p.judge(th)
	claim := "capacity " + p.capWords(b) + " vs " + p.capWords(a)
	if a.Judgement.Trace != nil && b.Judgement.Trace != nil {
		claim = b.Judgement.Trace.Words() + " vs " + a.Judgement.Trace.Words()
	}
	items := append(slices.Clip(j.calls.regs), j.calls.undecided...)
	if j.calls.onPoints {
		items = append(items, noIntervals(a.Label, b.Label, !a.Judgement.Intervals, !b.Judgement.Intervals))
	}
	return ChangeLine{
		Text:  fmt.Sprintf("%s: %s; %s (thresholds: %s)", p.name, resultWords(b.Label, a.Label, j.calls), claim, th),
		Items: items,
		Worse: len(j.calls.regs) > 0,
	}
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
