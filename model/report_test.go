package model

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func keys(t *testing.T, v any) []string {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not a JSON object: %#v", v)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func sorted(ks ...string) []string { slices.Sort(ks); return ks }

func TestReportEndpointJSONShape(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 1, 0, sec, 11*sec, 1000, false))
	for i := range 20 { // the 20 steady requests a level of 1 user needs to be measured in full
		tr.AddSample(ok(1, sec+time.Duration(i)*sec/2, 123456*time.Microsecond, sec, 51))
	}
	e := tr.ReportEndpoint(EndpointInfo{Name: "sim", URL: "http://127.0.0.1:1/v1", Model: "m", Simulated: true})
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"saturation_users":null`, `"capacity":{"users":1,"at_least":true}`, `"errors":{}`, `"token_source":"usage"`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if got, want := keys(t, m), sorted("name", "url", "model", "api", "simulated", "token_source", "levels", "capacity", "saturation_users"); !slices.Equal(got, want) {
		t.Errorf("endpoint keys %v, want %v", got, want)
	}
	lv := m["levels"].([]any)[0]
	if got, want := keys(t, lv), sorted("concurrency", "duration_s", "requests", "steady_requests", "short", "succeeded", "errors", "error_rate",
		"ttft_ms", "ttfo_ms", "tpot_ms", "e2e_ms", "stall_ms", "user_tps", "aggregate_tps", "request_rate", "output_tokens",
		"steady_tokens", "windows", "hist", "in_flight_mean", "goodput", "lengths", "chunk_gap_ms"); !slices.Equal(got, want) {
		t.Errorf("level keys %v, want %v", got, want)
	}
	lm := lv.(map[string]any)
	if got, want := keys(t, lm["hist"]), sorted("ttft", "ttfo", "tpot", "e2e", "stall", "user_tps", "input_tokens", "output_tokens", "chunk_gap"); !slices.Equal(got, want) {
		t.Errorf("hist keys %v, want %v", got, want)
	}
	if got, want := keys(t, lm["hist"].(map[string]any)["chunk_gap"]), sorted("unit", "sub_buckets", "count", "buckets"); !slices.Equal(got, want) {
		t.Errorf("hist.chunk_gap keys %v, want %v", got, want)
	}
	ttft := lm["hist"].(map[string]any)["ttft"].(map[string]any)
	if got, want := keys(t, ttft), sorted("unit", "count", "sum", "min", "max", "clamped", "hdr"); !slices.Equal(got, want) {
		t.Errorf("hist.ttft keys %v, want %v", got, want)
	}
	if ttft["unit"] != "us" || ttft["count"] != 20.0 || ttft["min"] != 123456.0 || ttft["sum"] != 20*123456.0 {
		t.Errorf("hist.ttft = %v", ttft)
	}
	// The steady window [1 s, 11 s] of segment 1, in UTC with ms (t0 is the Unix epoch).
	if got := lm["windows"]; !reflect.DeepEqual(got, []any{map[string]any{"start": "1970-01-01T00:00:01.000Z", "end": "1970-01-01T00:00:11.000Z"}}) {
		t.Errorf("windows = %v", got)
	}
	if lm["steady_tokens"] != 1000.0 {
		t.Errorf("steady_tokens = %v, want 1000", lm["steady_tokens"])
	}
	lat := sorted("mean", "min", "p50", "p90", "p95", "p99", "max")
	for _, k := range []string{"ttft_ms", "ttfo_ms", "tpot_ms", "e2e_ms", "stall_ms"} {
		if got := keys(t, lm[k]); !slices.Equal(got, lat) {
			t.Errorf("%s keys %v, want %v", k, got, lat)
		}
	}
	if got, want := keys(t, lm["user_tps"]), sorted("mean", "min", "p10", "p50", "p90", "max"); !slices.Equal(got, want) {
		t.Errorf("user_tps keys %v, want %v", got, want)
	}
	// Rounding: 123.456 ms -> 123.46; 50 tok/s exact; 1000 chunks over 10 s.
	if got := lm["ttft_ms"].(map[string]any)["p50"]; got != 123.46 {
		t.Errorf("ttft p50 %v, want 123.46", got)
	}
	if lm["aggregate_tps"] != 100.0 || lm["duration_s"] != 10.0 || lm["request_rate"] != 2.0 {
		t.Errorf("aggregate %v duration %v rate %v", lm["aggregate_tps"], lm["duration_s"], lm["request_rate"])
	}

	// Saturation reached, errors present, capacity none: both levels measured in full
	// (20 steady requests each), 2 users failing on errors.
	tr = NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 1, 0, sec, 11*sec, 1000, false))
	tr.UpdateSegment(seg(2, 2, 11*sec, 12*sec, 22*sec, 1050, false))
	for i := range 20 {
		tr.AddSample(ok(1, sec+time.Duration(i)*sec/2, 100*msec, sec, 51))
		tr.AddSample(ok(2, 12*sec+time.Duration(i)*sec/2, 100*msec, sec, 51))
	}
	tr.AddSample(failed(2, 15*sec, HTTPError(429), "slow down"))
	e = tr.ReportEndpoint(EndpointInfo{Name: "x"})
	b, _ = json.Marshal(e)
	for _, want := range []string{`"saturation_users":1`, `"capacity":{"users":1,"at_least":false}`, `"errors":{"http_429":1}`, `"token_source":"usage"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
}

