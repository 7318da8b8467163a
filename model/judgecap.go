package model

import (
	"slices"
	"strings"
)

// CapKind is what is known of a capacity.
type CapKind int

// The kinds of capacity claims.
const (
	CapNotMeasured CapKind = iota // no level was measured in full (or none got past its warm-up)
	CapExact                      // the largest level measured in full that meets the criteria, with a failing one above
	CapAtLeast                    // a lower bound: nothing measured in full above it fails
	CapNone                       // no level measured in full meets the criteria
)

// CapacityClaim is the capacity: Level is the users (requests/s in rate mode) for
// CapExact and CapAtLeast; Why says why it is a lower bound, why there is none (the
// first failure of the lowest level judged), or why it was not measured.
type CapacityClaim struct {
	Kind  CapKind
	Level int
	Why   string
	// Decision is how sure the claim is at 95%, from the levels' intervals.
	Decision CapacityDecision
	// Above is, for CapExact, the lowest level above Level that bounds it and fails the
	// criteria (the bracket the capacity's bisection closes); 0 otherwise.
	Above int
}

// Report is the claim as results.json keeps it (0 users unless exact or at least;
// decided as Decision says).
func (c CapacityClaim) Report() ReportCap {
	d := c.Decision.Decided
	switch c.Kind {
	case CapExact:
		return ReportCap{Users: c.Level, Decided: d}
	case CapAtLeast:
		return ReportCap{Users: c.Level, AtLeast: true, Decided: d}
	}
	return ReportCap{Decided: d}
}

// judgeCapacity is the capacity over the judged levels: the largest level measured in
// full that meets the criteria. It is exact when a level above it that bounds (measured
// in full, or ended by a stop rule) fails, the lowest such level its Above; otherwise a
// lower bound, saying why: the run was interrupted, the ramp goes on, a level above was
// not measured in full, or the highest level measured in full meets the criteria.
func judgeCapacity(levels []LevelJudgement, interrupted, walking bool) CapacityClaim {
	best := -1
	for i, l := range levels {
		if l.State.Decides() && l.Meets && (best < 0 || l.Level > levels[best].Level) {
			best = i
		}
	}
	if best < 0 {
		return noCapacity(levels)
	}
	c := CapacityClaim{Kind: CapAtLeast, Level: levels[best].Level}
	var above []LevelJudgement
	for _, l := range levels {
		switch {
		case l.Level <= c.Level:
		case l.State.Bounds() && !l.Meets:
			if c.Kind != CapExact || l.Level < c.Above {
				c.Kind, c.Above = CapExact, l.Level
			}
		case l.State != LevelNotMeasured:
			above = append(above, l)
		}
	}
	switch {
	case c.Kind == CapExact:
	case interrupted:
		c.Why = "the run was interrupted"
	case walking:
		c.Why = "the ramp goes on"
	case len(above) > 0:
		c.Why = undecidedWords(above)
	default:
		c.Why = "the highest level measured in full meets the criteria"
	}
	return c
}

// noCapacity is the claim when no level measured in full meets the criteria: none, with
// the first failure of the lowest level that bounds, or not measured.
func noCapacity(levels []LevelJudgement) CapacityClaim {
	for _, l := range levels {
		if l.State.Bounds() && len(l.Failures) > 0 {
			return CapacityClaim{Kind: CapNone, Why: l.Name + ": " + l.Failures[0]}
		}
	}
	var measured, open []LevelJudgement
	for _, l := range levels {
		switch l.State {
		case LevelOpen:
			open = append(open, l)
		case LevelNotMeasured:
		default:
			measured = append(measured, l)
		}
	}
	switch {
	case len(measured) > 0:
		return CapacityClaim{Kind: CapNotMeasured, Why: "no level was measured in full; " + undecidedWords(measured)}
	case len(open) > 0:
		return CapacityClaim{Kind: CapNotMeasured, Why: "no level was measured in full yet; " + undecidedWords(open)}
	}
	return CapacityClaim{Kind: CapNotMeasured, Why: "no level got past its warm-up"}
}

