package report

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

func TestSummary(t *testing.T) { golden(t, "summary.md.golden", Summary(sampleReport())) }

// mdRow returns the table row of the level at concurrency c, split into cells.
func mdRow(t *testing.T, md string, c int) []string {
	t.Helper()
	for _, line := range strings.Split(md, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) > 1 && strings.TrimSpace(cells[0]) == strconv.Itoa(c) {
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			return cells
		}
	}
	t.Fatalf("no row for %d users in:\n%s", c, md)
	return nil
}

// TestMarkdownUnmeasuredIsADash checks that a distribution nothing was measured into
// shows "-", not "0.0": with one-token answers (max_tokens 1) every request succeeds
// and has a TTFT, but per-user tok/s and TPOT are not defined.
func TestSummaryUnmeasuredIsADash(t *testing.T) {
	tr := model.NewTracker(model.TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 0, 10*sec, 20, false))
	for i := range 10 {
		tr.AddSample(ok(2, time.Duration(i)*sec, 150*msec, 0, 1))
	}
	r := &model.Report{Settings: model.ReportSettings{SLO: model.DefaultSLO.Report()},
		Endpoints: []model.ReportEndpoint{tr.ReportEndpoint(model.EndpointInfo{Name: "one-token"})}}
	row := mdRow(t, Summary(r), 2)
	// users | requests | steady | errors | user p50 | p10 | aggregate | TTFT p50 | TTFT p95 | TPOT p50 | E2E p50 | stall p95 | max
	// 10 of the 20 steady requests a level needs: marked too few to judge.
	want := []string{"2", "10", "10 (too few)", "0", "-", "-", "2.0", "150.0", "150.0", "-", "150.0", "-", "-"}
	if !slices.Equal(row, want) {
		t.Errorf("row %q, want %q", row, want)
	}
}

// TestMarkdownSaturationLine checks that "not reached" is said only when some level
// was compared with one of twice its users; otherwise nothing was tested.
func TestSummarySaturationLine(t *testing.T) {
	lv := func(c int, dur, agg float64) model.ReportLevel {
		return model.ReportLevel{Concurrency: c, DurationS: dur, AggregateTPS: agg, Errors: map[string]int{},
			Requests: 40, Succeeded: 40, Steady: 40, TTFTMs: model.LatencyJSON{P50: 100, P95: 200}}
	}
	refined := func(l model.ReportLevel) model.ReportLevel { l.Refined = true; return l }
	sat := 2
	tests := []struct {
		name   string
		levels []model.ReportLevel
		sat    *int
		want   string
	}{
		{"reached", []model.ReportLevel{lv(1, 10, 80), lv(2, 10, 150), lv(4, 10, 160)}, &sat,
			"; saturates at 2 users (150 tok/s; doubling to 4 users adds less than 10%)"},
		{"compared, not reached", []model.ReportLevel{lv(1, 10, 80), lv(2, 10, 150)}, nil,
			"; saturation not reached (every doubling of users added at least 10% aggregate tok/s)"},
		{"one level", []model.ReportLevel{lv(4, 10, 300)}, nil,
			"; saturation not measured (no level measured in full was followed by one with twice its users)"},
		{"no steady window at the double", []model.ReportLevel{lv(1, 10, 80), lv(2, 0, 0)}, nil,
			"; saturation not measured (no level measured in full was followed by one with twice its users)"},
		// A ramp's level is compared with the next ramp level at least twice it when none
		// is at exactly twice (a ramp of 1, 3 or 1, 4, 16 says something); a level the
		// capacity's bisection added only with one at exactly twice it.
		{"1, 3: the next ramp level past a doubling", []model.ReportLevel{lv(1, 10, 80), lv(3, 10, 200)}, nil,
			"; saturation not reached (every doubling of users added at least 10% aggregate tok/s)"},
		{"1 refined, 3: not a doubling", []model.ReportLevel{refined(lv(1, 10, 80)), lv(3, 10, 200)}, nil,
			"; saturation not measured (no level measured in full was followed by one with twice its users)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &model.Report{Endpoints: []model.ReportEndpoint{{Name: "e", Levels: tc.levels, SaturationUsers: tc.sat}}}
			md := Summary(r)
			if !strings.Contains(md, tc.want+"\n") {
				t.Errorf("want line %q in:\n%s", tc.want, md)
			}
		})
	}
}