// sampleReport is a small hand-made report with two endpoints.
func sampleReport() *Report {
	rate4 := 4
	sat := 8
	return &Report{
		Schema: Schema, ToolVersion: "v1.2.3", StartedAt: "2026-11-23T14:00:00Z", FinishedAt: "2026-11-23T14:02:10Z",
		Settings: ReportSettings{Ramp: []int{1, 8, 16}, HoldS: 15, MaxHoldS: 120, API: "chat", MaxTokens: 256, PromptTokens: 128,
			IgnoreEOS: true, ExtraBodyKeys: []string{"top_k", "chat_template_kwargs"}, TimeoutS: 60, SLO: DefaultSLO.Report()},
		Endpoints: []ReportEndpoint{
			{
				Name: "sim", URL: "http://127.0.0.1:8080/v1", Model: "sim-8b", API: "chat", Simulated: true, TokenSource: SourceUsage,
				Levels: []ReportLevel{
					{Concurrency: 1, DurationS: 15, Requests: 13, Steady: 12, Succeeded: 13, Errors: map[string]int{}, ErrorRate: 0,
						TTFTMs: LatencyJSON{P50: 85.25, P95: 101.5, P99: 110}, TPOTMs: LatencyJSON{P50: 12.5}, E2EMs: LatencyJSON{P50: 3260.4},
						TTFOMs:  LatencyJSON{P50: 1650.5, P95: 1900},
						StallMs: LatencyJSON{P95: 40.5, Max: 61},
						UserTPS: RateJSON{P10: 78.4, P50: 80.05, P90: 81}, AggregateTPS: 79.9, RequestRate: 0.8, OutputTokens: 3072},
					{Concurrency: 8, DurationS: 14.5, Requests: 90, Steady: 80, Succeeded: 87, Errors: map[string]int{"http_500": 1, "truncated": 0, "client": 2}, ErrorRate: 0.0114,
						TTFTMs: LatencyJSON{P50: 160, P95: 410.25, P99: 500}, TPOTMs: LatencyJSON{P50: 22.2}, E2EMs: LatencyJSON{P50: 5800},
						TTFOMs:  LatencyJSON{P50: 1749, P95: 2300.5}, // a reasoning model: the answer starts after the thinking
						StallMs: LatencyJSON{P95: 80, Max: 2100.25},
						UserTPS: RateJSON{P10: 40, P50: 45.04, P90: 47}, AggregateTPS: 355.55, RequestRate: 5.517, OutputTokens: 20224,
						InFlightMean: 7.9, TrafficStats: TrafficStats{Goodput: GoodputStats{Judged: 80, Met: 76, Share: 0.95, Rate: 5.241},
							Lengths:   LengthStats{Input: LengthSummary{Count: 78, Mean: 130.5, P50: 131, P90: 140}, Output: LengthSummary{Count: 78, Mean: 250, P50: 256, P90: 256}},
							ChunkGaps: GapStats{Count: 19000, P50: 21.5, P90: 30.25, P99: 80.5}}},
					{Concurrency: 16, DurationS: 0, Requests: 0, Succeeded: 0, Errors: map[string]int{}},
				},
				Capacity: ReportCap{Users: 1}, SaturationUsers: &sat,
			},
			{
				Name: "prod, eu", URL: "https://llm.example/v1", Model: "big", API: "completions", TokenSource: SourceChunks,
				Levels: []ReportLevel{
					{Concurrency: 4, DurationS: 15, Requests: 12, Steady: 10, Short: true, Succeeded: 12, Errors: map[string]int{},
						TTFTMs: LatencyJSON{P50: 2500, P95: 3100}, UserTPS: RateJSON{P50: 20}, AggregateTPS: 80, RequestRate: 0.667, OutputTokens: 2560,
						Rate: &rate4, InFlightMean: 3.5, ClientWaitMs: &WaitStats{Arrivals: 12, Capped: 3, CappedShare: 0.25, P50: 0.5, P95: 120, Max: 300}},
				},
			},
		},
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./model/ -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func TestMarkdown(t *testing.T) { golden(t, "report.md.golden", Markdown(sampleReport())) }

func TestCSV(t *testing.T) { golden(t, "report.csv.golden", CSV(sampleReport())) }

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
func TestMarkdownUnmeasuredIsADash(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 0, 10*sec, 20, false))
	for i := range 10 {
		tr.AddSample(ok(2, time.Duration(i)*sec, 150*msec, 0, 1))
	}
	r := &Report{Settings: ReportSettings{SLO: DefaultSLO.Report()},
		Endpoints: []ReportEndpoint{tr.ReportEndpoint(EndpointInfo{Name: "one-token"})}}
	row := mdRow(t, Markdown(r), 2)
	// users | requests | steady | errors | user p50 | p10 | aggregate | TTFT p50 | TTFT p95 | TPOT p50 | E2E p50 | stall p95 | max
	// 10 of the 20 steady requests a level needs: marked too few to judge.
	want := []string{"2", "10", "10 (too few)", "0", "-", "-", "2.0", "150.0", "150.0", "-", "150.0", "-", "-"}
	if !slices.Equal(row, want) {
		t.Errorf("row %q, want %q", row, want)
	}
}

