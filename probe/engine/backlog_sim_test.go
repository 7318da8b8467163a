package engine

import (
	"context"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/arrival"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// backlogSim serves 40 requests/s at most: 4 slots, each answer 25 decode steps of 4 ms.
var backlogSim = sim.Config{Name: "backlog", Model: "sim-backlog", Slots: 4, StepMs: 4, TokensPerChunk: 1,
	Seed: 1, DefaultMaxTokens: 25}

// TestRateAfterBacklogAgainstTheSimulator: 60 requests/s for 5 s leaves about 100
// requests queued on a server that serves 40/s; the 10 requests/s level after it must
// read its own TTFT (a few ms: its arrivals find a free slot), not that of requests
// queued behind the backlog. Under the users' warm-up rule it was steady once the 60
// requests/s requests ended, with about 25 of its own still queued, and read a TTFT
// p95 of several hundred ms.
func TestRateAfterBacklogAgainstTheSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 s bench against a simulator")
	}
	inst, err := sim.Start(context.Background(), "127.0.0.1:0", backlogSim)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ep := client.Endpoint{Name: "sim", BaseURL: inst.URL, Model: backlogSim.Model, MaxTokens: 25, IgnoreEOS: true,
		Timeout: 10 * time.Second}
	cfg := Config{Endpoints: []client.Endpoint{ep}, Ramp: Ramp{Levels: []int{60, 10}, Hold: 5 * time.Second, Fixed: true},
		OpenLoop: &OpenLoop{Arrival: "constant"}, PoolOptions: []probe.Option{probe.WithOpenLoop(arrival.Constant, 1, 0)}, FullRamp: true, Drain: 5 * time.Second,
		ServerEvery: 100 * time.Millisecond, Version: "test"}
	res, err := runBench(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	levels := res.Report.Endpoints[0].Levels
	var fast, slow = -1, -1
	for i, l := range levels {
		switch l.Concurrency {
		case 60:
			fast = i
		case 10:
			slow = i
		}
	}
	if fast < 0 || slow < 0 {
		t.Fatalf("levels %+v: want 60 and 10 requests/s", levels)
	}
	if w := levels[fast].Server; w == nil || w.WaitingMax == nil || *w.WaitingMax < 50 {
		t.Fatalf("60 requests/s left no backlog on the server: %+v", w)
	}
	l := levels[slow]
	t.Logf("10 requests/s: %d steady, TTFT p50 %.1f ms p95 %.1f ms", l.Steady, l.TTFTMs.P50, l.TTFTMs.P95)
	if l.Steady < 8 {
		t.Fatalf("10 requests/s has %d steady requests, want at least 8 (its warm-up too long?)", l.Steady)
	}
	if l.TTFTMs.P95 > 100 {
		t.Errorf("10 requests/s read TTFT p95 %.1f ms (p50 %.1f ms): it inherited the 60 requests/s backlog", l.TTFTMs.P95, l.TTFTMs.P50)
	}
	if s := l.Server; s != nil && s.WaitingMax != nil && *s.WaitingMax > 2 {
		t.Errorf("the server had up to %.0f requests waiting in the 10 requests/s steady window, want its own queue (none)", *s.WaitingMax)
	}
}