func TestSummaryCapacityWording(t *testing.T) {
	level := func(c int, errRate float64) model.ReportLevel {
		return model.ReportLevel{Concurrency: c, DurationS: 10, Requests: 220, Steady: 200, Succeeded: 210, ErrorRate: errRate,
			Errors: map[string]int{"http_500": 10}, TTFTMs: model.LatencyJSON{P50: 100, P95: 200}, UserTPS: model.RateJSON{P50: 50}}
	}
	r := &model.Report{Settings: model.ReportSettings{SLO: model.DefaultSLO.Report()}, Endpoints: []model.ReportEndpoint{
		{Name: "a", Levels: []model.ReportLevel{level(8, 0), level(16, 0)}, Capacity: model.ReportCap{Users: 16, AtLeast: true}},
		{Name: "b", Levels: []model.ReportLevel{level(4, 10.0/220), level(8, 0.5)}},
	}}
	md := Summary(r)
	for _, want := range []string{
		"**Verdict**: capacity at least 16 users (limit not reached: the highest level measured in full meets the criteria); saturation not reached",
		"- criteria: per-user p50 >= 30 tok/s, TTFT p95 <= 2 s, errors <= 1%\n",
		"**Verdict**: capacity none: no level measured in full meets the criteria (4 users: errors 4.55% > 1%); saturation not reached (every doubling of users added at least 10% aggregate tok/s)\n- 4 users: errors 4.55% > 1%\n- 8 users: errors 50% > 1%\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Interrupted") {
		t.Errorf("a finished run reads as interrupted:\n%s", md)
	}
	r.Interrupted = true
	md = Summary(r)
	for _, want := range []string{"**Interrupted**: the run was stopped before its end",
		"**Verdict**: capacity at least 16 users (limit not reached: the run was interrupted); saturation"} {
		if !strings.Contains(md, want) {
			t.Errorf("interrupted Markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestMarkdownNothingMeasured: a run stopped during its first level's warm-up says its
// capacity was not measured, not that no level meets the criteria.
func TestSummaryNothingMeasured(t *testing.T) {
	warmOnly := model.ReportLevel{Concurrency: 4, Requests: 3, Succeeded: 3}
	r := &model.Report{Settings: model.ReportSettings{SLO: model.DefaultSLO.Report()}, Interrupted: true,
		Endpoints: []model.ReportEndpoint{{Name: "a", Levels: []model.ReportLevel{warmOnly}}}}
	md := Summary(r)
	if !strings.Contains(md, "**Verdict**: capacity not measured (no level got past its warm-up)") || strings.Contains(md, "meets the criteria") {
		t.Errorf("Markdown:\n%s", md)
	}
	// Beside a failing level, the unmeasured one is listed as such.
	failing := model.ReportLevel{Concurrency: 2, DurationS: 10, Requests: 20, Steady: 20, Succeeded: 10, ErrorRate: 0.5,
		Errors: map[string]int{"http_500": 10}, TTFTMs: model.LatencyJSON{P50: 100, P95: 200}, UserTPS: model.RateJSON{P50: 50}}
	r.Endpoints[0].Levels = []model.ReportLevel{failing, warmOnly}
	lines := strings.Split(Summary(r), "\n")
	if !slices.Contains(lines, "- 2 users: errors 50% > 1%") ||
		!slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "- 4 users: not measured (") }) {
		t.Errorf("Markdown:\n%s", strings.Join(lines, "\n"))
	}
}

// TestMarkdownSaysMergedAndShard: the report says it merges runs, or is one shard.
func TestSummarySaysMergedAndShard(t *testing.T) {
	r := sampleReport()
	r.MergedFrom = 4
	if md := Summary(r); !strings.Contains(md, "- merged: 4 results (shards or whole runs") {
		t.Errorf("no merged line:\n%s", md)
	}
	r.MergedFrom, r.Settings.Shard = 0, &model.ReportShard{Index: 2, Count: 4}
	if md := Summary(r); !strings.Contains(md, "- shard: 2/4 ") || strings.Contains(md, "merged") {
		t.Errorf("no shard line:\n%s", md)
	}
}

// TestMarkdownSaysFixedSchedule: a run on a fixed schedule says so instead of the
// level rule.
func TestSummarySaysFixedSchedule(t *testing.T) {
	r := sampleReport()
	r.Settings.HoldS, r.Settings.MaxHoldS, r.Settings.StartAt = 10, 10, "2026-11-23T16:00:00.000Z"
	md := Summary(r)
	if !strings.Contains(md, "fixed schedule from 2026-11-23T16:00:00.000Z: each level held exactly 10 s, no early stop") ||
		strings.Contains(md, "steady requests, up to") {
		t.Errorf("ramp line does not say fixed schedule:\n%s", md)
	}
}

// TestFailingCellNotRoundedIntoAPass: a failing 29.97 tok/s was shown "30.0" beside
// "no: ... < 30". Every table shows it apart from the target.
func TestFailingCellNotRoundedIntoAPass(t *testing.T) {
	l := model.ReportLevel{Concurrency: 8, DurationS: 10, Requests: 40, Steady: 40, Succeeded: 40, Errors: map[string]int{},
		TTFTMs: model.LatencyJSON{P50: 100, P95: 2000.04}, UserTPS: model.RateJSON{P50: 29.97, P10: 25}}
	r := &model.Report{Settings: model.ReportSettings{SLO: model.DefaultSLO.Report()}, Endpoints: []model.ReportEndpoint{{Name: "e", Levels: []model.ReportLevel{l}}}}
	md := Summary(r)
	row := mdRow(t, md, 8)
	if row[4] != "29.97" || row[8] != "2000.04" {
		t.Errorf("row %q: a failing figure shown rounded onto its target", row)
	}
	if !strings.Contains(md, "- 8 users: TTFT p95 2.00004 s > 2 s; per-user p50 29.97 tok/s < 30 tok/s") {
		t.Errorf("failures:\n%s", md)
	}
}

// TestSummaryStartsWithSettings is items 6 and 8 (with model's
// TestReportStallAndSettings, which checks the JSON): the Markdown starts with the
// settings a reader needs (ignore_eos, extra_body keys, timeout) and each level shows
// its largest stall.
func TestSummaryStartsWithSettings(t *testing.T) {
	tr := model.NewTracker(model.TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 0, 10*sec, 100, false))
	for i, gap := range []time.Duration{40 * msec, 60 * msec, 900 * msec} {
		s := ok(2, time.Duration(i)*sec, 100*msec, sec, 20)
		s.MaxGap = gap
		tr.AddSample(s)
	}
	e := tr.ReportEndpoint(model.EndpointInfo{Name: "e", Model: "m", API: "completions"})
	r := &model.Report{StartedAt: "2026-11-23T14:00:00Z", ToolVersion: "v9",
		Settings: model.ReportSettings{HoldS: 20, MaxHoldS: 120, MaxTokens: 64, PromptTokens: 32, IgnoreEOS: true,
			ExtraBodyKeys: []string{"top_k"}, TimeoutS: 30, SLO: model.DefaultSLO.Report()}, Endpoints: []model.ReportEndpoint{e}}
	md := Summary(r)
	if !strings.HasPrefix(md, "## tpsmon results\n\n- run: started 2026-11-23T14:00:00Z · tpsmon v9\n- model: m\n- API: completions\n"+
		"- workload: max_tokens 64 · prompt about 32 tokens · ignore_eos on · extra_body keys top_k · timeout 30 s\n") {
		t.Errorf("Markdown does not start with the settings:\n%s", md)
	}
	if row := mdRow(t, md, 2); row[len(row)-1] != "900.0" {
		t.Errorf("stall max cell %q, want 900.0", row[len(row)-1])
	}
}

