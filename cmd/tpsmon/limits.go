package main

import "fmt"

// checkConcurrency refuses a concurrency this process cannot hold: users (the live
// screen's start, 0 when none) or a ramp level above maxStreams, the streams the
// open-file limit leaves room for (probe.MaxStreams). rampFrom says where the levels
// were written ("--ramp", or the config's file and line).
//
// TODO(lead): once h1's probe.RaiseOpenFileLimit and probe.MaxStreams are on main,
// resolve calls probe.RaiseOpenFileLimit() first and then
// checkConcurrency(p.ramp.Levels, rampFrom, f.users, probe.MaxStreams()).
func checkConcurrency(levels []int, rampFrom string, users, maxStreams int) error {
	why := fmt.Sprintf("this process can hold at most %d concurrent streams: each needs open files, and the open-file limit (ulimit -n) allows no more; raise it (e.g. ulimit -n 65536) or ask for fewer", maxStreams)
	if users > maxStreams {
		return usageErrorf("--users %d: %s", users, why)
	}
	for _, l := range levels {
		if l > maxStreams {
			return usageErrorf("%s: level %d: %s", rampFrom, l, why)
		}
	}
	return nil
}

// rampFrom says where the ramp's levels were written: the config's file and line when
// they come from it, else --ramp.
func rampFrom(cfg *fileConfig, changed func(string) bool) string {
	if len(cfg.Ramp.Levels) > 0 && !changed("ramp") {
		return cfg.at("ramp.levels")
	}
	return "--ramp"
}
