package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/settings"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// TestShardUsageErrors: every bad --shard, --shards, $JOB_COMPLETION_INDEX and
// --start-at is refused before the network is touched, naming the flag.
func TestShardUsageErrors(t *testing.T) {
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"index past the count", nil, []string{"--shard", "3/2", "--start-at", future}, `--shard "3/2": the index runs from 0 to 1 with 2 shards`},
		{"not numbers", nil, []string{"--shard", "a/b", "--start-at", future}, `--shard "a/b": want INDEX/COUNT, e.g. 0/4`},
		{"no slash", nil, []string{"--shard", "1", "--start-at", future}, `--shard "1": want INDEX/COUNT`},
		{"no shards", nil, []string{"--shard", "0/0", "--start-at", future}, `--shard "0/0": the number of shards (after /) must be at least 1`},
		{"negative index", nil, []string{"--shard", "-1/2", "--start-at", future}, `--shard "-1/2": the index runs from 0 to 1`},
		{"shards without index", nil, []string{"--shards", "4", "--start-at", future}, "--shards 4: this shard's index comes from $JOB_COMPLETION_INDEX, which is not set"},
		{"shards zero", nil, []string{"--shards", "0", "--start-at", future}, "--shards 0: want the number of shards, at least 1"},
		{"bad job index", map[string]string{"JOB_COMPLETION_INDEX": "x"}, []string{"--shards", "4", "--start-at", future}, `$JOB_COMPLETION_INDEX "x": want a shard index from 0 to 3 (--shards 4)`},
		{"job index past the count", map[string]string{"JOB_COMPLETION_INDEX": "4"}, []string{"--shards", "4", "--start-at", future}, `$JOB_COMPLETION_INDEX "4": want a shard index from 0 to 3`},
		{"shard and shards disagree", nil, []string{"--shard", "1/4", "--shards", "2", "--start-at", future}, "--shard 1/4 and --shards 2 disagree"},
		{"shard without start", nil, []string{"--shard", "0/2"}, "--shard 0/2 needs --start-at: the shards change level at the same moments only on a fixed schedule"},
		{"start not a time", nil, []string{"--start-at", "tomorrow"}, `--start-at "tomorrow": not an RFC 3339 time; write e.g. --start-at 20`},
		{"start in the past", nil, []string{"--start-at", past, "--hold", "10s"}, "ago, more than one hold (--hold 10s): the first level is over; give a time in the future"},
		{"max hold on a schedule", nil, []string{"--start-at", future, "--max-hold", "1m"}, "--max-hold (or the config's ramp.max_hold) cannot be used with --start-at: on a fixed schedule every level lasts exactly --hold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, nil, tt.env, func(*settings.Plan) error { t.Error("the run was planned"); return nil }, append([]string{"bench"}, tt.args...)...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 saying %q", r.code, r.stderr, tt.want)
			}
		})
	}
}

// TestBenchShardsMerge: two bench processes (--shard 0/2 and 1/2, one --start-at) against
// one simulator, merged by tpsmon merge: the levels line up and the counts add up.
func TestBenchShardsMerge(t *testing.T) {
	inst, err := sim.Start(context.Background(), "127.0.0.1:0", sim.Config{Name: "t", Model: "m", Slots: 16, StepMs: 5, StepMsPerSeq: 0.5, TokensPerChunk: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	dir := t.TempDir()
	start := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	var wg sync.WaitGroup
	res := make([]result, 2)
	for k, shard := range []string{"0/2", "1/2"} {
		wg.Go(func() {
			res[k] = cli(t, nil, nil, nil, "bench", "--url", inst.URL, "--model", "m", "--ramp", "1,3", "--hold", "700ms",
				"--max-tokens", "8", "--shard", shard, "--start-at", start, "--out", filepath.Join(dir, "s"+shard[:1]+".json"))
		})
	}
	wg.Wait()
	for k, r := range res {
		if r.code != exitOK {
			t.Fatalf("shard %d: exit %d\n%s", k, r.code, r.stderr)
		}
	}
	if want := "shard 1/2: this process sends 0, 1 of the levels' 1, 3 users"; !strings.Contains(res[1].stderr, want) ||
		!strings.Contains(res[1].stderr, "shard 1/2 sends nothing at the levels of 1 users") || !strings.Contains(res[1].stderr, "waiting") {
		t.Errorf("shard 1 does not say its share:\n%s", res[1].stderr)
	}
	if !strings.Contains(res[0].stdout, "- shard: 0/2") || !strings.Contains(res[0].stdout, "fixed schedule from ") {
		t.Errorf("shard 0's report does not say it is a shard on a fixed schedule:\n%s", res[0].stdout)
	}
	out := filepath.Join(dir, "merged.json")
	m := cli(t, nil, nil, nil, "merge", filepath.Join(dir, "s0.json"), filepath.Join(dir, "s1.json"), "-o", out)
	if m.code != exitOK {
		t.Fatalf("merge: exit %d\n%s", m.code, m.stderr)
	}
	var merged, s0, s1 model.Report
	for p, r := range map[string]*model.Report{out: &merged, filepath.Join(dir, "s0.json"): &s0, filepath.Join(dir, "s1.json"): &s1} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, r); err != nil {
			t.Fatal(err)
		}
	}
	ml := merged.Endpoints[0].Levels
	if len(ml) != 2 || ml[0].Concurrency != 1 || ml[1].Concurrency != 3 || len(s1.Endpoints[0].Levels) != 1 {
		t.Fatalf("merged levels %+v; shard 1's %+v", ml, s1.Endpoints[0].Levels)
	}
	if got, want := ml[1].Requests, s0.Endpoints[0].Levels[1].Requests+s1.Endpoints[0].Levels[0].Requests; got != want || got == 0 {
		t.Errorf("3 users: merged %d requests, shards %d", got, want)
	}
	if merged.Settings.StartAt == "" || merged.Settings.Shard != nil {
		t.Errorf("merged settings %+v", merged.Settings)
	}
}

// TestBenchStartsLate: a run that starts after --start-at (by less than a hold) says
// how late.
func TestBenchStartsLate(t *testing.T) {
	start := time.Now().Add(-300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	r := cli(t, nil, nil, nil, "bench", "--ramp", "1", "--hold", "2s", "--max-tokens", "8", "--start-at", start)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "after --start-at ") || !strings.Contains(r.stdout, ": its first level was that much shorter than the other shards'") {
		t.Errorf("stdout does not say how late:\n%s", r.stdout)
	}
}

// TestShardStreamLimit: a shard holds its share of each level, so a level larger than
// one process can hold is taken when each shard's share fits.
func TestShardStreamLimit(t *testing.T) {
	lim := settings.StreamLimit{Max: 462, Soft: 1024}
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if r := limitedCLI(t, lim, "bench", "--ramp", "1,1800", "--shard", "0/4", "--start-at", future); r.code != exitUsage || !strings.Contains(r.stderr, "planned") {
		t.Errorf("4 shards of 450 users were refused: exit %d, %s", r.code, r.stderr)
	}
	r := limitedCLI(t, lim, "bench", "--ramp", "1,1900", "--shard", "0/4", "--start-at", future)
	if want := "--ramp (shard 0/4's share): level 475: this process can hold at most 462"; r.code != exitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
}
