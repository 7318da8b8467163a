package engine

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/sim"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// apiSim is a small server whose answers begin with reasoning, so that TTFT and TTFO
// differ, over every API.
var apiSim = sim.Config{Name: "apis", Model: "sim-apis", Slots: 8, StepMs: 8, StepMsPerSeq: 0.5,
	TokensPerChunk: 1, Seed: 3, DefaultMaxTokens: 64, ReasoningTokens: 6}

// TestAPIsMeasureAlikeAgainstTheSimulator: the same server measured through chat, the
// Messages API and the Responses API gives the same figures: per-user tok/s within 10%,
// TTFO after TTFT (thinking is reasoning), the server's own usage, no error.
func TestAPIsMeasureAlikeAgainstTheSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("three benches against a simulator, about 12 s")
	}
	inst, err := sim.Start(context.Background(), "127.0.0.1:0", apiSim)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	levels := map[string]model.ReportLevel{}
	for _, api := range []string{client.APIChat, client.APIMessages, client.APIResponses} {
		ep := client.Endpoint{Name: api, BaseURL: inst.URL, Model: apiSim.Model, API: api, MaxTokens: 40, IgnoreEOS: true,
			Timeout: 10 * time.Second}
		res, err := runBench(context.Background(), Config{Endpoints: []client.Endpoint{ep}, Ramp: Ramp{Levels: []int{4}, Hold: 3 * time.Second},
			Drain: 5 * time.Second, Version: "test"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		e := res.Report.Endpoints[0]
		if e.API != api || res.Report.Settings.API != api {
			t.Errorf("%s: the report names the API %q (settings %q)", api, e.API, res.Report.Settings.API)
		}
		l := e.Levels[0]
		if len(l.Errors) > 0 || e.TokenSource != model.SourceUsage || l.Steady < 20 {
			t.Errorf("%s: errors %v, token source %q, %d steady", api, l.Errors, e.TokenSource, l.Steady)
		}
		if l.TTFOMs.P50 <= l.TTFTMs.P50 || l.Lengths.Output.Mean != 40 || l.Lengths.Input.Mean < 100 {
			t.Errorf("%s: TTFT p50 %.1f ms, TTFO p50 %.1f ms, lengths %+v: want the answer after the thinking, 40 output tokens and the prompt's",
				api, l.TTFTMs.P50, l.TTFOMs.P50, l.Lengths)
		}
		levels[api] = l
	}
	chat := levels[client.APIChat]
	for _, api := range []string{client.APIMessages, client.APIResponses} {
		l := levels[api]
		if r := l.UserTPS.P50 / chat.UserTPS.P50; math.Abs(r-1) > 0.1 {
			t.Errorf("%s: per-user tok/s p50 %.1f, chat %.1f", api, l.UserTPS.P50, chat.UserTPS.P50)
		}
	}
}

// TestConversationsAgainstTheSimulator: users playing conversations turn by turn with
// live history; later turns carry the history, which the prefix cache finds, so they
// answer sooner than first turns, and the level reports both apart with the server's
// prefix-cache hits.
func TestConversationsAgainstTheSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("a bench of conversations against a simulator, about 6 s")
	}
	cfg := apiSim
	cfg.PrefillMsPerToken, cfg.PrefixCacheTokens, cfg.ReasoningTokens = 0.1, 1<<20, 0
	inst, err := sim.Start(context.Background(), "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	// More conversations than the level plays: a conversation played again would find its
	// first question cached too (the level rule holds the capacity's level until its
	// criteria are decided, a hundred turns and more).
	var entries []workload.Entry
	for i := range 300 {
		long := workload.Words(uint64(i+1), 600) // a long first question: its prefill is what a cache saves
		entries = append(entries, workload.Entry{Dialog: []workload.Message{
			{Role: "user", Content: long}, {Role: "assistant", Content: "First answer."},
			{Role: "user", Content: "And then?"}, {Role: "assistant", Content: "Second answer."},
			{Role: "user", Content: "Thanks."}}})
	}
	src, err := workload.NewConversations(entries, 1, 0, workload.TurnsAll, true)
	if err != nil {
		t.Fatal(err)
	}
	ep := client.Endpoint{Name: "sim", BaseURL: inst.URL, Model: cfg.Model, API: client.APIMessages, MaxTokens: 16, IgnoreEOS: true, Timeout: 10 * time.Second}
	res, err := runBench(context.Background(), Config{Endpoints: []client.Endpoint{ep}, Ramp: Ramp{Levels: []int{4}, Hold: 4 * time.Second},
		PoolOptions: []probe.Option{probe.WithConversations(src, 50*time.Millisecond)}, Turns: "all", History: "live", Think: 50 * time.Millisecond,
		Drain: 5 * time.Second, ServerEvery: 250 * time.Millisecond, Version: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Report.Settings
	if s.Turns != "all" || s.History != "live" || s.ThinkS != 0.05 {
		t.Errorf("settings: turns %q, history %q, think %v s", s.Turns, s.History, s.ThinkS)
	}
	l := res.Report.Endpoints[0].Levels[0]
	turns := l.Turns
	if turns == nil || turns.First.Count < 5 || turns.Later.Count < 10 {
		t.Fatalf("turns %+v: want first and later turns measured apart", turns)
	}
	if turns.Later.P50 >= turns.First.P50-20 {
		t.Errorf("TTFT p50 first turns %.0f ms, later turns %.0f ms: want the cached history to answer sooner", turns.First.P50, turns.Later.P50)
	}
	if l.Server == nil || l.Server.PrefixHitPct == nil || *l.Server.PrefixHitPct < 30 {
		t.Errorf("server view %+v: want the later turns' history found in the prefix cache", l.Server)
	}
	if len(l.Errors) > 0 {
		t.Errorf("errors %v", l.Errors)
	}
	t.Logf("%s; prefix cache hits %.0f%%", turns.Words(), *l.Server.PrefixHitPct)
}
