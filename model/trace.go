package model

import (
	"fmt"
	"strings"
	"time"
)

// A trace run replays a recorded load on its own schedule (rate mode's open loop, each
// request at its moment). Its levels are windows of the trace, each held exactly the
// window: level n is the trace's n-th window. There is no ramp to find a capacity on;
// the question is whether the endpoint held this trace's load: every measured window
// meets the criteria.

// ReportTrace says which trace a run replayed and how (settings.trace in results.json).
type ReportTrace struct {
	File      string  `json:"file"`
	Requests  int     `json:"requests"`   // lines of the trace
	DurationS float64 `json:"duration_s"` // from its start to its last request, in the trace's own time
	Speed     float64 `json:"speed"`      // 2: twice as fast as recorded
	WindowS   float64 `json:"window_s"`   // each level is a window of this many seconds of the trace
	// Late is how many requests left more than 10 ms after their moment (the client
	// could not keep up), and LateMaxMs the latest; filled at the end of the run.
	Late      int     `json:"late"`
	LateMaxMs float64 `json:"late_max_ms"`
	// Capped is how many requests found the concurrency cap full and waited for a
	// place (the cap, not tpsmon, held them back).
	Capped int `json:"capped,omitempty"`
}

// Window is the span of trace window n (1-based) in the trace's own seconds.
func (t *ReportTrace) Window(n int) (from, to float64) {
	from = float64(n-1) * t.WindowS
	return from, min(from+t.WindowS, max(t.DurationS, from))
}

// WindowWords names window n: "window 2 (60-120 s of the trace)".
func (t *ReportTrace) WindowWords(n int) string {
	from, to := t.Window(n)
	return fmt.Sprintf("window %d (%s-%s s of the trace)", n, fmtNum(from, 2), fmtNum(to, 2))
}

// Words describes the replay: "trace FILE: 1,200 requests over 300 s, at 2x speed,
// in windows of 60 s".
func (t *ReportTrace) Words() string {
	s := fmt.Sprintf("trace %s: %d requests over %s", t.File, t.Requests, seconds(t.DurationS))
	if t.Speed != 1 {
		s += fmt.Sprintf(", at %sx speed (%s)", fmtNum(t.Speed, 3), seconds(t.DurationS/t.Speed))
	}
	return s + ", in windows of " + seconds(t.WindowS) + " of the trace"
}

// LateWords says how far behind the trace the client fell ("" when it kept up): a
// trace the client cannot keep up with is replayed late, and its load is lighter
// than recorded.
func (t *ReportTrace) LateWords() string {
	if t.Late == 0 {
		return ""
	}
	late := fmt.Sprintf("%d of %d requests left more than %s after their moment (the latest %s late)",
		t.Late, t.Requests, FormatMs(LateAfter), FormatMs(msDuration(t.LateMaxMs)))
	if t.Capped > 0 {
		return fmt.Sprintf("the trace was not replayed on time: %s; %d requests found the concurrency cap full and waited for a place: "+
			"raise the cap, or replay the trace without one", late, t.Capped)
	}
	return "tpsmon could not keep up with the trace: " + late +
		"; the load sent was lighter than the trace's: replay it slower (a lower speed), or split it over shards"
}

// TraceMode reports whether an endpoint's levels are windows of a trace.
func (e *ReportEndpoint) TraceMode() bool { return e.traceMode() }

// traceMode reports whether an endpoint's levels are windows of a trace.
func (e *ReportEndpoint) traceMode() bool {
	for i := range e.Levels {
		if len(e.Levels[i].TraceWindowS) == 2 {
			return true
		}
	}
	return false
}

// windowName names level n of a trace run by its span of the trace, "window 2
// (60-120 s of the trace)", or "window 2" when its span is not known.
func (e *ReportEndpoint) windowName(n int) string {
	for i := range e.Levels {
		if l := &e.Levels[i]; l.Concurrency == n && len(l.TraceWindowS) == 2 {
			return fmt.Sprintf("window %d (%s-%s s of the trace)", n, fmtNum(l.TraceWindowS[0], 2), fmtNum(l.TraceWindowS[1], 2))
		}
	}
	return fmt.Sprintf("window %d", n)
}

// TraceVerdict judges an endpoint that replayed a trace: held when every measured
// window meets slo, else not held, naming each failing window and its failures. The
// words never speak of a capacity: the trace's load is the one load measured.
func TraceVerdict(e *ReportEndpoint, slo SLO) (held bool, words string) {
	var fails []string
	measured := 0
	for i := range e.Levels {
		l := &e.Levels[i]
		if !judgeReport(l).measured() {
			continue
		}
		measured++
		if f := slo.ReportFailures(l); len(f) > 0 {
			fails = append(fails, e.windowName(l.Concurrency)+": "+strings.Join(f, ", "))
		}
	}
	late, arrivals := e.lateArrivals()
	behind := arrivals > 0 && float64(late) > lateShare*float64(arrivals)
	switch {
	case measured == 0:
		return false, "not measured: no window of the trace had a steady request with a token"
	case len(fails) == 0 && behind:
		return false, fmt.Sprintf("not judged at this trace's load: all %d windows met the criteria, but %d of %d requests left more than %s late, "+
			"so the load sent was lighter than the trace's", measured, late, arrivals, FormatMs(LateAfter))
	case len(fails) == 0:
		return true, fmt.Sprintf("held at this trace's load: all %d windows met the criteria", measured)
	}
	lighter := ""
	if behind {
		lighter = " (even at the lighter load sent: requests left late)"
	}
	return false, fmt.Sprintf("not held at this trace's load%s: %d of %d windows failed the criteria (%s)",
		lighter, len(fails), measured, strings.Join(fails, "; "))
}

// lateShare is the share of a trace's requests that may leave late before its verdict
// is no longer the trace's load's.
const lateShare = 0.01

// lateArrivals counts the arrivals of an endpoint's levels that left more than
// LateAfter late, and all of them.
func (e *ReportEndpoint) lateArrivals() (late, arrivals int) {
	for i := range e.Levels {
		if w := e.Levels[i].ClientWaitMs; w != nil {
			late += w.Late
			arrivals += w.Arrivals
		}
	}
	return late, arrivals
}

// writeTraceVerdict writes a trace run's verdict in place of capacity and saturation.
func writeTraceVerdict(b *strings.Builder, e *ReportEndpoint, slo SLO) {
	_, words := TraceVerdict(e, slo)
	b.WriteString("Trace: " + words + "\n")
}

// traceSettingsLines are a trace run's lines of the settings: the trace, and how late
// its requests left when tpsmon fell behind.
func traceSettingsLines(b *strings.Builder, t *ReportTrace) {
	b.WriteString("- trace: " + t.Words() + "; each level is a window of the trace, held exactly its span\n")
	if w := t.LateWords(); w != "" {
		b.WriteString("\n**Late**: " + w + ".\n")
	}
}

// msDuration is v milliseconds as a Duration.
func msDuration(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
