package model

import (
	"strings"
	"testing"
)

func traceLevel(n int, ttftP95, userP50 float64) ReportLevel {
	return ReportLevel{Concurrency: n, Requests: 40, Steady: 40, Succeeded: 40, TraceWindowS: []float64{float64(n-1) * 60, min(float64(n)*60, 150)},
		TTFTMs: LatencyJSON{P50: ttftP95 / 2, P95: ttftP95}, UserTPS: RateJSON{P50: userP50}}
}

// TraceVerdict is a trace run's verdict as the judgement says it (JudgeEndpoint on a
// run of Mode "trace"): held or not, and the sentence.
func TraceVerdict(e *ReportEndpoint, slo SLO) (held bool, words string) {
	j := JudgeEndpoint(&ReportSettings{Mode: "trace", SLO: slo.Report()}, e, false, false)
	return j.Trace.Held(), j.Verdict.Text
}

// A trace run is held when every measured window meets the criteria; otherwise the
// failing windows are named with their span of the trace and what failed. It never
// speaks of a capacity.
func TestTraceVerdict(t *testing.T) {
	tr := &ReportTrace{File: "day.jsonl", Requests: 1200, DurationS: 150, Speed: 2, WindowS: 60}
	e := &ReportEndpoint{Levels: []ReportLevel{traceLevel(1, 800, 45), traceLevel(2, 900, 41), traceLevel(3, 700, 50)}}
	held, words := TraceVerdict(e, DefaultSLO)
	if !held || words != "held at this trace's load: all 3 windows met the criteria" {
		t.Errorf("held %v: %q", held, words)
	}
	e.Levels[1] = traceLevel(2, 3100, 22)
	held, words = TraceVerdict(e, DefaultSLO)
	want := "not held at this trace's load: 1 of 3 windows failed the criteria (window 2 (60-120 s of the trace): "
	if held || !strings.HasPrefix(words, want) || !strings.Contains(words, "TTFT p95") || strings.Contains(words, "capacity") {
		t.Errorf("held %v: %q\nwant it to begin %q and name TTFT p95", held, words, want)
	}
	if got := tr.WindowWords(3); got != "window 3 (120-150 s of the trace)" {
		t.Errorf("the last, shorter window: %q", got)
	}
	if got := tr.Words(); got != "trace day.jsonl: 1200 requests over 150 s, at 2x speed (75 s), in windows of 60 s of the trace" {
		t.Errorf("words %q", got)
	}
	if _, words := TraceVerdict(&ReportEndpoint{}, DefaultSLO); !strings.HasPrefix(words, "not measured") {
		t.Errorf("no window: %q", words)
	}
	// Sent late (a concurrency cap, a client that fell behind), a trace that met the
	// criteria was not measured at its own load.
	e.Levels[1] = traceLevel(2, 900, 41)
	for i := range e.Levels {
		e.Levels[i].ClientWaitMs = &WaitStats{Arrivals: 40, Late: 12}
	}
	if held, words := TraceVerdict(e, DefaultSLO); held || !strings.HasPrefix(words, "not judged at this trace's load: all 3 windows met the criteria, but 36 of 120 requests left more than 10 ms late") {
		t.Errorf("late: held %v, %q", held, words)
	}
	e.Levels[0] = traceLevel(1, 3000, 45)
	if _, words := TraceVerdict(e, DefaultSLO); !strings.HasPrefix(words, "not held at this trace's load (even at the lighter load sent: requests left late): 1 of 3") {
		t.Errorf("late and failing: %q", words)
	}
}

func TestTraceLateWords(t *testing.T) {
	tr := &ReportTrace{Requests: 500}
	if tr.LateWords() != "" {
		t.Error("late words for a trace that was kept up with")
	}
	tr.Late, tr.LateMaxMs = 37, 183.2
	want := "tpsmon could not keep up with the trace: 37 of 500 requests left more than 10 ms after their moment (the latest 183 ms late)"
	if got := tr.LateWords(); !strings.HasPrefix(got, want) {
		t.Errorf("%q\nwant it to begin %q", got, want)
	}
	few := ReportTrace{Requests: 300, Late: 2, LateMaxMs: 10.87}
	if got := few.LateWords(); got != "the trace was replayed on time: 2 of 300 requests left more than 10 ms after their moment (the latest 11 ms late), "+
		"within the 1% of late requests its verdict allows" {
		t.Errorf("within 1%%: %q", got)
	}
	few.LateMaxMs = 10.4
	if got := few.LateWords(); !strings.Contains(got, "more than 10 ms after their moment (the latest 10.4 ms late)") {
		t.Errorf("the latest shown apart from the limit: %q", got)
	}
	tr.Capped = 30
	if got := tr.LateWords(); !strings.Contains(got, "30 requests found the concurrency cap full") || strings.Contains(got, "tpsmon could not keep up") {
		t.Errorf("capped: %q", got)
	}
}
