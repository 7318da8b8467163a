package results

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

func TestCSV(t *testing.T) { golden(t, "report.csv.golden", CSV(sampleReport())) }

// TestCSVUnmeasuredIsEmpty checks that CSV leaves a value nobody measured empty, as
// Markdown shows "-", instead of writing 0: per-user tok/s and TPOT of one-token
// answers, the error rate of a level without requests, rates over no steady window.
func TestCSVUnmeasuredIsEmpty(t *testing.T) {
	tr := model.NewTracker(model.TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 0, 10*sec, 20, false))
	for i := range 10 {
		tr.AddSample(ok(2, time.Duration(i)*sec, 150*msec, 0, 1))
	}
	tr.UpdateSegment(seg(2, 4, 10*sec, -1, 12*sec, 0, true)) // never steady, no request
	r := &model.Report{Endpoints: []model.ReportEndpoint{tr.ReportEndpoint(model.EndpointInfo{Name: "e", Model: "m"})}}
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

// TestCSVServerColumns: a level's server view fills the server_ columns (a figure the
// server does not publish stays empty); a level without one leaves them all empty.
func TestCSVServerColumns(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	r := &model.Report{Endpoints: []model.ReportEndpoint{{Name: "a", Levels: []model.ReportLevel{
		{Concurrency: 4, Errors: map[string]int{}, Server: &model.ServerLevel{Scrapes: 12, WaitingMean: v(2.5), WaitingMax: v(7),
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

// TestCSVRealTrafficColumns: a trace's window and a conversation level fill the last
// columns (first and later turns' TTFT, the server's prefix-cache hits, the late
// requests, the window's span); a level without them leaves them empty, and they come
// after every earlier column.
func TestCSVRealTrafficColumns(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	window := model.ReportLevel{Concurrency: 2, Errors: map[string]int{}, TraceWindowS: []float64{9.64, 19.29},
		ClientWaitMs: &model.WaitStats{Arrivals: 96, Late: 3, P95: 4.5}, Server: &model.ServerLevel{Scrapes: 9, PrefixHitPct: v(78.5)}}
	window.Turns = &model.TurnStats{First: model.TurnTTFT{Count: 14, P50: 51.2, P95: 117}, Later: model.TurnTTFT{Count: 24, P50: 26, P95: 38.5}}
	r := &model.Report{Endpoints: []model.ReportEndpoint{{Name: "a", Levels: []model.ReportLevel{window, {Concurrency: 4, Errors: map[string]int{}}}}}}
	rows, err := csv.NewReader(strings.NewReader(CSV(r))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// They follow TTFO's; the levels' intervals come after them.
	if i := slices.Index(rows[0], "ttfo_p95_ms"); i < 0 || !slices.Equal(rows[0][i+1:], append(slices.Clone(csvRealTrafficHeader), csvCIHeader...)) {
		t.Fatalf("the new columns are not the last ones: %q", rows[0])
	}
	want := map[string]string{"ttft_first_turns_p50_ms": "51.2", "ttft_first_turns_p95_ms": "117", "ttft_later_turns_p50_ms": "26",
		"ttft_later_turns_p95_ms": "38.5", "server_prefix_cache_hit_pct": "78.5", "late_requests": "3",
		"trace_window_from_s": "9.64", "trace_window_to_s": "19.29", "concurrency": "2"}
	for name, w := range want {
		i := slices.Index(rows[0], name)
		if got := rows[1][i]; got != w {
			t.Errorf("window 2: %s = %q, want %q", name, got, w)
		}
		if got := rows[2][i]; got != "" && name != "concurrency" {
			t.Errorf("a level without them: %s = %q, want empty", name, got)
		}
	}
}
