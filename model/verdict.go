package model

import (
	"fmt"
	"strconv"
)

// capacityWords is the capacity in words, shared by the Markdown report ("Capacity: "
// and these words) and the live screen's verdict: "16 users (criteria)", "at least 16
// users (limit not reached: why)", or "no level meets criteria". stopped, when not
// empty, is why a lower bound was not pushed further (e.g. "the run was interrupted");
// empty, a lower bound means the highest level measured meets the criteria.
// A nil slo says "the criteria" instead of naming them (the screen's short form).
// name says a level's key: "16 users", or "8 requests/s" in rate mode.
func capacityWords(c ReportCap, slo *SLO, stopped string, name func(int) string) string {
	crit := "the criteria"
	if slo != nil {
		crit = slo.String()
	}
	switch {
	case c.Users > 0 && c.AtLeast && stopped != "" && slo == nil:
		return fmt.Sprintf("at least %s (limit not reached: %s)", name(c.Users), stopped)
	case c.Users > 0 && c.AtLeast && stopped != "":
		return fmt.Sprintf("at least %s (limit not reached: %s) for %s", name(c.Users), stopped, crit)
	case c.Users > 0 && c.AtLeast:
		return fmt.Sprintf("at least %s (limit not reached: the highest level measured meets %s)", name(c.Users), crit)
	case c.Users > 0 && slo == nil:
		return name(c.Users)
	case c.Users > 0:
		return fmt.Sprintf("%s (%s)", name(c.Users), crit)
	case slo == nil:
		return "none"
	}
	return fmt.Sprintf("no level meets %s", crit)
}

// Verdict is one endpoint's capacity and saturation in words, for the live screen, e.g.
// "capacity 16 users (per-user p50 >= 30 tok/s, TTFT p95 <= 2000 ms, errors <= 1%) -
// saturates at 32 users (740 tok/s)". While running (an auto-ramp goes on) the level
// being measured is left out until it completes, and a capacity at the top level
// completed is "at least ... (limit not reached: the ramp goes on)".
// When no level meets the criteria it names what the lowest level failed. "" before any
// level is measured (LevelStats.Measured: a level left in its warm-up with only
// successes is not judged). Short leaves the criteria unnamed ("capacity 16 users -
// saturates at 32 users (740 tok/s)"), for narrow screens that show the targets elsewhere.
func Verdict(levels []LevelStats, slo SLO, running, short bool) string {
	var measured []LevelStats
	for i := range levels {
		if levels[i].Measured() && !(running && levels[i].Open) {
			measured = append(measured, levels[i])
		}
	}
	if len(measured) == 0 {
		return ""
	}
	stopped := ""
	if running {
		stopped = "the ramp goes on"
	}
	name := users
	if measured[0].OpenLoop {
		name = func(n int) string { return strconv.Itoa(n) + " requests/s" }
	}
	// While the ramp goes on, the open level is left out: a completed level above the
	// capacity that failed makes it exact; only a capacity at the top completed level is
	// a lower bound ("the ramp goes on").
	c := capacityOf(measured, slo, false)
	crit := &slo
	if short {
		crit = nil
	}
	s := "capacity " + capacityWords(c, crit, stopped, name)
	if c.Decided && !running {
		s += ", decided at 95%"
	}
	if c.Users == 0 {
		if why := slo.Failures(&measured[0]); len(why) > 0 {
			s += " - " + name(measured[0].Concurrency) + ": " + why[0]
		}
	}
	if u, ok := saturation(measured); ok {
		for i := range measured {
			if measured[i].Concurrency == u {
				s += " - saturates at " + name(u) + " (" + strconv.FormatFloat(measured[i].AggregateTPS, 'f', 0, 64) + " tok/s)"
			}
		}
	}
	return s
}
