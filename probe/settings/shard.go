package settings

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/model"
)

// JobIndexEnv is the variable a Kubernetes Indexed Job sets to each pod's index.
const JobIndexEnv = "JOB_COMPLETION_INDEX"

// Shard is bench's share of a load split over several processes (flags and the
// environment only).
type Shard struct {
	Shard    Value[string] // INDEX/COUNT
	Shards   Value[int]    // COUNT, the index from JobIndex
	StartAt  Value[string] // RFC 3339
	JobIndex Value[string] // $JOB_COMPLETION_INDEX
}

// shardFlags registers bench's shard flags.
func (f *Flags) shardFlags(fs *pflag.FlagSet) {
	g, d := &f.Given.Shard, &f.Defaults.Shard
	bind(fs, &g.Shard, &d.Shard, text, "shard", "",
		"send shard INDEX/COUNT of the load, e.g. 0/4: each level's users split as evenly as possible, the remainder to the lowest indexes (needs --start-at)")
	bind(fs, &g.Shards, &d.Shards, whole, "shards", 0,
		"with no --shard: the number of shards, this shard's index coming from $"+JobIndexEnv+" (a Kubernetes Indexed Job)")
	bind(fs, &g.StartAt, &d.StartAt, text, "start-at", "",
		"start at this wall-clock time (RFC 3339, e.g. 2026-11-23T16:00:00Z) and change level on a fixed schedule, each level lasting exactly --hold (no early stop); give every shard the same time")
}

// shard is the shard of --shard, or of --shards and $JOB_COMPLETION_INDEX (nil: the
// whole load).
func shard(s Shard) (*model.ReportShard, error) {
	if s.Shards.Given() && s.Shards.V < 1 {
		return nil, errorf("--shards %d: want the number of shards, at least 1", s.Shards.V)
	}
	if s.Shard.Given() {
		sh, err := parseShard(s.Shard.V)
		if err != nil {
			return nil, errorf("--shard %q: %v", s.Shard.V, err)
		}
		if s.Shards.Given() && s.Shards.V != sh.Count {
			return nil, errorf("--shard %s and --shards %d disagree on the number of shards; give one of them", s.Shard.V, s.Shards.V)
		}
		return sh, nil
	}
	if !s.Shards.Given() {
		return nil, nil
	}
	n := s.Shards.V
	if !s.JobIndex.Set {
		return nil, errorf("--shards %d: this shard's index comes from $%s, which is not set (a Kubernetes Indexed Job sets it); or give --shard INDEX/%d",
			n, JobIndexEnv, n)
	}
	v := strings.TrimSpace(s.JobIndex.V)
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= n {
		return nil, errorf("$%s %q: want a shard index from 0 to %d (--shards %d)", JobIndexEnv, v, n-1, n)
	}
	return &model.ReportShard{Index: i, Count: n}, nil
}

// schedule reads --start-at at now for the plan's ramp: a shard needs one; on it every
// level lasts exactly the hold. Every error names the flag and says what to do.
func (p *Plan) schedule(s Shard, maxHold Value[time.Duration], now time.Time) error {
	hold := p.Ramp.Hold
	if s.StartAt.V == "" {
		if p.Shard != nil {
			return errorf("--shard %s needs --start-at: the shards change level at the same moments only on a fixed schedule; give every shard the same time, e.g. --start-at %s",
				ShardWords(p.Shard), suggestStart(now))
		}
		return nil
	}
	at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s.StartAt.V))
	if err != nil {
		return errorf("--start-at %q: not an RFC 3339 time; write e.g. --start-at %s (UTC) or 2026-11-23T17:00:00+01:00", s.StartAt.V, suggestStart(now))
	}
	if ago := now.Sub(at); ago > hold {
		return errorf("--start-at %s was %s ago, more than one hold (--hold %s): the first level is over; give a time in the future, e.g. --start-at %s",
			s.StartAt.V, ago.Round(time.Second), hold, suggestStart(now))
	}
	if maxHold.Given() || p.Ramp.MaxHold > 0 {
		return errorf("--max-hold (or the config's ramp.max_hold) cannot be used with --start-at: on a fixed schedule every level lasts exactly --hold (%s)", hold)
	}
	p.StartAt = at
	p.Notes = append(p.Notes, fmt.Sprintf("--start-at: levels change on a fixed schedule, each lasting exactly --hold %s. The adaptive hold "+
		"(max(20, 2 x users) steady requests, --max-hold) and the early stop (errors > 5%%, TTFT p95 > 2 x target) are off: "+
		"shards on other machines could not follow them. A level that ends with too few steady requests is marked short; "+
		"a stop rule only warns.", hold))
	return nil
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

// ShardWords is "1/4".
func ShardWords(s *model.ReportShard) string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// suggestStart is a start time to suggest: the next whole minute at least 30 s away.
func suggestStart(now time.Time) string {
	return now.Add(30 * time.Second).Truncate(time.Minute).Add(time.Minute).UTC().Format(time.RFC3339)
}
