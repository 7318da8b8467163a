package main

import (
	"fmt"

	"github.com/tpsmon/tpsmon/probe"
)

// streamLimit is how many concurrent streams this process can hold, and the open-files
// soft limit behind it (0 when unknown).
type streamLimit struct {
	max  int
	soft uint64
}

// openFiles raises the open-files limit to its hard limit (Linux) and says how many
// streams it allows (probe.MaxStreams). Tests set a.limit instead.
func (a *app) openFiles() streamLimit {
	if a.limit != nil {
		return a.limit()
	}
	soft, _, _ := probe.RaiseOpenFileLimit() // on failure soft is the limit as it is
	return streamLimit{max: probe.MaxStreams(), soft: soft}
}

// checkStreams raises the open-files limit and refuses a plan whose users (the live
// screen's start), ramp levels or settle level, counted over every endpoint since all are
// loaded together, exceed the streams this process can hold. The plan keeps the limit
// for the engine (the screen's keys stop there too).
func (a *app) checkStreams(p *plan, users int, rampFrom string) error {
	lim := a.openFiles()
	p.streams = lim.max
	endpoints := max(len(p.endpoints), 1) // the simulator is one
	levels := p.ramp.Levels
	if p.shard != nil { // a shard holds its share of each level
		levels = make([]int, len(p.ramp.Levels))
		for i, l := range p.ramp.Levels {
			levels[i] = p.shard.Users(l)
		}
		rampFrom += " (shard " + shardWords(p.shard) + "'s share)"
	}
	if err := checkConcurrency(levels, rampFrom, users, endpoints, lim); err != nil {
		return err
	}
	if s := p.bounds.settle; s*endpoints > lim.max {
		return usageErrorf("settle at %d users%s: %s", s, streamsOf(s, endpoints), lim.why())
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
// screen's start, 0 when none) or a level above lim.max once multiplied by the endpoints
// loaded together. rampFrom says where the levels were written ("--ramp", or the config's
// file and line).
func checkConcurrency(levels []int, rampFrom string, users, endpoints int, lim streamLimit) error {
	if users*endpoints > lim.max {
		return usageErrorf("--users %d%s: %s", users, streamsOf(users, endpoints), lim.why())
	}
	for _, l := range levels {
		if l*endpoints > lim.max {
			return usageErrorf("%s: level %d%s: %s", rampFrom, l, streamsOf(l, endpoints), lim.why())
		}
	}
	return nil
}

// why says what bounds the streams and what to do.
func (lim streamLimit) why() string {
	if lim.max >= probe.StreamCap {
		return fmt.Sprintf("tpsmon holds at most %d concurrent streams in one process (its cap, whatever the open-file limit); "+
			"ask for fewer, or split the load over several tpsmon processes and combine their results with tpsmon merge", probe.StreamCap)
	}
	limit := "the open-file limit (ulimit -n)"
	if lim.soft > 0 {
		limit = fmt.Sprintf("the open-file limit (ulimit -n) is %d", lim.soft)
	}
	return fmt.Sprintf("this process can hold at most %d concurrent streams: each needs open files, and %s, already raised as far as the hard limit allows; "+
		"raise the hard limit (e.g. ulimit -Hn 65536 as root, or nofile in /etc/security/limits.conf) or ask for fewer", lim.max, limit)
}

// rampFrom says where the ramp's levels were written: the config's file and line when
// they come from it, else --ramp.
func rampFrom(cfg *fileConfig, changed func(string) bool) string {
	if len(cfg.Ramp.Levels) > 0 && !changed("ramp") {
		return cfg.at("ramp.levels")
	}
	return "--ramp"
}
