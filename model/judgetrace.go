package model

import (
	"strconv"
	"strings"
)

// TraceKind is what the judgement of a trace run says of the trace's load.
type TraceKind int

// The kinds of trace claims.
const (
	// TraceNotMeasured: no window of the trace was measured in full.
	TraceNotMeasured TraceKind = iota
	// TraceHeld: every window measured in full meets the criteria, and the trace was
	// sent on time.
	TraceHeld
	// TraceNotHeld: some window measured in full fails the criteria.
	TraceNotHeld
	// TraceNotJudged: every window measured in full meets the criteria, but more than
	// lateShare of the requests left more than LateAfter late: the load sent was
	// lighter than the trace's.
	TraceNotJudged
)

// lateShare is the share of a trace's requests that may leave late before its verdict
// is no longer the trace's load's.
const lateShare = 0.01

// TraceClaim is what a trace run claims instead of a capacity and a saturation (there
// is no ramp to find them on): whether the endpoint held the trace's load, judged on
// the windows measured in full, and how late the requests left.
type TraceClaim struct {
	Kind   TraceKind
	Judged int      // windows measured in full
	Failed []string // each window measured in full that fails: "window 2 (60-120 s of the trace): TTFT p95 3.10 s > 2 s"
	// Skipped are the windows listed but not measured in full (not judged).
	Skipped []int
	// Late of Arrivals requests left more than LateAfter after their moment, the latest
	// LateMaxMs late; Capped of them found the concurrency cap full.
	Late, Arrivals, Capped int
	LateMaxMs              float64
	spans                  map[int][2]float64 // each window's span, as its level recorded it
	trace                  *ReportTrace       // the run's trace: the span of a window no level recorded
}

// Held reports whether the endpoint held the trace's load.
func (c *TraceClaim) Held() bool { return c.Kind == TraceHeld }

// Words is the claim in a few words, for comparisons: "held at this trace's load",
// "not held at this trace's load", "not judged at this trace's load (sent late)",
// "trace's load not measured" (the verdict's short form).
func (c *TraceClaim) Words() string {
	switch c.Kind {
	case TraceHeld:
		return "held at this trace's load"
	case TraceNotHeld:
		return "not held at this trace's load"
	case TraceNotJudged:
		return "not judged at this trace's load (sent late)"
	}
	return "trace's load not measured"
}

// Behind reports whether more than 1% of the requests left late: the trace was not
// replayed at its own load.
func (c *TraceClaim) Behind() bool {
	return c.Arrivals > 0 && float64(c.Late) > lateShare*float64(c.Arrivals)
}

// newTraceClaim reads the windows' spans and the late requests of a trace run's
// endpoint; judge then reads the windows' judgements.
func newTraceClaim(s *ReportSettings, e *ReportEndpoint) *TraceClaim {
	c := &TraceClaim{spans: map[int][2]float64{}, trace: s.Trace}
	for i := range e.Levels {
		l := &e.Levels[i]
		if len(l.TraceWindowS) == 2 {
			c.spans[l.Concurrency] = [2]float64{l.TraceWindowS[0], l.TraceWindowS[1]}
		}
		if w := l.ClientWaitMs; w != nil {
			c.Late += w.Late
			c.Arrivals += w.Arrivals
			c.Capped += w.Capped
			if w.Late > 0 {
				c.LateMaxMs = max(c.LateMaxMs, w.Max)
			}
		}
	}
	return c
}

// windowName names window n by its span (WindowName): as its level recorded it, else as
// the run's trace cuts it, else "window n".
func (c *TraceClaim) windowName(n int) string {
	if sp, ok := c.spans[n]; ok {
		return WindowName(n, sp[0], sp[1])
	}
	if c.trace != nil && c.trace.WindowS > 0 {
		return c.trace.WindowWords(n)
	}
	return "window " + strconv.Itoa(n)
}