// TestMarkdownSaturationLine checks that "not reached" is said only when some level
// was compared with one of at least twice its users; otherwise nothing was tested.
func TestMarkdownSaturationLine(t *testing.T) {
	lv := func(c int, dur, agg float64) ReportLevel {
		return ReportLevel{Concurrency: c, DurationS: dur, AggregateTPS: agg, Errors: map[string]int{},
			Requests: 40, Succeeded: 40, Steady: 40, TTFTMs: LatencyJSON{P50: 100, P95: 200}}
	}
	sat := 2
	tests := []struct {
		name   string
		levels []ReportLevel
		sat    *int
		want   string
	}{
		{"reached", []ReportLevel{lv(1, 10, 80), lv(2, 10, 150), lv(4, 10, 160)}, &sat,
			"; saturates at 2 users (150 tok/s; doubling to 4 users adds less than 10%)"},
		{"compared, not reached", []ReportLevel{lv(1, 10, 80), lv(2, 10, 150)}, nil,
			"; saturation not reached (every doubling of users added at least 10% aggregate tok/s)"},
		{"one level", []ReportLevel{lv(4, 10, 300)}, nil,
			"; saturation not measured (no level measured in full was followed by one with twice its users)"},
		{"no steady window at the double", []ReportLevel{lv(1, 10, 80), lv(2, 0, 0)}, nil,
			"; saturation not measured (no level measured in full was followed by one with twice its users)"},
		{"1, 3: 3 is the comparison level", []ReportLevel{lv(1, 10, 80), lv(3, 10, 200)}, nil,
			"; saturation not reached (every doubling of users added at least 10% aggregate tok/s)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{Endpoints: []ReportEndpoint{{Name: "e", Levels: tc.levels, SaturationUsers: tc.sat}}}
			md := Markdown(r)
			if !strings.Contains(md, tc.want+"\n") {
				t.Errorf("want line %q in:\n%s", tc.want, md)
			}
		})
	}
}

