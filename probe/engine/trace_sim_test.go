package engine

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/sim"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// traceSim prefills slowly enough (0.05 ms a prompt token) that a 1,100-token prompt
// found in the prefix cache answers clearly sooner than one that is not.
var traceSim = sim.Config{Name: "trace", Model: "sim-trace", Slots: 16, StepMs: 5, StepMsPerSeq: 0.2,
	PrefillMsPerToken: 0.05, TokensPerChunk: 1, Seed: 1, DefaultMaxTokens: 64, PrefixCacheTokens: 1 << 20}

// runTrace replays 40 requests over 8 s of trace at 2x speed (one every 100 ms) against a fresh simulator:
// each prompt 1,100 tokens, its first two 512-token blocks shared (shared) or each
// request's own.
func runTrace(t *testing.T, shared bool) *model.Report {
	t.Helper()
	inst, err := sim.Start(context.Background(), "127.0.0.1:0", traceSim)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	tr := &workload.Trace{}
	for i := range 40 {
		ids := []int64{0, 1, int64(100 + i)}
		if !shared {
			ids = []int64{int64(1000 + 3*i), int64(1001 + 3*i), int64(1002 + 3*i)}
		}
		tr.Entries = append(tr.Entries, workload.TraceEntry{At: time.Duration(i) * 200 * time.Millisecond,
			InputTokens: 1100, OutputTokens: 8, HashIDs: ids})
	}
	plan, err := PlanTrace(tr, "t.jsonl", 2, 4*time.Second, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	ep := client.Endpoint{Name: "sim", BaseURL: inst.URL, Model: traceSim.Model, IgnoreEOS: true, Timeout: 10 * time.Second}
	cfg := Config{Endpoints: []client.Endpoint{ep}, Ramp: plan.Ramp, Trace: plan.Info, OpenLoop: &OpenLoop{},
		PoolOptions: []probe.Option{plan.Option},
		Drain:       5 * time.Second, ServerEvery: 200 * time.Millisecond, Version: "test"}
	res, err := runBench(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Report
}

// TestTraceReplayAgainstTheSimulator: a trace is sent on its schedule and reported by
// windows of the trace; the blocks it shares are real prefixes, which the simulator's
// prefix cache finds: TTFT falls and the server's view shows the hits.
func TestPlanTrace(t *testing.T) {
	tr := &workload.Trace{Entries: []workload.TraceEntry{{At: 0, InputTokens: 5, OutputTokens: 1}, {At: 250 * time.Second, InputTokens: 5, OutputTokens: 1}}}
	p, err := PlanTrace(tr, "day.jsonl", 5, 0, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A tenth of 250 s is 25 s a window: 10 windows, each 5 s at 5x.
	if p.Info.WindowS != 25 || len(p.Ramp.Levels) != 10 || p.Ramp.Hold != 5*time.Second || !p.Ramp.Fixed || p.Ramp.Levels[9] != 10 {
		t.Errorf("plan %+v, ramp %+v", p.Info, p.Ramp)
	}
	// Windows of about 100 s split 250 s evenly: 3 of 83.3 s, the last not a short one.
	if p, _ := PlanTrace(tr, "day.jsonl", 1, 100*time.Second, 1, 0); len(p.Ramp.Levels) != 3 || p.Info.WindowWords(3) != "window 3 (166.67-250 s of the trace)" {
		t.Errorf("windows of 100 s: %v, %q", p.Ramp.Levels, p.Info.WindowWords(3))
	}
	one := &workload.Trace{Entries: []workload.TraceEntry{{InputTokens: 5, OutputTokens: 1}}}
	if p, err := PlanTrace(one, "burst.jsonl", 1, 0, 1, 0); err != nil || len(p.Ramp.Levels) != 1 || p.Ramp.Hold != time.Second {
		t.Errorf("a trace of one moment: %v, %+v", err, p)
	}
	for _, tc := range []struct {
		speed  float64
		window time.Duration
		want   string
	}{
		{0, 0, "trace_speed \"0\": want a number above 0"},
		{-2, 0, "trace_speed \"-2\""},
		{2000, 0, "at most 1000"},
		{1, -time.Second, "trace_window \"-1s\": want a positive duration"},
		{1000, 10 * time.Second, "lasts under 100 ms: give a longer window"},
	} {
		if _, err := PlanTrace(tr, "day.jsonl", tc.speed, tc.window, 1, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("speed %v window %v: %v, want %q", tc.speed, tc.window, err, tc.want)
		}
	}
}

func TestTraceReplayAgainstTheSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("replays two traces against a simulator for about 10 s")
	}
	rep := runTrace(t, true)
	s := rep.Settings
	if s.Mode != "trace" || s.Trace == nil || s.Trace.Requests != 40 || s.Trace.WindowS != 3.9 {
		t.Fatalf("settings: mode %q, trace %+v", s.Mode, s.Trace)
	}
	e := rep.Endpoints[0]
	if len(e.Levels) != 2 || e.Capacity.Users != 0 || e.SaturationUsers != nil {
		t.Fatalf("%d levels, capacity %+v, saturation %v: want 2 windows, no capacity, no saturation", len(e.Levels), e.Capacity, e.SaturationUsers)
	}
	requests := 0
	for i, l := range e.Levels {
		requests += l.Requests
		if l.Concurrency != i+1 || len(l.TraceWindowS) != 2 || math.Abs(l.TraceWindowS[0]-3.9*float64(i)) > 1e-9 || l.Rate != nil {
			t.Errorf("level %d: window %d %v, rate %v", i, l.Concurrency, l.TraceWindowS, l.Rate)
		}
		if l.Errors != nil && len(l.Errors) > 0 {
			t.Errorf("window %d: errors %v", l.Concurrency, l.Errors)
		}
	}
	if requests != 40 {
		t.Errorf("%d requests in the windows, want the trace's 40", requests)
	}
	if s.Trace.Late > 4 {
		t.Logf("%d requests late (a loaded machine): %s", s.Trace.Late, s.Trace.LateWords())
	}
	later := e.Levels[1]
	if later.Server == nil || later.Server.PrefixHitPct == nil || *later.Server.PrefixHitPct < 50 {
		t.Errorf("window 2's server view %+v: want most prompt tokens found in the prefix cache", later.Server)
	}
	own := runTrace(t, false).Endpoints[0].Levels[1]
	if own.Server != nil && own.Server.PrefixHitPct != nil && *own.Server.PrefixHitPct > 5 {
		t.Errorf("prompts that share no block hit the cache for %.0f%% of their tokens", *own.Server.PrefixHitPct)
	}
	// 1,024 cached tokens skip about 50 ms of prefill.
	if later.TTFTMs.P50 > own.TTFTMs.P50-25 {
		t.Errorf("TTFT p50 %.0f ms with shared blocks, %.0f ms without: want the shared prefix to answer sooner", later.TTFTMs.P50, own.TTFTMs.P50)
	}
	t.Logf("TTFT p50 %.0f ms with shared blocks (%.0f%% of prompt tokens cached), %.0f ms without", later.TTFTMs.P50, *later.Server.PrefixHitPct, own.TTFTMs.P50)
}

// A trace run's notices name its windows and say a replay, never a ramp whose levels
// were "held" (the verdict's word for a trace).
func TestTraceNoticeWords(t *testing.T) {
	tr := &model.ReportTrace{Requests: 40, DurationS: 7.8, Speed: 1, WindowS: 3.9}
	for _, c := range []struct {
		n    Notice
		want string
	}{
		{Notice{Kind: RampFinished, Name: "sim", Levels: 2, Trace: tr}, "trace replay finished on sim: all 2 windows replayed; load stopped"},
		{Notice{Kind: LevelStarted, Name: "sim", Users: 2, Level: LevelProgress{Index: 1, Levels: 2}, Trace: tr}, "sim: level 2/2, window 2 (3.9-7.8 s of the trace)"},
	} {
		if got := c.n.String(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
