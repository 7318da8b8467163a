package settings

import (
	"fmt"

	"github.com/tpsmon/tpsmon/probe"
)

// StreamLimit is how many concurrent streams this process can hold, and the open-files
// soft limit behind it (0 when unknown).
type StreamLimit struct {
	Max  int
	Soft uint64
}

// streams refuses a plan whose users (the live screen's start), levels or settle level,
// counted over every endpoint since all are loaded together, exceed the streams this
// process can hold. The plan keeps the limit for the engine (the screen's keys stop
// there too).
func (p *Plan) streams(lim StreamLimit) error {
	p.Streams = lim.Max
	endpoints := max(len(p.Endpoints), 1) // the simulator is one
	levels, from := p.Ramp.Levels, p.walkFrom
	if p.Shard != nil { // a shard holds its share of each level
		levels = make([]int, len(p.Ramp.Levels))
		for i, l := range p.Ramp.Levels {
			levels[i] = p.Shard.Users(l)
		}
		from += " (shard " + ShardWords(p.Shard) + "'s share)"
	}
	if err := checkConcurrency(levels, from, p.Users, endpoints, lim); err != nil {
		return err
	}
	if s := p.Settle; s*endpoints > lim.Max {
		return errorf("settle at %d users%s: %s", s, streamsOf(s, endpoints), lim.why())
	}
	return nil
}

// streamsOf says how many streams n users on each endpoint are ("" for one endpoint).
func streamsOf(n, endpoints int) string {
	if endpoints == 1 {
		return ""
	}
	return fmt.Sprintf(" on each of %d endpoints loaded together is %d streams", endpoints, n*endpoints)
}

// checkConcurrency refuses a concurrency this process cannot hold: users (the live
// screen's start, 0 when none) or a level above lim.Max once multiplied by the endpoints
// loaded together. from says where the levels were written ("--ramp", or the config's
// file and line).
func checkConcurrency(levels []int, from string, users, endpoints int, lim StreamLimit) error {
	if users*endpoints > lim.Max {
		return errorf("--users %d%s: %s", users, streamsOf(users, endpoints), lim.why())
	}
	for _, l := range levels {
		if l*endpoints > lim.Max {
			return errorf("%s: level %d%s: %s", from, l, streamsOf(l, endpoints), lim.why())
		}
	}
	return nil
}

// why says what bounds the streams and what to do.
func (lim StreamLimit) why() string {
	if lim.Max >= probe.StreamCap {
		return fmt.Sprintf("tpsmon holds at most %d concurrent streams in one process (its cap, whatever the open-file limit); "+
			"ask for fewer, or split the load over several tpsmon processes and combine their results with tpsmon merge", probe.StreamCap)
	}
	limit := "the open-file limit (ulimit -n)"
	if lim.Soft > 0 {
		limit = fmt.Sprintf("the open-file limit (ulimit -n) is %d", lim.Soft)
	}
	return fmt.Sprintf("this process can hold at most %d concurrent streams: each needs open files, and %s, already raised as far as the hard limit allows; "+
		"raise the hard limit (e.g. ulimit -Hn 65536 as root, or nofile in /etc/security/limits.conf) or ask for fewer", lim.Max, limit)
}
