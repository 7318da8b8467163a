package model

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSLOValidate(t *testing.T) {
	bad := []struct {
		name string
		slo  SLO
		term string
	}{
		{"per-user +Inf", SLO{UserTPSMin: math.Inf(1), TTFTP95Max: sec, ErrorRateMax: 0.01}, "user_tps_p50"},
		{"per-user NaN", SLO{UserTPSMin: math.NaN(), TTFTP95Max: sec, ErrorRateMax: 0.01}, "user_tps_p50"},
		{"per-user negative", SLO{UserTPSMin: -1, TTFTP95Max: sec, ErrorRateMax: 0.01}, "user_tps_p50"},
		{"TTFT 0", SLO{UserTPSMin: 30, ErrorRateMax: 0.01}, "ttft_p95"},
		{"TTFT negative", SLO{UserTPSMin: 30, TTFTP95Max: -sec, ErrorRateMax: 0.01}, "ttft_p95"},
		{"error rate NaN", SLO{UserTPSMin: 30, TTFTP95Max: sec, ErrorRateMax: math.NaN()}, "error_rate"},
		{"error rate +Inf", SLO{UserTPSMin: 30, TTFTP95Max: sec, ErrorRateMax: math.Inf(1)}, "error_rate"},
		{"error rate negative", SLO{UserTPSMin: 30, TTFTP95Max: sec, ErrorRateMax: -0.01}, "error_rate"},
		{"error rate above 1", SLO{UserTPSMin: 30, TTFTP95Max: sec, ErrorRateMax: 1.5}, "error_rate"},
	}
	for _, tc := range bad {
		err := tc.slo.Validate()
		var se *SLOError
		if !errors.As(err, &se) || se.Term != tc.term {
			t.Errorf("%s: Validate() = %v, want an *SLOError on %s", tc.name, err, tc.term)
			continue
		}
		if strings.Contains(err.Error(), "--") || strings.Contains(err.Error(), "_min") || strings.Contains(err.Error(), "_max") {
			t.Errorf("%s: %q names a flag or a config key", tc.name, err)
		}
	}
	// Everything ParseSLO accepts is valid, and so is the zero SLO (DefaultSLO).
	for _, in := range []string{"", "user_tps_p50>=0,error_rate<=0%", "error_rate<=100%", "ttft_p95<=1ns", "user_tps_p50>=1e300"} {
		slo, err := ParseSLO(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := slo.Validate(); err != nil {
			t.Errorf("ParseSLO(%q) accepted %+v but Validate says %v", in, slo, err)
		}
	}
	if err := (SLO{}).Validate(); err != nil {
		t.Errorf("zero SLO: %v", err)
	}
}

// TestReportWithAnySLOMarshals: a report carrying criteria JSON cannot hold (a config
// with user_tps_p50_min: .inf, before Validate refused it) still saves.
func TestReportWithAnySLOMarshals(t *testing.T) {
	r := &Report{Schema: Schema, Settings: ReportSettings{SLO: ReportSLO{UserTPSMin: math.Inf(1), TTFTP95MaxMs: math.NaN(), ErrorRateMax: math.Inf(-1)}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	if !strings.Contains(string(b), `"ttft_p95_max_ms":0`) || !strings.Contains(string(b), `"user_tps_min":1.7976931348623157e+308`) {
		t.Errorf("slo written as %s", b)
	}
}

func TestSLOFailures(t *testing.T) {
	lv := func(reqs, succ int, user, ttftP95, rate float64) LevelStats {
		l := LevelStats{Concurrency: 4, Requests: reqs, Succeeded: succ, ErrorRate: rate}
		if succ > 0 {
			l.TTFT = Dist{Count: succ, P95: ttftP95}
			l.UserTPS = Dist{Count: succ, P50: user}
		}
		return l
	}
	tests := []struct {
		name string
		l    LevelStats
		want []string
	}{
		{"meets", lv(100, 100, 40, 500, 0), nil},
		{"errors", lv(220, 210, 40, 500, 10.0/220), []string{"errors 4.55% > 1%"}},
		{"errors just above the limit", lv(1000, 990, 40, 500, 0.01004), []string{"errors 1.004% > 1%"}},
		{"TTFT and per-user", lv(20, 20, 25.34, 3100, 0), []string{"TTFT p95 3.10 s > 2 s", "per-user p50 25.3 tok/s < 30 tok/s"}},
		{"no request", LevelStats{Concurrency: 4}, []string{"no request ended"}},
		{"every request failed", lv(10, 0, 0, 0, 1), []string{"no TTFT measured (no steady request delivered a token)",
			"per-user tok/s not measured (needs >= 30 tok/s)", "errors 100% > 1%"}},
	}
	for _, tc := range tests {
		got := DefaultSLO.Failures(&tc.l)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Failures = %q, want %q", tc.name, got, tc.want)
		}
		if DefaultSLO.Meets(&tc.l) != (len(got) == 0) {
			t.Errorf("%s: Meets = %v but Failures = %q", tc.name, DefaultSLO.Meets(&tc.l), got)
		}
	}
}

// TestCapacityAtLeast is item 6 of issue 6: a capacity is a lower bound ("at least")
// when the highest level measured still meets the criteria, or the run was interrupted
// before a level above it was measured in full and failed. A level above that failed in
// its warm-up only was not measured in full: it bounds nothing (the one judgement).
func TestCapacityAtLeast(t *testing.T) {
	meet := func(c int) LevelStats { l := mkLevel(c, 10*sec, 40, 40, 50, 300, 100); l.Steady = 40; return l }
	fail := func(c int) LevelStats { l := mkLevel(c, 10*sec, 40, 30, 50, 300, 100); l.Steady = 40; return l }
	warmOnly := func(c int) LevelStats { l := fail(c); l.Steady, l.TTFT, l.UserTPS = 0, Dist{}, Dist{}; return l }
	empty := func(c int) LevelStats { return LevelStats{Concurrency: c, Open: true} }
	tests := []struct {
		name        string
		levels      []LevelStats
		interrupted bool
		want        ReportCap
	}{
		{"highest level meets", []LevelStats{meet(1), meet(8), meet(16)}, false, ReportCap{Users: 16, AtLeast: true}},
		{"a level above fails", []LevelStats{meet(1), meet(8), fail(16)}, false, ReportCap{Users: 8}},
		{"interrupted after a level above failed", []LevelStats{meet(1), meet(8), fail(16)}, true, ReportCap{Users: 8}},
		{"interrupted", []LevelStats{meet(1), meet(8), warmOnly(16)}, true, ReportCap{Users: 8, AtLeast: true}},
		{"the level above failed in its warm-up", []LevelStats{meet(1), meet(8), warmOnly(16)}, false, ReportCap{Users: 8, AtLeast: true}},
		{"the level above has no request yet", []LevelStats{meet(1), meet(8), empty(16)}, false, ReportCap{Users: 8, AtLeast: true}},
		{"none meets", []LevelStats{fail(1)}, true, ReportCap{}},
	}
	for _, tc := range tests {
		if got := capacityOf(tc.levels, DefaultSLO, tc.interrupted); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestReportStallAndSettings is items 6 and 8: the JSON carries each level's stall and
// the settings a reader needs (ignore_eos, extra_body keys, timeout, max hold) and each
// endpoint's own API; the Markdown starts with those settings.
func TestReportStallAndSettings(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 0, 10*sec, 100, false))
	for i, gap := range []time.Duration{40 * msec, 60 * msec, 900 * msec} {
		s := ok(2, time.Duration(i)*sec, 100*msec, sec, 20)
		s.MaxGap = gap
		tr.AddSample(s)
	}
	e := tr.ReportEndpoint(EndpointInfo{Name: "e", Model: "m", API: "completions"})
	r := &Report{StartedAt: "2026-11-23T14:00:00Z", ToolVersion: "v9",
		Settings: ReportSettings{HoldS: 20, MaxHoldS: 120, MaxTokens: 64, PromptTokens: 32, IgnoreEOS: true,
			ExtraBodyKeys: []string{"top_k"}, TimeoutS: 30, SLO: DefaultSLO.Report()}, Endpoints: []ReportEndpoint{e}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Settings  map[string]any
		Endpoints []struct {
			API    string
			Levels []struct {
				Stall LatencyJSON `json:"stall_ms"`
			}
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if st := m.Endpoints[0].Levels[0].Stall; st.Max < 899 || st.Max > 901 || st.P95 < 899 {
		t.Errorf("stall_ms %+v, want max and p95 900 ms", st)
	}
	if m.Endpoints[0].API != "completions" {
		t.Errorf("endpoint api %q", m.Endpoints[0].API)
	}
	for k, v := range map[string]any{"ignore_eos": true, "timeout_s": 30.0, "max_hold_s": 120.0, "extra_body_keys": []any{"top_k"}} {
		if got := m.Settings[k]; !jsonEqual(got, v) {
			t.Errorf("settings.%s = %v, want %v", k, got, v)
		}
	}
	// The Markdown that starts with these settings: probe/output/report's TestSummaryStartsWithSettings.
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
