package model

import (
	"slices"
	"testing"
	"time"
)

// TestDiagnosisStatements: the judgement says each finding with its weight, evidence
// and when it held; nothing wrong seen, with the requests, only once a diagnosed run
// had some; nothing at all of a run the diagnosis did not watch.
func TestDiagnosisStatements(t *testing.T) {
	fs := []Finding{
		{Rule: DiagDown, Severity: SevProblem, Text: "the server was down for 10 s", Evidence: []string{"last error: refused"}, FirstS: 21, LastS: 31},
		{Rule: DiagBack, Text: "the server is back", FirstS: 150, LastS: 150},
		{Rule: DiagQueue, Severity: SevWarning, Text: "requests queue"},
	}
	ds := DiagnosisStatements(fs, 90, 0, true)
	if len(ds) != 3 {
		t.Fatalf("%d statements", len(ds))
	}
	if d := ds[0]; d.HeldLine() != "problem: the server was down for 10 s (from 21 s to 31 s)" || !slices.Equal(d.Evidence, fs[0].Evidence) || d.Kind != DiagDown {
		t.Errorf("outage: %+v, %q", d, d.HeldLine())
	}
	if d := ds[1]; d.HeldLine() != "the server is back (at 2 min 30 s)" || d.Severity != SevInfo {
		t.Errorf("back: %+v, %q", d, d.HeldLine())
	}
	if d := ds[2]; d.HeldLine() != "warning: requests queue" {
		t.Errorf("untracked times: %q", d.HeldLine())
	}
	if ds := DiagnosisStatements(nil, 570, 0, true); len(ds) != 1 || ds[0].Text != "nothing wrong seen (570 requests)" || ds[0].Kind != SayHealthy {
		t.Errorf("healthy: %+v", ds)
	}
	if ds := DiagnosisStatements(nil, 1, 0, true); ds[0].Text != "nothing wrong seen (1 request)" {
		t.Errorf("healthy, one request: %+v", ds)
	}
	if ds := DiagnosisStatements(nil, 0, 0, true); ds != nil {
		t.Errorf("no request ended yet: %+v", ds)
	}
	if ds := DiagnosisStatements(nil, 570, 0, false); ds != nil {
		t.Errorf("never diagnosed: %+v", ds)
	}
	if ds := DiagnosisStatements(nil, 15, 3, true); len(ds) != 1 || ds[0].Kind != SayUnnamed || ds[0].Severity != SevWarning ||
		ds[0].Text != "3 requests failed and no cause was named: too few at a time to tell why" {
		t.Errorf("failures no rule named: %+v", ds)
	}
}

// TestJudgementNeverHealthyBesideFailures: a run whose levels hold failures that no
// finding named (too few at a time) is not said to be healthy on any surface: the
// judgement says how many failed; a run without failures is healthy.
func TestJudgementNeverHealthyBesideFailures(t *testing.T) {
	s := ReportSettings{}
	e := ReportEndpoint{Name: "a", Diagnosed: true, Levels: []ReportLevel{
		{Concurrency: 1, Requests: 8, Errors: map[string]int{}},
		{Concurrency: 2, Requests: 7, Errors: map[string]int{"stream_error": 2, "http_500": 1}},
	}}
	j := JudgeEndpoint(&s, &e, false, false)
	if len(j.Diagnosis) != 1 || j.Diagnosis[0].Kind != SayUnnamed ||
		j.Diagnosis[0].Text != "3 requests failed and no cause was named: too few at a time to tell why" {
		t.Errorf("failures without a finding: %+v", j.Diagnosis)
	}
	e.Levels[1].Errors = nil
	j = JudgeEndpoint(&s, &e, false, false)
	if len(j.Diagnosis) != 1 || j.Diagnosis[0].Text != "nothing wrong seen (15 requests)" {
		t.Errorf("a healthy run: %+v", j.Diagnosis)
	}
}

