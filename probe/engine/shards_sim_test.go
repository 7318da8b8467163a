package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// shardSim is a simulator whose numbers depend on the load: every sequence in the batch
// slows each decode step (30 ms + 2 ms per sequence). No prefill cost: requests that
// arrive together would lengthen one step together, and which requests arrive together
// (cohorts) varies from run to run more than the 5% compared. Its steps are long next
// to the client's own time between two requests of a user (a few ms, more on a loaded
// machine under -race): the TTFT of a stepped server is about two steps minus that
// time. Without ignore_eos a quarter of the answers end early, so users do not stay in
// lockstep.
var shardSim = sim.Config{Name: "shards", Model: "sim-shards", Slots: 64, StepMs: 30, StepMsPerSeq: 2,
	TokensPerChunk: 1, Seed: 1, DefaultMaxTokens: 64}

// shardRun runs one process of the load (shard nil: the whole of it) from start.
func shardRun(t *testing.T, url string, ramp Ramp, start time.Time, shard *model.ReportShard) *model.Report {
	t.Helper()
	ep := client.Endpoint{Name: "sim", BaseURL: url, Model: shardSim.Model, MaxTokens: 12, PromptTokens: 64, Timeout: 10 * time.Second}
	res, err := runBench(context.Background(), Config{Endpoints: []client.Endpoint{ep}, Ramp: ramp, StartAt: start, Shard: shard,
		Drain: 5 * time.Second, Version: "test"}, nil)
	if err != nil {
		t.Error(err)
		return nil
	}
	if res.Report.Interrupted {
		t.Errorf("shard %v: interrupted", shard)
	}
	if res.Late != 0 {
		t.Logf("shard %v started %v late (a loaded machine)", shard, res.Late)
	}
	data, err := json.Marshal(res.Report) // as merge reads it: from results.json
	if err != nil {
		t.Fatal(err)
	}
	var back model.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestShardsMatchOneProcess: four shards with one start time against one simulator,
// merged, read as one process that held the whole load: per-user tok/s p50, aggregate
// tok/s and TTFT p50 within 5%, and request counts that add up. The level of 3 users
// gives shard 3 no user: the others measure it. Holds of 6 s: a level's aggregate
// counts whole steps of tokens, and shorter windows hold too few steps to agree
// within 5%.
//
// The one process runs at the same moments as the shards, against a second simulator
// alike (its own batch): the two loads meet the machine equally busy. The client's time
// between a user's two requests grows by a few ms on a busy machine under -race, and
// the TTFT of a stepped server with it (5% of the TTFT p50 at 3 users is 3.5 ms): run
// one after the other, the comparison measured how busy the machine was in each run.
func TestShardsMatchOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two loads against two simulators for about 14 s")
	}
	var urls [2]string // the shards', the one process's
	for i := range urls {
		inst, err := sim.Start(context.Background(), "127.0.0.1:0", shardSim)
		if err != nil {
			t.Fatal(err)
		}
		defer inst.Close()
		urls[i] = inst.URL
	}
	ramp := Ramp{Levels: []int{3, 16}, Hold: 6 * time.Second}
	const n = 4

	start := time.Now().Add(time.Second)
	reports := make([]*model.Report, n)
	var whole *model.Report
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() { reports[k] = shardRun(t, urls[0], ramp, start, &model.ReportShard{Index: k, Count: n}) })
	}
	wg.Go(func() { whole = shardRun(t, urls[1], ramp, start, nil) })
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	var files []model.MergeFile
	for k, r := range reports {
		files = append(files, model.MergeFile{Name: fmt.Sprintf("shard-%d.json", k), Report: r})
	}
	merged, err := model.Merge(files)
	if err != nil {
		t.Fatal(err)
	}

	if l := reports[3].Endpoints[0].Levels; len(l) != 1 || l[0].Concurrency != 16 {
		t.Errorf("shard 3/4 has levels %+v; want only 16 users (its share of 3 is 0)", l)
	}
	ml, wl := merged.Endpoints[0].Levels, whole.Endpoints[0].Levels
	if len(ml) != len(ramp.Levels) || len(wl) != len(ramp.Levels) {
		t.Fatalf("levels: merged %d, whole %d; want %d", len(ml), len(wl), len(ramp.Levels))
	}
	for i := range ml {
		m, w := ml[i], wl[i]
		sum := 0
		for _, r := range reports {
			for _, l := range r.Endpoints[0].Levels {
				if l.Concurrency == m.Concurrency {
					sum += l.Requests
				}
			}
		}
		t.Logf("%2d users: merged %4d requests, per-user p50 %6.1f tok/s, aggregate %7.1f tok/s, TTFT p50 %6.1f ms; whole %4d, %6.1f, %7.1f, %6.1f",
			m.Concurrency, m.Requests, m.UserTPS.P50, m.AggregateTPS, m.TTFTMs.P50, w.Requests, w.UserTPS.P50, w.AggregateTPS, w.TTFTMs.P50)
		if m.Requests != sum || len(m.Errors) > 0 {
			t.Errorf("%d users: merged %d requests, shards %d; errors %v", m.Concurrency, m.Requests, sum, m.Errors)
		}
		for _, c := range []struct {
			what string
			m, w float64
		}{
			{"per-user tok/s p50", m.UserTPS.P50, w.UserTPS.P50},
			{"aggregate tok/s", m.AggregateTPS, w.AggregateTPS},
			{"TTFT p50", m.TTFTMs.P50, w.TTFTMs.P50},
		} {
			if math.Abs(c.m-c.w) > 0.05*c.w {
				t.Errorf("%d users: %s merged %.1f, whole %.1f: more than 5%% apart", m.Concurrency, c.what, c.m, c.w)
			}
		}
	}
}
