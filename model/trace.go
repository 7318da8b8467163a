package model

import (
	"fmt"
)

// A trace run replays a recorded load on its own schedule (rate mode's open loop, each
// request at its moment). Its levels are windows of the trace, each held exactly the
// window: level n is the trace's n-th window. There is no ramp to find a capacity on;
// the judgement says whether the endpoint held this trace's load (judgetrace.go).

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

// WindowWords names window n: "window 2 (60-120 s of the trace)" (WindowName).
func (t *ReportTrace) WindowWords(n int) string {
	from, to := t.Window(n)
	return WindowName(n, from, to)
}

// Words describes the replay: "trace FILE: 1200 requests over 300 s, at 2x speed
// (150 s), in windows of 60 s of the trace".
func (t *ReportTrace) Words() string {
	s := fmt.Sprintf("trace %s: %s over %s", t.File, Plural(t.Requests, "request"), seconds(t.DurationS))
	if t.Speed != 1 {
		s += fmt.Sprintf(", at %sx speed (%s)", fmtNum(t.Speed, 3), seconds(t.DurationS/t.Speed))
	}
	return s + ", in windows of " + seconds(t.WindowS) + " of the trace"
}

// LateWords says how far behind the trace the client fell ("" when it kept up): a
// trace the client cannot keep up with is replayed late, and its load is lighter
// than recorded. Up to lateShare of the requests late is within what a trace's verdict
// allows, and said so.
func (t *ReportTrace) LateWords() string {
	if t.Late == 0 {
		return ""
	}
	latest, after := MillisApart(t.LateMaxMs, ms(LateAfter)) // never "more than 10 ms ... the latest 10 ms late"
	late := fmt.Sprintf("%d of %s left more than %s after their moment (the latest %s late)",
		t.Late, Plural(t.Requests, "request"), after, latest)
	if float64(t.Late) <= lateShare*float64(t.Requests) {
		return "the trace was replayed on time: " + late + ", within the " + FormatPercent(lateShare) + " of late requests its verdict allows"
	}
	if t.Capped > 0 {
		return fmt.Sprintf("the trace was not replayed on time: %s; %d requests found the concurrency cap full and waited for a place: "+
			"raise the cap, or replay the trace without one", late, t.Capped)
	}
	return "tpsmon could not keep up with the trace: " + late +
		"; the load sent was lighter than the trace's: give tpsmon more CPU to run on (a trace is not split over shards), or replay it slower (a lower --trace-speed)"
}

// TraceMode reports whether an endpoint's levels are windows of a trace.
func (e *ReportEndpoint) TraceMode() bool {
	for i := range e.Levels {
		if len(e.Levels[i].TraceWindowS) == 2 {
			return true
		}
	}
	return false
}

// TraceRun reports whether a run with these settings replayed a trace (its levels are
// the trace's windows).
func (s *ReportSettings) TraceRun() bool { return s.Mode == "trace" || s.Trace != nil }
