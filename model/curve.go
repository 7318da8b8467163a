package model

// capacity is Capacity over the given levels. A level undecided at its maximum hold
// (LevelStats.Undecided) neither sets nor bounds it.
func capacity(levels []LevelStats, slo SLO) int {
	best := 0
	for i := range levels {
		if len(levels[i].Undecided) == 0 && slo.Meets(&levels[i]) && levels[i].Concurrency > best {
			best = levels[i].Concurrency
		}
	}
	return best
}

// saturation is Saturation over the given levels (ordered by concurrency).
func saturation(levels []LevelStats) (int, bool) {
	var ms []*LevelStats
	for i := range levels {
		if levels[i].Duration > 0 {
			ms = append(ms, &levels[i])
		}
	}
	for i, l := range ms {
		for _, m := range ms[i+1:] {
			if m.Concurrency >= 2*l.Concurrency {
				if m.AggregateTPS < 1.10*l.AggregateTPS {
					return l.Concurrency, true
				}
				break
			}
		}
	}
	return 0, false
}
