package model

import (
	"strings"
	"testing"
	"time"
)

// traceRun is the results.json of a replay of one 10 s window of a 10 s trace, its 30
// arrivals each sent after waiting wait(k) on tpsmon's side, written and read back as
// merge reads it, its level named as the engine names a trace's (its span, no rate).
func traceRun(t *testing.T, start time.Duration, wait func(k int) time.Duration) *Report {
	t.Helper()
	tr := NewTracker(TrackerOptions{})
	tr.SetRateMode(true) // a trace is replayed in rate mode: its segments and samples are open loop
	sg := seg(1, 1, start, start, start+10*sec, 3000, false)
	sg.OpenLoop = true
	tr.UpdateSegment(sg)
	for k := range 30 {
		s := ok(1, start+time.Duration(k)*300*msec, 80*msec, sec, 41)
		s.OpenLoop, s.ClientWait = true, wait(k)
		tr.AddSample(s)
	}
	r := shardReport(t, tr, nil)
	r.Settings.Mode, r.Settings.Ramp, r.Settings.HoldS, r.Settings.MaxHoldS = "trace", []int{1}, 10, 0
	r.Settings.Trace = &ReportTrace{File: "day.jsonl", Requests: 30, DurationS: 10, Speed: 1, WindowS: 10}
	for i := range r.Endpoints[0].Levels {
		l := &r.Endpoints[0].Levels[i]
		l.TraceWindowS, l.Rate = []float64{0, 10}, nil
		if w := l.ClientWaitMs; w != nil {
			r.Settings.Trace.Late, r.Settings.Trace.LateMaxMs = w.Late, w.Max
		}
	}
	return r
}

// Two replays of a trace merge window by window: the window keeps its span and its
// verdict's words, the client wait is merged from its histogram and the late requests of
// both count, so that a replay sent late is not judged held once merged with one sent
// on time; and a trace merges with no other load.
func TestMergeTraceRuns(t *testing.T) {
	onTime := traceRun(t, 0, func(int) time.Duration { return 2 * msec })
	late := traceRun(t, 100*sec, func(k int) time.Duration { // 7 of 30 over 10 ms
		if k < 7 {
			return 31 * msec
		}
		return 1 * msec
	})
	if w := late.Endpoints[0].Levels[0].ClientWaitMs; w == nil || w.Late != 7 || late.Endpoints[0].Levels[0].Hist.ClientWait == nil {
		t.Fatalf("the late replay's client wait %+v (hist kept: %v)", w, late.Endpoints[0].Levels[0].Hist.ClientWait != nil)
	}
	got, err := Merge([]MergeFile{{"on-time.json", onTime}, {"late.json", late}})
	if err != nil {
		t.Fatal(err)
	}
	l := got.Endpoints[0].Levels[0]
	if l.Requests != 60 || l.Rate != nil || len(l.TraceWindowS) != 2 || l.TraceWindowS[1] != 10 {
		t.Errorf("merged window: %d requests, rate %v, span %v", l.Requests, l.Rate, l.TraceWindowS)
	}
	if w := l.ClientWaitMs; w == nil || w.Arrivals != 60 || w.Late != 7 || w.Max != 31 || w.P50 < 1.9 || w.P50 > 2.1 {
		t.Errorf("merged client wait %+v, want 60 arrivals, 7 late, the latest 31 ms, p50 about 2 ms", w)
	}
	if tr := got.Settings.Trace; tr.Late != 7 || tr.LateMaxMs != 31 || tr.File != "day.jsonl" {
		t.Errorf("merged settings.trace %+v", tr)
	}
	j := JudgeEndpoint(&got.Settings, &got.Endpoints[0], false, false)
	if want := "not judged at this trace's load: its one window met the criteria, but 7 of 60 requests left more than 10 ms late"; !strings.HasPrefix(j.Verdict.Text, want) {
		t.Errorf("merged verdict %q\nwant %q...", j.Verdict.Text, want)
	}
	if j.LevelName(1) != "window 1 (0-10 s of the trace)" {
		t.Errorf("merged window named %q", j.LevelName(1))
	}

	// A file whose open-loop level carries no client-wait histogram (an older tpsmon):
	// the merged level shows no client wait, and the notes say so.
	old := traceRun(t, 200*sec, func(int) time.Duration { return 2 * msec })
	old.Endpoints[0].Levels[0].Hist.ClientWait = nil
	files := []MergeFile{{"on-time.json", onTime}, {"old.json", old}}
	if got, err = Merge(files); err != nil || got.Endpoints[0].Levels[0].ClientWaitMs != nil {
		t.Errorf("merge with an older file: %v, client wait %+v", err, got.Endpoints[0].Levels[0].ClientWaitMs)
	}
	if n := strings.Join(MergeNotes(files), "\n"); !strings.Contains(n, `old.json: endpoint "sim" carries no client-wait histogram (written by an older tpsmon): the merged levels show no client wait nor late requests`) {
		t.Errorf("notes: %s", n)
	}

	// Another replay of the trace, or no trace at all, is another workload.
	fast := traceRun(t, 300*sec, func(int) time.Duration { return 2 * msec })
	fast.Settings.Trace.Speed = 2
	users := shardReport(t, NewTracker(TrackerOptions{}), nil)
	users.Settings.Ramp, users.Settings.HoldS, users.Settings.MaxHoldS = []int{1}, 10, 0
	for _, f := range []*Report{fast, users} {
		if _, err := Merge([]MergeFile{{"on-time.json", onTime}, {"other.json", f}}); err == nil {
			t.Errorf("merged a trace run with %+v", f.Settings)
		}
	}
	if _, err := Merge([]MergeFile{{"on-time.json", onTime}, {"fast.json", fast}}); err == nil ||
		!strings.Contains(err.Error(), "settings.trace differs: fast.json has \"30 requests over 10 s at 2x speed in windows of 10 s\"") {
		t.Errorf("a trace replayed at another speed: %v", err)
	}
}