// judge reads the windows' judgements: held when every window measured in full meets
// the criteria, not held when one fails, not judged when they meet them but the trace
// was sent late.
func (c *TraceClaim) judge(levels []LevelJudgement) {
	for _, l := range levels {
		switch {
		case l.State.Decides():
			c.Judged++
			if !l.Meets {
				c.Failed = append(c.Failed, l.Name+": "+strings.Join(l.Failures, ", "))
			}
		case l.State != LevelNotMeasured && l.State != LevelOpen:
			c.Skipped = append(c.Skipped, l.Level)
		}
	}
	switch {
	case c.Judged == 0:
		c.Kind = TraceNotMeasured
	case len(c.Failed) > 0:
		c.Kind = TraceNotHeld
	case c.Behind():
		c.Kind = TraceNotJudged
	default:
		c.Kind = TraceHeld
	}
}

// traceVerdict says the trace claim in one sentence, never a capacity: "held at this
// trace's load: all 3 windows met the criteria", "not held at this trace's load: 1 of
// 3 windows failed the criteria (window 2 (60-120 s of the trace): TTFT p95 3.10 s >
// 2 s)", "not judged at this trace's load: ...", "not measured: ...".
func (j *EndpointJudgement) traceVerdict() Statement {
	c := j.Trace
	windows := "all " + Plural(c.Judged, "window")
	if c.Judged == 1 {
		windows = "its one window"
	}
	skipped := ""
	if len(c.Skipped) > 0 {
		windows += " measured in full"
		skipped = "; " + j.LevelNames(c.Skipped) + " not measured in full (listed, not judged)"
	}
	late := strconv.Itoa(c.Late) + " of " + Plural(c.Arrivals, "request") + " left more than " + FormatMs(LateAfter) + " late"
	st := Statement{Kind: SayVerdict}
	switch c.Kind {
	case TraceHeld:
		st.Severity = SevInfo
		st.Text = "held at this trace's load: " + windows + " met the criteria" + skipped
		st.Short = c.Words()
	case TraceNotJudged:
		st.Severity = SevWarning
		st.Text = "not judged at this trace's load: " + windows + " met the criteria, but " + late +
			", so the load sent was lighter than the trace's" + skipped
		st.Medium = "not judged at this trace's load: " + late
		st.Short = c.Words()
	case TraceNotHeld:
		lighter := ""
		if c.Behind() {
			lighter = " (even at the lighter load sent: requests left late)"
		}
		st.Severity = SevProblem
		st.Text = "not held at this trace's load" + lighter + ": " + strconv.Itoa(len(c.Failed)) + " of " + Plural(c.Judged, "window") +
			" failed the criteria (" + strings.Join(c.Failed, "; ") + ")" + skipped
		st.Medium = "not held at this trace's load: " + strconv.Itoa(len(c.Failed)) + " of " + Plural(c.Judged, "window") + " failed the criteria"
		st.Short = c.Words()
	default:
		st.Severity = SevWarning
		st.Text = "not measured: no window of the trace was measured in full"
		if len(c.Skipped) > 0 {
			st.Text += " (" + undecidedWords(j.levelsAt(c.Skipped)) + ")"
		}
		st.Short = c.Words()
	}
	return st
}

// lateNote says how far behind the trace the client fell, when some request left
// late: a warning when so many did that the verdict is not the trace's load's.
func (j *EndpointJudgement) lateNote() (Statement, bool) {
	c := j.Trace
	if c == nil || c.Late == 0 {
		return Statement{}, false
	}
	t := ReportTrace{Requests: c.Arrivals, Late: c.Late, LateMaxMs: c.LateMaxMs, Capped: c.Capped}
	sev := SevInfo
	if c.Behind() {
		sev = SevWarning
	}
	return Statement{Kind: SayLate, Severity: sev, Text: t.LateWords()}, true
}

// levelsAt is the judgements of the levels at ns.
func (j *EndpointJudgement) levelsAt(ns []int) []LevelJudgement {
	var out []LevelJudgement
	for _, n := range ns {
		if l, ok := j.Level(n); ok {
			out = append(out, l)
		}
	}
	return out
}
