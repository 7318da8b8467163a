package report

import (
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// levelOf holds level c from start with n steady requests of TTFT ttft and 51 tokens
// over decode (per-user tok/s 50 / decode in seconds).
func levelOf(tr *model.Tracker, c, n int, ttft, decode, start time.Duration) {
	tr.UpdateSegment(seg(c, c, start, start, start+time.Duration(n)*sec, int64(n*51), false))
	for i := range n {
		tr.AddSample(ok(c, start+time.Duration(i)*sec, ttft, decode, 51))
	}
}

// TestSummarySaysHowSure: bench's Markdown shows the intervals as ± in the level table,
// marks refined and undecided levels, and says (the judgement's verdict) whether the
// capacity is decided at 95% and what fails above it.
func TestSummarySaysHowSure(t *testing.T) {
	tr := model.NewTracker(model.TrackerOptions{})
	levelOf(tr, 16, 110, 100*msec, sec, 0)             // 50 tok/s: meets at 95%
	levelOf(tr, 24, 12, 100*msec, 2*sec, 200*sec)      // 25 tok/s: fails at 95%
	levelOf(tr, 32, 12, 100*msec, 2*sec, 300*sec)      // fails
	levelOf(tr, 20, 110, 100*msec, 1600*msec, 400*sec) // 31.25 tok/s, marked undecided
	tr.MarkRefined(24)
	tr.MarkRefined(20)
	tr.MarkUndecided(20, []string{model.TermTTFT})
	r := &model.Report{Schema: model.Schema, Settings: model.ReportSettings{SLO: model.DefaultSLO.Report(), MinRequests: model.MinFloor},
		Endpoints: []model.ReportEndpoint{tr.ReportEndpoint(model.EndpointInfo{Name: "sim"})}}
	md := Summary(r)
	for _, want := range []string{
		"| 16 | 110 | 110 | 0 | 50.0 |",
		"| 20 (refined) | 110 | 110 (undecided: TTFT p95) | 0 | 31.2 |",
		"| 24 (refined) | 12 | 12 | 0 | 25.0 |",
		"- 20 users: undecided: TTFT p95 still undecided at 95% when the maximum hold ended it; listed, not judged\n",
		"- capacity refined by bisection: 20 and 24 users added between the ramp's levels\n",
		"**Verdict**: capacity 16 users, not decided at 95% (20 users stayed undecided on TTFT p95; errors 0 of 110 requests: within 1% as measured, under 3.38% at 95%); ",
		model.IntervalLegend,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	tr.MarkUndecided(20, nil) // decided after all: 20 users meets, 24 fails
	r.Endpoints[0] = tr.ReportEndpoint(model.EndpointInfo{Name: "sim"})
	if md := Summary(r); !strings.Contains(md, "**Verdict**: capacity 20 users, decided at 95% (24 users fails: per-user p50 25 tok/s < 30 tok/s; errors 0 of 110 requests: within 1% as measured, under ") {
		t.Errorf("Markdown:\n%s", md)
	}
}

// TestXTicksLeaveRoom: the curve's x labels do not print over each other when the
// capacity's bisection added levels between the ramp's: a label at least 1.45 times the
// previous one, and the last level always labelled.
func TestXTicksLeaveRoom(t *testing.T) {
	var got []string
	for _, tk := range xTicks([]float64{1, 2, 4, 8, 16, 19, 22, 23, 25, 32}, nil) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if strings.Join(got, " ") != "1 2 4 8 16 32" {
		t.Errorf("labels %v, want 1 2 4 8 16 32", got)
	}
}

// TestIntervalLegendOnlyUnderAPlusMinus: a snapshot taken with one request at 1 user has
// intervals (its error rate's) but no "±" in its table: the legend of "±" is not printed
// under it, in bench's Markdown nor in the report; a table with a ± has it.
func TestIntervalLegendOnlyUnderAPlusMinus(t *testing.T) {
	tr := model.NewTracker(model.TrackerOptions{})
	levelOf(tr, 1, 1, 20*msec, 3*sec, 0)
	r := &model.Report{Schema: model.Schema, Settings: model.ReportSettings{SLO: model.DefaultSLO.Report(), MinRequests: model.MinFloor},
		Endpoints: []model.ReportEndpoint{tr.ReportEndpoint(model.EndpointInfo{Name: "sim"})}}
	if r.Endpoints[0].Levels[0].CI95 == (model.LevelCI{}) {
		t.Fatal("the level carries no interval: the test does not test the legend")
	}
	if md := Summary(r); strings.Contains(md, "±") {
		t.Errorf("bench's Markdown shows a ± legend with no ± in its table:\n%s", md)
	}
	run, err := NewRun("a", r)
	if err != nil {
		t.Fatal(err)
	}
	runs := []*Run{run}
	if md := Markdown(runs, SeriesOf(runs)); strings.Contains(md, "±") {
		t.Errorf("the report's Markdown shows a ± legend with no ± in its table:\n%s", md)
	}
	levelOf(tr, 24, 12, 100*msec, 2*sec, 200*sec) // its aggregate shows "51.0 ± <0.1"
	r.Endpoints[0] = tr.ReportEndpoint(model.EndpointInfo{Name: "sim"})
	if md := Summary(r); !strings.Contains(md, "±") || !strings.Contains(md, model.IntervalLegend) {
		t.Errorf("a table with a ± lacks its legend:\n%s", md)
	}
}

// TestXTicksKeepTheRampsLevels: a label the bisection's level took left a ramp's level
// unlabelled: a ramp of 1, 4, 16, 32 users refined to 13 and 14 read "1 4 13 32", with
// 16 users blank; rate mode's 2, 4, 8 requests/s refined to 3 read "2 3 8", with the
// saturation's 4 requests/s blank. The ramp's levels are labelled first, the added where
// room is left, and a narrow span leaves room for more.
func TestXTicksKeepTheRampsLevels(t *testing.T) {
	for _, c := range []struct {
		xs    []float64
		added map[float64]bool
		want  string
	}{
		{[]float64{1, 4, 13, 14, 16, 32}, map[float64]bool{13: true, 14: true}, "1 4 16 32"},
		{[]float64{2, 3, 4, 8}, map[float64]bool{3: true}, "2 3 4 8"},
		{[]float64{1, 2, 4, 8, 16, 22, 23, 32}, map[float64]bool{22: true, 23: true}, "1 2 4 8 16 32"},
	} {
		var got []string
		for _, tk := range xTicks(c.xs, c.added) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("levels %v (added %v): labels %v, want %s", c.xs, c.added, got, c.want)
		}
	}
}
