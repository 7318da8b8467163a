package settings

import (
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

func TestResolveShardFromJobIndex(t *testing.T) {
	now := time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC)
	s := merged(t, nil, "--shards", "4", "--start-at", "2026-11-23T17:00:00+01:00").Shard
	s.JobIndex = val("2", envOrigin(JobIndexEnv))
	sh, err := shard(s)
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Ramp: engine.Ramp{Levels: []int{4}, Hold: 10 * time.Second}, Shard: sh}
	if err := p.schedule(s, Value[time.Duration]{}, now); err != nil {
		t.Fatal(err)
	}
	if *p.Shard != (model.ReportShard{Index: 2, Count: 4}) || !p.StartAt.Equal(now) || len(p.Notes) != 1 ||
		!strings.Contains(p.Notes[0], "the early stop (errors > 5%, TTFT p95 > 2 x target) are off") {
		t.Errorf("plan %+v %v, notes %q", p.Shard, p.StartAt, p.Notes)
	}
	// A start time less than a hold ago is taken: the run says how late it started.
	late := &Plan{Ramp: p.Ramp}
	if err := late.schedule(merged(t, nil, "--start-at", "2026-11-23T15:59:55Z").Shard, Value[time.Duration]{}, now); err != nil {
		t.Errorf("5 s late with a 10 s hold: %v", err)
	}
}

// TestShardSeed: shards given one seed (a shared config) each draw their own prompts and
// arrivals, reproducibly; shard 0 keeps the seed, and no seed stays none.
func TestShardSeed(t *testing.T) {
	seen := map[uint64]bool{}
	for i := range 8 {
		s := shardSeed(42, &model.ReportShard{Index: i, Count: 8})
		if s == 0 || s >= maxExactSeed || seen[s] || s != shardSeed(42, &model.ReportShard{Index: i, Count: 8}) {
			t.Errorf("shard %d: seed %d", i, s)
		}
		seen[s] = true
	}
	if shardSeed(42, &model.ReportShard{Index: 0, Count: 2}) != 42 || shardSeed(42, nil) != 42 || shardSeed(0, &model.ReportShard{Index: 1, Count: 2}) != 0 {
		t.Error("shard 0, a whole run and a prompt without seed keep their seed")
	}
	if s := shardSeed(maxExactSeed-1, &model.ReportShard{Index: 3, Count: 4}); s == 0 || s >= maxExactSeed {
		t.Errorf("the largest seed, shard 3: %d", s)
	}
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	got, err := planOf(Bench, nil, nil, "--seed", "42", "--shard", "1/2", "--start-at", future)
	if err != nil || got.Template.PromptSeed != shardSeed(42, &model.ReportShard{Index: 1, Count: 2}) {
		t.Errorf("plan %+v (%v): shard 1/2 with --seed 42 does not use its own seed", got, err)
	}
}

func TestParseSettle(t *testing.T) {
	for in, want := range map[string]int{"capacity": engine.SettleCapacity, " Capacity ": engine.SettleCapacity, "0": 0, "12": 12} {
		if got, err := parseSettle(in); err != nil || got != want {
			t.Errorf("parseSettle(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "cap", "10001", "1.5"} {
		if _, err := parseSettle(in); err == nil || !strings.Contains(err.Error(), "want capacity, 0 (stop the load) or a number of users up to 10000") {
			t.Errorf("parseSettle(%q) = %v; want an error saying what it wants", in, err)
		}
	}
}

// TestRefusedNamesFlags: the engine's and probe's typed errors name no flag; each field
// is said at its flag.
func TestRefusedNamesFlags(t *testing.T) {
	for field, name := range fieldFlags {
		err := Refused(&client.FieldError{Field: field, Problem: "bad"})
		if se, ok := err.(*Error); !ok || se.msg != "--"+name+": bad" {
			t.Errorf("%s: %v; want a refused setting %q", field, err, "--"+name+": bad")
		}
	}
}