// TestCSVUnmeasuredIsEmpty checks that CSV leaves a value nobody measured empty, as
// Markdown shows "-", instead of writing 0: per-user tok/s and TPOT of one-token
// answers, the error rate of a level without requests, rates over no steady window.
func TestCSVUnmeasuredIsEmpty(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 0, 10*sec, 20, false))
	for i := range 10 {
		tr.AddSample(ok(2, time.Duration(i)*sec, 150*msec, 0, 1))
	}
	tr.UpdateSegment(seg(2, 4, 10*sec, -1, 12*sec, 0, true)) // never steady, no request
	r := &Report{Endpoints: []ReportEndpoint{tr.ReportEndpoint(EndpointInfo{Name: "e", Model: "m"})}}
	rows, err := csv.NewReader(strings.NewReader(CSV(r))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("rows %q", rows)
	}
	col := func(row []string, name string) string {
		i := slices.Index(rows[0], name)
		if i < 0 {
			t.Fatalf("no column %s", name)
		}
		return row[i]
	}
	want2 := map[string]string{"requests": "10", "error_rate": "0", "ttft_p50_ms": "150", "user_tps_p50": "",
		"user_tps_p10": "", "tpot_p50_ms": "", "e2e_p50_ms": "150", "aggregate_tps": "2", "request_rate": "1"}
	want4 := map[string]string{"requests": "0", "duration_s": "0", "error_rate": "", "ttft_p95_ms": "", "user_tps_p50": "",
		"aggregate_tps": "", "request_rate": "", "output_tokens": "0"}
	for _, c := range []struct {
		row  []string
		want map[string]string
	}{{rows[1], want2}, {rows[2], want4}} {
		for name, w := range c.want {
			if got := col(c.row, name); got != w {
				t.Errorf("level %s: %s = %q, want %q", c.row[3], name, got, w)
			}
		}
	}
}

// TestExtraBodyKeysNeverNull: a run without extra body fields writes extra_body_keys
// as [] (never null), whether the settings came from a run, a merge or a file that
// had null; the other settings are written as before.
func TestExtraBodyKeysNeverNull(t *testing.T) {
	var old Report
	if err := json.Unmarshal([]byte(`{"settings": {"ramp": [1], "hold_s": 5, "extra_body_keys": null}}`), &old); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]ReportSettings{"built": {Ramp: []int{1}, HoldS: 5}, "read back": old.Settings} {
		data, err := json.Marshal(&Report{Settings: s})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"extra_body_keys":[]`) || !strings.Contains(string(data), `"ramp":[1],"hold_s":5,`) {
			t.Errorf("%s: %s; want extra_body_keys [] and the other settings", name, data)
		}
	}
	data, _ := json.Marshal(ReportSettings{ExtraBodyKeys: []string{"top_k"}})
	if !strings.Contains(string(data), `"extra_body_keys":["top_k"]`) {
		t.Errorf("keys given: %s", data)
	}
}

// TestCSVServerColumns: a level's server view fills the server_ columns (a figure the
// server does not publish stays empty); a level without one leaves them all empty.
func TestCSVServerColumns(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	r := &Report{Endpoints: []ReportEndpoint{{Name: "a", Levels: []ReportLevel{
		{Concurrency: 4, Errors: map[string]int{}, Server: &ServerLevel{Scrapes: 12, WaitingMean: v(2.5), WaitingMax: v(7),
			RunningMean: v(4), KVMeanPct: v(61.25), GenTPS: v(812.5)}},
		{Concurrency: 8, Errors: map[string]int{}},
	}}}}
	rows, err := csv.NewReader(strings.NewReader(CSV(r))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	want := map[string]string{"server_scrapes": "12", "server_waiting_mean": "2.5", "server_waiting_max": "7",
		"server_running_mean": "4", "server_kv_mean_pct": "61.25", "server_tps": "812.5", "server_preemptions": ""}
	for name, w := range want {
		i, ok := col[name]
		if !ok {
			t.Fatalf("no column %s in %q", name, rows[0])
		}
		if got := rows[1][i]; got != w {
			t.Errorf("4 users: %s = %q, want %q", name, got, w)
		}
		if got := rows[2][i]; got != "" {
			t.Errorf("8 users (no server view): %s = %q, want empty", name, got)
		}
	}
}
