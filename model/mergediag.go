package model

// mergeDiagnosis is endpoint i's diagnosis over the reports merged: every finding of
// each, the most telling first, each saying which file saw it (its times count from
// that run's start); diagnosed only when every report was, so that a merge never says
// nothing wrong was seen of a run the diagnosis did not watch.
func mergeDiagnosis(files []MergeFile, i int) ([]Finding, bool) {
	var out []Finding
	diagnosed := true
	for _, f := range files {
		fe := &f.Report.Endpoints[i]
		diagnosed = diagnosed && fe.Diagnosed
		for _, d := range fe.Diagnosis {
			if len(files) > 1 {
				d.Evidence = append(append([]string(nil), d.Evidence...), "seen in "+f.Name)
			}
			out = append(out, d)
		}
	}
	RankFindings(out)
	return out, diagnosed
}