// TestSummaryServerTable: the server's view of a level (here the one model's
// TestMergeServerView merges from two shards) shows in its table beside the tokens
// tpsmon received, and the judgement's cross-check says how far apart they are.
func TestSummaryServerTable(t *testing.T) {
	fp := func(v float64) *float64 { return &v }
	l := model.ReportLevel{Concurrency: 4, DurationS: 30, Requests: 60, Steady: 60, Succeeded: 60, Errors: map[string]int{},
		TTFTMs: model.LatencyJSON{P50: 100, P95: 200}, UserTPS: model.RateJSON{P50: 50}, AggregateTPS: 200.03,
		Server: &model.ServerLevel{Scrapes: 40, WaitingMean: fp(3), WaitingMax: fp(9), RunningMean: fp(11), KVMeanPct: fp(45),
			GenTPS: fp(1050), Preemptions: fp(3)}}
	r := &model.Report{Settings: model.ReportSettings{SLO: model.DefaultSLO.Report()},
		Endpoints: []model.ReportEndpoint{{Name: "sim", Levels: []model.ReportLevel{l}}}}
	md := Summary(r)
	if !strings.Contains(md, "| 4 | 3.0 | 9 | 11.0 | 45.0 | 1050.0 | 200.0 | 3 |") ||
		!strings.Contains(md, "- cross-check at 4 users: the server generated 5.25x what tpsmon received") {
		t.Errorf("markdown:\n%s", md)
	}
	if !strings.Contains(md, "| users | waiting mean |") {
		t.Errorf("users mode: the server table's levels are not users:\n%s", md)
	}
	if !strings.Contains(md, ".\n\nServer's view") { // its own paragraph, not glued to the legend above
		t.Errorf("the server's view does not start a paragraph:\n%s", md)
	}
	asRate(r) // in rate mode its levels are arrival rates, as in every other table
	if md := Summary(r); !strings.Contains(md, "| rate req/s | waiting mean |") || strings.Contains(md, "| users |") {
		t.Errorf("rate mode: the server table's levels:\n%s", md)
	}
}

// TestSummaryTrafficRow: a level without lengths nor chunk gaps (here the one model's
// TestMergeOlderFileWithoutTrafficHists merges from an older file) shows its goodput and
// dashes for the rest.
func TestSummaryTrafficRow(t *testing.T) {
	l := model.ReportLevel{Concurrency: 4, DurationS: 30, Requests: 60, Steady: 60, Succeeded: 60, Errors: map[string]int{},
		TTFTMs: model.LatencyJSON{P50: 100, P95: 200}, UserTPS: model.RateJSON{P50: 50},
		TrafficStats: model.TrafficStats{Goodput: model.GoodputStats{Judged: 60, Met: 55, Share: 0.9167, Rate: 1.833}}}
	r := &model.Report{Settings: model.ReportSettings{SLO: model.DefaultSLO.Report()},
		Endpoints: []model.ReportEndpoint{{Name: "sim", Levels: []model.ReportLevel{l}}}}
	if md := Summary(r); !strings.Contains(md, "| 4 | 91.67% (55/60) | 1.83 | - | - | - | - | - | - | - | - | - |") {
		t.Errorf("markdown:\n%s", md)
	}
}
