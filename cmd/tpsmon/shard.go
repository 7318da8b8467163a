package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// jobIndexEnv is the variable a Kubernetes Indexed Job sets to each pod's index.
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// shardFlags are bench's flags for one shard of a load split over several processes.
type shardFlags struct {
	shard   string
	shards  int
	startAt string
}

func (s *shardFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&s.shard, "shard", "", "send shard INDEX/COUNT of the load, e.g. 0/4: each level's users split as evenly as possible, the remainder to the lowest indexes (needs --start-at)")
	fs.IntVar(&s.shards, "shards", 0, "with no --shard: the number of shards, this shard's index coming from $"+jobIndexEnv+" (a Kubernetes Indexed Job)")
	fs.StringVar(&s.startAt, "start-at", "", "start at this wall-clock time (RFC 3339, e.g. 2026-11-23T16:00:00Z) and change level on a fixed schedule, each level lasting exactly --hold (no early stop); give every shard the same time")
}

// shardPlan is a shard and its start time, resolved from the flags.
type shardPlan struct {
	shard   *model.ReportShard // nil: the whole load
	startAt time.Time          // zero: no fixed schedule
}

// resolveShard checks shard (parseShardFlags' result) and reads --start-at at now, for a
// ramp held hold per level (and maxHold at most, when set). Every error names the flag
// and says what to do.
func resolveShard(s *shardFlags, shard *model.ReportShard, ramp engine.Ramp, changed func(string) bool, now time.Time) (shardPlan, []string, error) {
	sp := shardPlan{shard: shard}
	hold := ramp.Hold
	var err error
	if s.startAt == "" {
		if sp.shard != nil {
			return sp, nil, usageErrorf("--shard %s needs --start-at: the shards change level at the same moments only on a fixed schedule; give every shard the same time, e.g. --start-at %s",
				shardWords(sp.shard), suggestStart(now))
		}
		return sp, nil, nil
	}
	sp.startAt, err = time.Parse(time.RFC3339Nano, strings.TrimSpace(s.startAt))
	if err != nil {
		return sp, nil, usageErrorf("--start-at %q: not an RFC 3339 time; write e.g. --start-at %s (UTC) or 2026-11-23T17:00:00+01:00", s.startAt, suggestStart(now))
	}
	if ago := now.Sub(sp.startAt); ago > hold {
		return sp, nil, usageErrorf("--start-at %s was %s ago, more than one hold (--hold %s): the first level is over; give a time in the future, e.g. --start-at %s",
			s.startAt, ago.Round(time.Second), hold, suggestStart(now))
	}
	if changed("max-hold") || ramp.MaxHold > 0 {
		return sp, nil, usageErrorf("--max-hold (or the config's ramp.max_hold) cannot be used with --start-at: on a fixed schedule every level lasts exactly --hold (%s)", hold)
	}
	notes := []string{fmt.Sprintf("--start-at: levels change on a fixed schedule, each lasting exactly --hold %s. The adaptive hold "+
		"(max(20, 2 x users) steady requests, --max-hold) and the early stop (errors > 5%%, TTFT p95 > 2 x target) are off: "+
		"shards on other machines could not follow them. A level that ends with too few steady requests is marked short; "+
		"a stop rule only warns.", hold)}
	return sp, notes, nil
}

// resolveShard is bench's shard plan (see resolveShard); it prints the notes.
func (a *app) resolveShard(cmd *cobra.Command, f *runFlags, p *plan) (shardPlan, error) {
	sp, notes, err := resolveShard(&f.shard, p.shard, p.ramp, cmd.Flags().Changed, time.Now())
	for _, n := range notes {
		fmt.Fprintf(a.stderr, "tpsmon: note: %s\n", n)
	}
	return sp, err
}

