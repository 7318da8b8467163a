package model

// The Tracker holds its levels as LevelStats; these read them as their report entries
// (LevelStats.Report), through the one judgement (JudgeEndpoint), so that the live
// screen, the time series and the engine's settle say what a file read back says.

// judgeLevels judges levels held as LevelStats, with the default level rule.
func judgeLevels(levels []LevelStats, slo SLO, interrupted, walking bool) EndpointJudgement {
	e := ReportEndpoint{Levels: make([]ReportLevel, len(levels))}
	for i := range levels {
		e.Levels[i] = levels[i].Report()
	}
	s := ReportSettings{SLO: slo.orDefault().Report()}
	return JudgeEndpoint(&s, &e, interrupted, walking)
}

// capacity is the capacity level over the given levels (0 when none: see CapacityClaim).
func capacity(levels []LevelStats, slo SLO) int { return capacityOf(levels, slo, false).Users }

// capacityOf is the capacity over the given levels, as results.json keeps it.
func capacityOf(levels []LevelStats, slo SLO, interrupted bool) ReportCap {
	return judgeLevels(levels, slo, interrupted, false).Capacity.Report()
}

// saturation is the saturation over the given levels (ordered by concurrency).
func saturation(levels []LevelStats) (int, bool) {
	s := judgeLevels(levels, DefaultSLO, false, false).Saturation
	return s.Level, s.Kind == SatAt
}
