package model

import "slices"

// mergeCI is what a merged level's intervals need beyond its histograms and counts.
type mergeCI struct {
	noAgg     bool     // a report's level carried no aggregate sums (written before intervals)
	undecided []string // the criteria any report's level was undecided on
}

// addCI adds one report's level: its aggregate sums, undecided criteria and refined mark.
func (m *mergeLevel) addCI(rl *ReportLevel) {
	if a := rl.Hist.Aggregate; a != nil {
		m.l.agg.Merge(*a)
	} else {
		m.ci.noAgg = true
	}
	for _, t := range rl.Undecided {
		if !slices.Contains(m.ci.undecided, t) {
			m.ci.undecided = append(m.ci.undecided, t)
		}
	}
	m.l.refined = m.l.refined || rl.Refined
}

// finishCI recomputes the merged level's intervals from the merged histograms and sums
// (the aggregate's over its merged figure: for shards, the sum of their rates), with
// none for the aggregate when a report lacked its sums. A criterion a report's level was
// undecided on stays undecided only when the merged intervals still leave it undecided:
// the runs together may hold enough requests to decide it.
func (m *mergeLevel) finishCI(ls *LevelStats, slo SLO) {
	m.l.setCI(ls)
	if m.ci.noAgg {
		ls.CI.AggregateTPS, ls.look.AggregateTPS = nil, nil
	}
	ls.Refined = m.l.refined
	ls.Undecided = nil
	for _, c := range slo.Call(ls).Calls {
		if c.Decision == Undecided && slices.Contains(m.ci.undecided, c.Term) {
			ls.Undecided = append(ls.Undecided, c.Term)
		}
	}
}
