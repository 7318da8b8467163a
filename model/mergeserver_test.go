package model

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fp is a pointer to v.
func fp(v float64) *float64 { return &v }

// serverFiles are two reports of level 4 (each 100 tok/s received over 30 s) whose
// server's views differ in every figure, both scraped from url.
func serverFiles(t *testing.T, shards bool) (a, b *Report) {
	t.Helper()
	ta, tb, _ := trafficShards()
	var sa, sb *ReportShard
	if shards {
		sa, sb = &ReportShard{Index: 0, Count: 2}, &ReportShard{Index: 1, Count: 2}
	}
	a, b = shardReport(t, ta, sa), shardReport(t, tb, sb)
	a.Endpoints[0].ServerMetrics, b.Endpoints[0].ServerMetrics = "http://10.0.0.1:8000/metrics", "http://10.0.0.1:8000/metrics"
	a.Endpoints[0].Levels[0].Server = &ServerLevel{Scrapes: 30, WaitingMean: fp(2), WaitingMax: fp(5), RunningMean: fp(10),
		KVMeanPct: fp(40), GenTPS: fp(1000), Preemptions: fp(3)}
	b.Endpoints[0].Levels[0].Server = &ServerLevel{Scrapes: 10, WaitingMean: fp(6), WaitingMax: fp(9), RunningMean: fp(14),
		KVMeanPct: fp(60), GenTPS: fp(1200), Preemptions: fp(1)}
	return a, b
}

// TestMergeServerView: the shards of one run scraped one server: the merged view is
// the mean over all their scrapes (30 and 10), never a sum; waiting max is the
// largest; preemptions are the longest view's (shards) or the sum (whole runs, at other
// times). The received tok/s is the merged aggregate (the shards' sum) and the
// cross-check is read from the merged figures. Views of different metrics URLs, or
// of a file that names none, are left out, and the notes say so.
func TestMergeServerView(t *testing.T) {
	a, b := serverFiles(t, true)
	files := []MergeFile{{"a.json", a}, {"b.json", b}}
	got, err := Merge(files)
	if err != nil {
		t.Fatal(err)
	}
	// waiting (2x30 + 6x10)/40, running (10x30 + 14x10)/40, KV (40x30 + 60x10)/40,
	// server tok/s (1000x30 + 1200x10)/40.
	want := &ServerLevel{Scrapes: 40, WaitingMean: fp(3), WaitingMax: fp(9), RunningMean: fp(11), KVMeanPct: fp(45),
		GenTPS: fp(1050), Preemptions: fp(3)}
	e := got.Endpoints[0]
	if l := e.Levels[0]; !reflect.DeepEqual(l.Server, want) || e.ServerMetrics != "http://10.0.0.1:8000/metrics" {
		t.Errorf("merged server view %s at %q, want %s", fmtServer(l.Server), e.ServerMetrics, fmtServer(want))
	}
	// The judgement's cross-check reads the merged figures (the Markdown's server table
	// of them: probe/output/report's TestSummaryServerTable).
	if l := e.Levels[0]; l.AggregateTPS < 199.95 || l.AggregateTPS >= 200.05 { // "200.0" in the table
		t.Errorf("merged received tok/s %v, want 200 (the shards' sum)", l.AggregateTPS)
	}
	j := JudgeEndpoint(&got.Settings, &e, got.Interrupted, false)
	if !slices.ContainsFunc(j.Notes, func(n Statement) bool {
		return strings.HasPrefix(n.Text, "cross-check at 4 users: the server generated 5.25x what tpsmon received")
	}) {
		t.Errorf("notes %+v", j.Notes)
	}
	// Whole runs, one after the other: the preemptions of both.
	wa, wb := serverFiles(t, false)
	whole, err := Merge([]MergeFile{{"a.json", wa}, {"b.json", wb}})
	if err != nil {
		t.Fatal(err)
	}
	if sv := whole.Endpoints[0].Levels[0].Server; sv == nil || *sv.Preemptions != 4 || *sv.GenTPS != 1050 || sv.Scrapes != 40 {
		t.Errorf("whole runs: server view %s", fmtServer(sv))
	}
	for _, url := range []string{"http://10.0.0.2:8000/metrics", ""} {
		b.Endpoints[0].ServerMetrics = url
		got, err := Merge(files)
		if err != nil {
			t.Fatal(err)
		}
		if sv := got.Endpoints[0].Levels[0].Server; sv != nil || got.Endpoints[0].ServerMetrics != "" {
			t.Errorf("b scraped %q: merged view %s", url, fmtServer(sv))
		}
		notes := MergeNotes(files)
		if len(notes) != 1 || !strings.Contains(notes[0], `endpoint "sim": the files do not all name one server's metrics URL`) {
			t.Errorf("b scraped %q: notes %q", url, notes)
		}
	}
}

// fmtServer writes a view's figures.
func fmtServer(v *ServerLevel) string {
	if v == nil {
		return "none"
	}
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'f', 2, 64)
	}
	return "scrapes " + strings.Join([]string{strconv.Itoa(v.Scrapes), "waiting", f(v.WaitingMean), f(v.WaitingMax),
		"running", f(v.RunningMean), "kv", f(v.KVMeanPct), "tps", f(v.GenTPS), "preempt", f(v.Preemptions)}, " ")
}
