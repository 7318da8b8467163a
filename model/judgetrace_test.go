package model

import (
	"strings"
	"testing"
)

// A trace run is judged as every run is (JudgeEndpoint, ReportSettings.LevelState): a
// window needs 20 steady requests whatever its number, one short of them is listed but
// not judged, the claims are the trace's (no capacity, no saturation), every statement
// names windows by their span, and requests sent late say so in a note.
func TestJudgeATraceRun(t *testing.T) {
	tr := &ReportTrace{File: "day.jsonl", Requests: 400, DurationS: 120, Speed: 1, WindowS: 10}
	s := &ReportSettings{Mode: "trace", Trace: tr, Ramp: []int{11, 12, 13}, SLO: DefaultSLO.Report()}
	win := func(n, steady int) ReportLevel {
		l := ReportLevel{Concurrency: n, Requests: steady, Steady: steady, Succeeded: steady, DurationS: 10, AggregateTPS: 400,
			TTFTMs: LatencyJSON{P50: 80, P95: 150}, UserTPS: RateJSON{P50: 45}, TraceWindowS: []float64{float64(n-1) * 10, float64(n) * 10},
			ClientWaitMs: &WaitStats{Arrivals: steady, Max: 4}}
		l.Short = steady < 20
		return l
	}
	e := &ReportEndpoint{Name: "gpu", RampEnd: RampEndFinished, Levels: []ReportLevel{win(11, 20), win(12, 22), win(13, 12)}}
	j := JudgeEndpoint(s, e, false, false)
	if j.Trace == nil || j.Rate || j.LevelColumn() != "window" {
		t.Fatalf("not judged as a trace: %+v", j)
	}
	if j.Levels[0].State != LevelFull || j.Levels[2].State != LevelShort {
		t.Errorf("states %v %v: a window needs 20 steady requests, whatever its number", j.Levels[0].State, j.Levels[2].State)
	}
	if got := j.Levels[2].StateWords; got != "short: 12 of 20 steady requests in the window" {
		t.Errorf("short words %q", got)
	}
	// A window marked short whose requests ended after it (an overloaded server) has
	// its 22 steady requests: measured in full.
	e.Levels[1].Short = true
	if st := s.LevelState(&e.Levels[1], false); st != LevelFull {
		t.Errorf("a window with 22 steady requests, marked short at its end: %v", st)
	}
	e.Levels[1].Short = false
	want := "held at this trace's load: all 2 windows measured in full met the criteria; window 13 (120-130 s of the trace) not measured in full (listed, not judged)"
	if j.Verdict.Text != want || j.Verdict.Short != "held at this trace's load" || j.Verdict.Severity != SevInfo || !j.Meets() {
		t.Errorf("verdict %q (short %q, %s)\nwant %q", j.Verdict.Text, j.Verdict.Short, j.Verdict.Severity, want)
	}
	if j.Capacity.Kind != CapNotMeasured || j.Saturation.Kind != SatNotMeasured || j.Capacity.Report() != (ReportCap{}) {
		t.Errorf("a trace run claims a capacity or a saturation: %+v %+v", j.Capacity, j.Saturation)
	}
	notes := ""
	for _, n := range j.Notes {
		notes += n.Text + "\n"
	}
	for _, w := range []string{"trace replay finished: every window was replayed; window 13 (120-130 s of the trace) had fewer steady requests than a window needs (short)",
		"window 13 (120-130 s of the trace): short: 12 of 20 steady requests in the window; listed, not judged"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if strings.Contains(notes, "user") || strings.Contains(notes, "late") {
		t.Errorf("notes speak of users, or of lateness in a trace sent on time:\n%s", notes)
	}

	// A window measured in full that fails is named in the verdict with what failed; the
	// list of failing levels adds only a window not measured in full (with its state).
	e.Levels[0].ErrorRate, e.Levels[0].Errors = 0.1, map[string]int{"http_500": 2}
	e.Levels[2].ErrorRate, e.Levels[2].Errors = 0.25, map[string]int{"http_500": 3}
	j = JudgeEndpoint(s, e, false, false)
	if !strings.HasPrefix(j.Verdict.Text, "not held at this trace's load: 1 of 2 windows failed the criteria (window 11 (100-110 s of the trace): errors 10% > 1%)") {
		t.Errorf("a failing window: %q", j.Verdict.Text)
	}
	if got := strings.Join(j.Failing(), "\n"); got != "window 13 (120-130 s of the trace) (short: 12 of 20 steady requests in the window): errors 25% > 1%" {
		t.Errorf("failing levels beside the verdict: %q", got)
	}
	e.Levels[0].ErrorRate, e.Levels[0].Errors, e.Levels[2].ErrorRate, e.Levels[2].Errors = 0, nil, 0, nil

	// One late request in each window: 3 of 54, over the 1% that may be late.
	for i := range e.Levels {
		e.Levels[i].ClientWaitMs.Late, e.Levels[i].ClientWaitMs.Max = 1, 35
	}
	j = JudgeEndpoint(s, e, false, false)
	if j.Trace.Kind != TraceNotJudged || !strings.HasPrefix(j.Verdict.Text, "not judged at this trace's load: all 2 windows measured in full met the criteria, but 3 of 54 requests left more than 10 ms late") {
		t.Errorf("late: %q", j.Verdict.Text)
	}
	late := ""
	for _, n := range j.Notes {
		if n.Kind == SayLate {
			late = string(n.Severity) + ": " + n.Text
		}
	}
	if late != "warning: tpsmon could not keep up with the trace: 3 of 54 requests left more than 10 ms after their moment (the latest 35 ms late); "+
		"the load sent was lighter than the trace's: give tpsmon more CPU to run on (a trace is not split over shards), or replay it slower (a lower --trace-speed)" {
		t.Errorf("late note %q", late)
	}

	// No window measured in full: nothing is claimed, and the verdict says why.
	e.Levels = []ReportLevel{win(1, 5)}
	j = JudgeEndpoint(s, e, false, false)
	if j.Trace.Kind != TraceNotMeasured || j.Verdict.Text != "not measured: no window of the trace was measured in full (window 1 (0-10 s of the trace) short: 5 of 20 steady requests in the window)" {
		t.Errorf("nothing in full: %q", j.Verdict.Text)
	}
}

func TestWindowWords(t *testing.T) {
	if got := WindowName(2, 9.6412, 19.29); got != "window 2 (9.64-19.29 s of the trace)" {
		t.Errorf("WindowName %q", got)
	}
	if got := Names([]string{"a", "b", "c"}); got != "a, b and c" {
		t.Errorf("Names %q", got)
	}
	if LevelColumn(false, false) != "users" || LevelColumn(true, false) != "rate req/s" || LevelColumn(true, true) != "window" {
		t.Error("LevelColumn")
	}
}