// TestMergeKeepsEveryDiagnosis: a merge keeps each file's findings, naming the file,
// the most telling first; it says the run was diagnosed only when every file does.
func TestMergeKeepsEveryDiagnosis(t *testing.T) {
	one := func(start time.Duration) *Report {
		tr := NewTracker(TrackerOptions{})
		tr.UpdateSegment(seg(1, 4, start, start+sec, start+11*sec, 1000, false))
		tr.AddSample(ok(4, start+2*sec, 100*msec, sec, 41))
		return shardReport(t, tr, nil)
	}
	a, b := one(0), one(100*sec)
	a.Endpoints[0].Diagnosed, b.Endpoints[0].Diagnosed = true, true
	a.Endpoints[0].Diagnosis = []Finding{{Rule: DiagStall, Severity: SevWarning, Text: "streams stall"}}
	b.Endpoints[0].Diagnosis = []Finding{{Rule: DiagDown, Severity: SevProblem, Text: "the server was down", Evidence: []string{"last error: refused"}}}
	got, err := Merge([]MergeFile{{"a.json", a}, {"b.json", b}})
	if err != nil {
		t.Fatal(err)
	}
	e := got.Endpoints[0]
	if !e.Diagnosed || len(e.Diagnosis) != 2 || e.Diagnosis[0].Rule != DiagDown || e.Diagnosis[1].Rule != DiagStall {
		t.Fatalf("merged diagnosis %+v (diagnosed %v)", e.Diagnosis, e.Diagnosed)
	}
	if ev := e.Diagnosis[0].Evidence; !slices.Equal(ev, []string{"last error: refused", "seen in b.json"}) {
		t.Errorf("evidence %q", ev)
	}
	if len(b.Endpoints[0].Diagnosis[0].Evidence) != 1 {
		t.Errorf("the merge changed its input: %q", b.Endpoints[0].Diagnosis[0].Evidence)
	}
	b.Endpoints[0].Diagnosed, b.Endpoints[0].Diagnosis = false, nil
	if got, _ := Merge([]MergeFile{{"a.json", a}, {"b.json", b}}); got.Endpoints[0].Diagnosed {
		t.Error("diagnosed, although b.json was not")
	}
}

// TestOutageLastsWhatItsTimesSay: an outage said "from 5 s to 11 s" lasted 6 s in the
// same sentence, whatever the fractions of a second before rounding (4.6 s to 11.4 s).
func TestOutageLastsWhatItsTimesSay(t *testing.T) {
	o := Outage{From: diagT0.Add(4600 * time.Millisecond), To: diagT0.Add(11400 * time.Millisecond), Failed: 20,
		Cause: "connections refused", Answered: true}
	fs := OutageFindings(diagT0, diagT0.Add(time.Minute), []Outage{o}, nil)
	want := "the server was down for 6 s: connections refused from 5 s to 11 s, 20 requests failed"
	if len(fs) != 1 || fs[0].Text != want {
		t.Errorf("got %+v\nwant %q", fs, want)
	}
}

// TestSpreadSaysAClosePerUserP50: an interval narrower than the last decimal shown is
// "<0.1" (known that closely), never the dash that means "no interval".
func TestSpreadSaysAClosePerUserP50(t *testing.T) {
	for _, c := range []struct {
		v      float64
		iv     *Interval
		dec    int
		want   string
		plusMi string
	}{
		{30.7, &Interval{Lo: 30.68, Hi: 30.73}, 1, "<0.1", "30.7 ± <0.1"},
		{30.7, &Interval{Lo: 30.3, Hi: 31.1}, 1, "0.4", "30.7 ± 0.4"},
		{130, &Interval{Lo: 129.8, Hi: 130.3}, 0, "<1", "130 ± <1"},
		{30.7, nil, 1, "", "30.7"},
		{30.7, &Interval{Lo: 0, Hi: 40}, 1, "", "30.7"},
		{30.7, &Interval{Lo: 30.7, Hi: 30.7}, 1, "", "30.7"},
	} {
		if got := Spread(c.v, c.iv, c.dec); got != c.want {
			t.Errorf("Spread(%v, %+v, %d) = %q, want %q", c.v, c.iv, c.dec, got, c.want)
		}
		if got := PlusMinus(c.v, c.iv, 0, c.dec, false); got != c.plusMi {
			t.Errorf("PlusMinus(%v, %+v) = %q, want %q", c.v, c.iv, got, c.plusMi)
		}
	}
}