// parseShardFlags is the shard of --shard, or of --shards and $JOB_COMPLETION_INDEX.
func parseShardFlags(s *shardFlags, changed func(string) bool, getenv func(string) string) (*model.ReportShard, error) {
	if changed("shards") && s.shards < 1 {
		return nil, usageErrorf("--shards %d: want the number of shards, at least 1", s.shards)
	}
	if changed("shard") {
		sh, err := parseShard(s.shard)
		if err != nil {
			return nil, usageErrorf("--shard %q: %v", s.shard, err)
		}
		if changed("shards") && s.shards != sh.Count {
			return nil, usageErrorf("--shard %s and --shards %d disagree on the number of shards; give one of them", s.shard, s.shards)
		}
		return sh, nil
	}
	if !changed("shards") {
		return nil, nil
	}
	v, ok := strings.TrimSpace(getenv(jobIndexEnv)), getenv(jobIndexEnv) != ""
	if !ok {
		return nil, usageErrorf("--shards %d: this shard's index comes from $%s, which is not set (a Kubernetes Indexed Job sets it); or give --shard INDEX/%d",
			s.shards, jobIndexEnv, s.shards)
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= s.shards {
		return nil, usageErrorf("$%s %q: want a shard index from 0 to %d (--shards %d)", jobIndexEnv, v, s.shards-1, s.shards)
	}
	return &model.ReportShard{Index: i, Count: s.shards}, nil
}

// shardSeed is shard's own seed of a run's seed (0, no seed, stays 0): shards given one
// seed (a shared config) would otherwise send the same prompts at the same moments (a
// server's prefix cache would serve them) and, in rate mode, arrive in step instead of
// as independent Poisson streams. Shard 0 keeps the seed; each is below maxExactSeed.
func shardSeed(seed uint64, shard *model.ReportShard) uint64 {
	if seed == 0 || shard == nil || shard.Index == 0 {
		return seed
	}
	return 1 + (seed-1+uint64(shard.Index)*0x9E3779B97F4A7C15%(maxExactSeed-1))%(maxExactSeed-1)
}

// parseShard parses "INDEX/COUNT".
func parseShard(v string) (*model.ReportShard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(v), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return nil, fmt.Errorf("want INDEX/COUNT, e.g. 0/4 for the first of four shards")
	case n < 1:
		return nil, fmt.Errorf("the number of shards (after /) must be at least 1")
	case i < 0 || i >= n:
		return nil, fmt.Errorf("the index runs from 0 to %d with %d shards", n-1, n)
	}
	return &model.ReportShard{Index: i, Count: n}, nil
}

// shardWords is "1/4".
func shardWords(s *model.ReportShard) string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// suggestStart is a start time to suggest: the next whole minute at least 30 s away.
func suggestStart(now time.Time) string {
	return now.Add(30 * time.Second).Truncate(time.Minute).Add(time.Minute).UTC().Format(time.RFC3339)
}

// apply puts the shard and its start time into the engine's configuration.
func (sp shardPlan) apply(cfg *engine.Config) {
	cfg.Shard, cfg.StartAt = sp.shard, sp.startAt
}

// sayPlan tells, before the wait, what this process will send and when it starts.
func (sp shardPlan) sayPlan(w io.Writer, levels []int, rate bool, now time.Time) {
	unit := "users"
	if rate {
		unit = "requests/s"
	}
	if sp.shard != nil {
		shares := make([]string, len(levels))
		var none []string
		for i, l := range levels {
			n := sp.shard.Users(l)
			shares[i] = strconv.Itoa(n)
			if n == 0 {
				none = append(none, strconv.Itoa(l))
			}
		}
		fmt.Fprintf(w, "tpsmon: shard %s: this process sends %s of the levels' %s %s (levels are recorded under the whole level's: merge the shards' results with tpsmon merge)\n",
			shardWords(sp.shard), strings.Join(shares, ", "), joinInts(levels), unit)
		if len(none) > 0 {
			fmt.Fprintf(w, "tpsmon: shard %s sends nothing at the levels of %s %s (their load goes to the lower shards)\n", shardWords(sp.shard), strings.Join(none, ", "), unit)
		}
	}
	if sp.startAt.IsZero() {
		return
	}
	if wait := sp.startAt.Sub(now); wait > 0 {
		fmt.Fprintf(w, "tpsmon: waiting %s for --start-at %s (the shards' clocks must agree: use NTP)\n",
			wait.Round(100*time.Millisecond), sp.startAt.UTC().Format(model.WindowLayout))
	}
}

// joinInts is "1, 2, 4".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
