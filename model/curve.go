package model

// The Tracker holds its levels as LevelStats; these read them as their report entries
// (LevelStats.Report), through the one judgement (JudgeEndpoint), so that the live
// screen, the time series and the engine's settle say what a file read back says.

// judgeLevels judges levels held as LevelStats, with the default level rule (the
// sequential rule's least floor, DefaultRule).
func judgeLevels(levels []LevelStats, slo SLO, interrupted, walking bool) EndpointJudgement {
	s := DefaultRule(slo)
	return judgeWith(levels, &s, interrupted, walking)
}

// judgeWith judges levels held as LevelStats with the settings s.
func judgeWith(levels []LevelStats, s *ReportSettings, interrupted, walking bool) EndpointJudgement {
	e := ReportEndpoint{Levels: ReportLevels(levels)}
	return JudgeEndpoint(s, &e, interrupted, walking)
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

// DefaultRule is the settings a judgement of levels reads when the run's own are not at
// hand (a Tracker's claims, which the engine sets again with the run's): the criteria
// and the sequential level rule's least floor (MinFloor).
func DefaultRule(slo SLO) ReportSettings {
	return ReportSettings{SLO: slo.orDefault().Report(), MinRequests: MinFloor}
}
