package results

// Fixtures shared by the tests of the files tpsmon writes (the same in
// probe/output/report and probe/output/results).

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// t0 is the fixtures' clock origin; at is t0 + d.
var t0 = time.Unix(0, 0)

func at(d time.Duration) time.Time { return t0.Add(d) }

const (
	msec = time.Millisecond
	sec  = time.Second
)

// ok returns a successful sample of concurrency c sent at send, with its first token
// after ttft and n tokens over decode (usage reported, one token per chunk).
func ok(c int, send, ttft, decode time.Duration, n int) *model.Sample {
	s := &model.Sample{Concurrency: c, Send: at(send), Headers: at(send + ttft/2), First: at(send + ttft), FirstAnswer: at(send + ttft),
		Last: at(send + ttft + decode), Tokens: n, Chunks: n, Usage: true, Finish: "stop"}
	s.End = s.Last
	return s
}

// seg is a segment of level c from start, steady from steady (-1: not yet), to end,
// with chunks delivered in its steady time.
func seg(id, c int, start, steady, end time.Duration, chunks int64, open bool) model.Segment {
	s := model.Segment{ID: id, Concurrency: c, Start: at(start), End: at(end), Open: open, SteadyChunks: chunks}
	if steady >= 0 {
		s.SteadyAt = at(steady)
	}
	return s
}

// sampleReport is a small hand-made report with two endpoints.
func sampleReport() *model.Report {
	rate4 := 4
	sat := 8
	return &model.Report{
		Schema: model.Schema, ToolVersion: "v1.2.3", StartedAt: "2026-11-23T14:00:00Z", FinishedAt: "2026-11-23T14:02:10Z",
		Settings: model.ReportSettings{Ramp: []int{1, 8, 16}, HoldS: 15, MaxHoldS: 120, API: "chat", MaxTokens: 256, PromptTokens: 128,
			IgnoreEOS: true, ExtraBodyKeys: []string{"top_k", "chat_template_kwargs"}, TimeoutS: 60, SLO: model.DefaultSLO.Report()},
		Endpoints: []model.ReportEndpoint{
			{
				Name: "sim", URL: "http://127.0.0.1:8080/v1", Model: "sim-8b", API: "chat", Simulated: true, TokenSource: model.SourceUsage,
				Levels: []model.ReportLevel{
					{Concurrency: 1, DurationS: 15, Requests: 13, Steady: 12, Succeeded: 13, Errors: map[string]int{}, ErrorRate: 0,
						TTFTMs: model.LatencyJSON{P50: 85.25, P95: 101.5, P99: 110}, TPOTMs: model.LatencyJSON{P50: 12.5}, E2EMs: model.LatencyJSON{P50: 3260.4},
						TTFOMs:  model.LatencyJSON{P50: 1650.5, P95: 1900},
						StallMs: model.LatencyJSON{P95: 40.5, Max: 61},
						UserTPS: model.RateJSON{P10: 78.4, P50: 80.05, P90: 81}, AggregateTPS: 79.9, RequestRate: 0.8, OutputTokens: 3072},
					{Concurrency: 8, DurationS: 14.5, Requests: 90, Steady: 80, Succeeded: 87, Errors: map[string]int{"http_500": 1, "truncated": 0, "client": 2}, ErrorRate: 0.0114,
						TTFTMs: model.LatencyJSON{P50: 160, P95: 410.25, P99: 500}, TPOTMs: model.LatencyJSON{P50: 22.2}, E2EMs: model.LatencyJSON{P50: 5800},
						TTFOMs:  model.LatencyJSON{P50: 1749, P95: 2300.5}, // a reasoning model: the answer starts after the thinking
						StallMs: model.LatencyJSON{P95: 80, Max: 2100.25},
						UserTPS: model.RateJSON{P10: 40, P50: 45.04, P90: 47}, AggregateTPS: 355.55, RequestRate: 5.517, OutputTokens: 20224,
						InFlightMean: 7.9, TrafficStats: model.TrafficStats{Goodput: model.GoodputStats{Judged: 80, Met: 76, Share: 0.95, Rate: 5.241},
							Lengths:   model.LengthStats{Input: model.LengthSummary{Count: 78, Mean: 130.5, P50: 131, P90: 140}, Output: model.LengthSummary{Count: 78, Mean: 250, P50: 256, P90: 256}},
							ChunkGaps: model.GapStats{Count: 19000, P50: 21.5, P90: 30.25, P99: 80.5}}},
					{Concurrency: 16, DurationS: 0, Requests: 0, Succeeded: 0, Errors: map[string]int{}},
				},
				Capacity: model.ReportCap{Users: 1}, SaturationUsers: &sat,
			},
			{
				Name: "prod, eu", URL: "https://llm.example/v1", Model: "big", API: "completions", TokenSource: model.SourceChunks,
				Levels: []model.ReportLevel{
					{Concurrency: 4, DurationS: 15, Requests: 12, Steady: 10, Short: true, Succeeded: 12, Errors: map[string]int{},
						TTFTMs: model.LatencyJSON{P50: 2500, P95: 3100}, UserTPS: model.RateJSON{P50: 20}, AggregateTPS: 80, RequestRate: 0.667, OutputTokens: 2560,
						Rate: &rate4, InFlightMean: 3.5, ClientWaitMs: &model.WaitStats{Arrivals: 12, Capped: 3, CappedShare: 0.25, P50: 0.5, P95: 120, Max: 300}},
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
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}