// undecidedWords says why levels that were not measured in full decide nothing: "16
// users short: 12 of 32 steady requests when the maximum hold (120 s) ended it", "16
// users being measured: 5 of 32 steady requests so far".
func undecidedWords(levels []LevelJudgement) string {
	parts := make([]string, 0, len(levels))
	for _, l := range levels {
		if l.State == LevelFull || l.State == LevelStopped {
			parts = append(parts, l.Name+" meets the criteria")
			continue
		}
		parts = append(parts, l.Name+" "+l.StateWords)
	}
	return strings.Join(parts, "; ")
}

// SatKind is what is known of a saturation.
type SatKind int

// The kinds of saturation claims.
const (
	SatNotMeasured SatKind = iota // no level measured in full has one at twice its load measured in full
	SatAt                         // Level saturates: Next (twice its load) adds less than 10%
	SatNotReached                 // every doubling compared added at least 10%
)

// SaturationClaim is the saturation: the first level measured in full after which
// doubling the load (the level at exactly twice it, measured in full) raises aggregate
// tok/s by less than 10%. AggregateTPS is Level's; Skipped names the levels left out
// because they were not measured in full; Failed those measured in full whose every
// request failed (a server down): their aggregate of 0 measures no doubling.
type SaturationClaim struct {
	Kind         SatKind
	Level, Next  int
	AggregateTPS float64
	Skipped      []int
	Failed       []int
}

// judgeSaturation applies the saturation rule to the levels measured in full, in
// increasing load (levels are the report's levels, in the same order as js). A ramp's
// level is compared with the level at exactly twice its load, or else with the next
// ramp level at least twice it (a ramp of 1, 4, 16 users compares 1 with 4); a level
// the capacity's bisection added (22 users) only with one at exactly twice it, never
// with the next ramp level above (64 users, 2.9 times), which would call it the
// saturation for a rise it never measured. A level not measured in full is named among
// the skipped when it could have been compared (a ramp level, or a refined one with a
// level at twice or half its load); a level whose every request failed, among Failed.
func judgeSaturation(js []LevelJudgement, levels []ReportLevel) SaturationClaim {
	full := map[int]*ReportLevel{}
	held := map[int]bool{}
	var loads []int
	var c SaturationClaim
	for i := range levels {
		n := levels[i].Concurrency
		if js[i].State != LevelNotMeasured {
			held[n] = true
		}
		if js[i].State.Decides() && levels[i].DurationS > 0 && levels[i].Requests > 0 && levels[i].Succeeded == 0 {
			c.Failed = append(c.Failed, n)
			continue
		}
		if js[i].State.Decides() && levels[i].DurationS > 0 {
			full[n] = &levels[i]
			loads = append(loads, n)
		}
	}
	for i := range levels {
		n, st := levels[i].Concurrency, js[i].State
		if st.Decides() || st == LevelNotMeasured {
			continue
		}
		if !levels[i].Refined || held[2*n] || (n%2 == 0 && held[n/2]) {
			c.Skipped = append(c.Skipped, n)
		}
	}
	slices.Sort(loads)
	for i, n := range loads {
		l, m := full[n], full[2*n]
		for _, k := range loads[i+1:] {
			if m == nil && !l.Refined && k >= 2*n && !full[k].Refined {
				m = full[k]
			}
		}
		if m == nil {
			continue
		}
		if m.AggregateTPS < 1.10*l.AggregateTPS {
			c.Kind, c.Level, c.Next, c.AggregateTPS = SatAt, n, m.Concurrency, l.AggregateTPS
			return c
		}
		c.Kind = SatNotReached
	}
	return c
}

// Words is the capacity in a few words, for comparisons: "8 users", "at least 8 users",
// "none", "not measured" (requests/s in rate mode).
func (c CapacityClaim) Words(rate bool) string {
	switch c.Kind {
	case CapExact:
		return LevelName(rate, c.Level)
	case CapAtLeast:
		return "at least " + LevelName(rate, c.Level)
	case CapNone:
		return "none"
	}
	return "not measured"
}
