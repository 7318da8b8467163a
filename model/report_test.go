package model

import (
	"encoding/json"
	"flag"
	"reflect"
	"slices"
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
	for _, want := range []string{`"saturation_users":null`, `"capacity":{"users":1,"at_least":true,"decided":false}`, `"errors":{}`, `"token_source":"usage"`} {
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
		"steady_tokens", "windows", "hist", "in_flight_mean", "goodput", "lengths", "chunk_gap_ms", "ci95"); !slices.Equal(got, want) {
		t.Errorf("level keys %v, want %v", got, want)
	}
	lm := lv.(map[string]any)
	if got, want := keys(t, lm["hist"]), sorted("ttft", "ttfo", "tpot", "e2e", "stall", "user_tps", "input_tokens", "output_tokens", "chunk_gap", "aggregate"); !slices.Equal(got, want) {
		t.Errorf("hist keys %v, want %v", got, want)
	}
	// Five requests of one TTFT: the median has no 95% bound on either side (it needs 6),
	// the p95 is at least the 4th smallest (no upper bound before 72); the error rate's
	// Wilson interval of 0 in 5 reaches 43.4%; the aggregate is exact but for 0.01.
	five := NewTracker(TrackerOptions{})
	five.UpdateSegment(seg(1, 1, 0, sec, 11*sec, 1000, false))
	for i := range 5 {
		five.AddSample(ok(1, sec+time.Duration(i)*sec/2, 123456*time.Microsecond, sec, 51))
	}
	b5, err := json.Marshal(five.ReportEndpoint(EndpointInfo{Name: "sim"}))
	if err != nil {
		t.Fatal(err)
	}
	var m5 map[string]any
	if err := json.Unmarshal(b5, &m5); err != nil {
		t.Fatal(err)
	}
	ci := m5["levels"].([]any)[0].(map[string]any)["ci95"].(map[string]any)
	if got, want := keys(t, ci), sorted("user_tps_p50", "ttft_p50_ms", "ttft_p95_ms", "aggregate_tps", "error_rate", "ttfo_p95_ms", "goodput"); !slices.Equal(got, want) {
		t.Errorf("ci95 keys %v, want %v", got, want)
	}
	for k, want := range map[string][]any{"ttft_p50_ms": {0.0, nil}, "ttft_p95_ms": {123.45, nil}, "user_tps_p50": {0.0, nil},
		"error_rate": {0.0, 0.4345}, "aggregate_tps": {99.99, 100.01}} {
		if got := ci[k]; !reflect.DeepEqual(got, want) {
			t.Errorf("ci95.%s = %v, want %v", k, got, want)
		}
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
	for _, want := range []string{`"saturation_users":1`, `"capacity":{"users":1,"at_least":false,"decided":false}`, `"errors":{"http_429":1}`, `"token_source":"usage"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
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
