package model

import (
	"fmt"
	"strconv"
)

// Merging open-loop levels (rate mode and traces) and trace runs: the arrivals'
// client-side wait is merged from its histogram (hist.client_wait) with the capped and
// late arrivals summed, so that a merged trace run is judged on all of its late
// requests (a trace sent late is never held at its load); a file whose open-loop level
// carries no such histogram (an older tpsmon) leaves the merged level without a client
// wait, and MergeNotes says so. A trace run's windows keep their spans, and the merged
// settings.trace counts the late and capped requests of every replay.

// mergeOpen accumulates the client-side wait of one level over the reports.
type mergeOpen struct {
	open, noHist bool // some report's level was open loop; one of them carried no histogram
	window       []float64
}

// addOpen adds one report's level's client-side wait and trace window into m.
func (m *mergeLevel) addOpen(rl *ReportLevel) error {
	if len(rl.TraceWindowS) == 2 && m.open.window == nil {
		m.open.window = rl.TraceWindowS
	}
	w := rl.ClientWaitMs
	if w == nil {
		return nil
	}
	m.open.open = true
	if rl.Hist.ClientWait == nil {
		m.open.noHist = true
		return nil
	}
	h, err := HistFromJSON(*rl.Hist.ClientWait)
	if err == nil {
		err = m.l.wait.h.Merge(h)
	}
	if err != nil {
		return fmt.Errorf("hist.client_wait: %w", err)
	}
	m.l.openLoop = true
	m.l.wait.capped += w.Capped
	m.l.wait.late += w.Late
	return nil
}

// finishOpen sets a merged level's open-loop figures: no client wait when a report
// carried no histogram of it, and a trace's window in place of a rate.
func (m *mergeLevel) finishOpen(rl *ReportLevel, s *ReportSettings) {
	if m.open.noHist {
		rl.ClientWaitMs = nil
	}
	if s.TraceRun() {
		rl.Rate, rl.TraceWindowS = nil, m.open.window
	}
}

// mergeTraceSettings counts the late and capped requests of every replay in the merged
// settings.trace.
func mergeTraceSettings(out *ReportSettings, files []MergeFile) {
	if out.Trace == nil {
		return
	}
	t := *out.Trace
	t.Late, t.LateMaxMs, t.Capped = 0, 0, 0
	for _, f := range files {
		if ft := f.Report.Settings.Trace; ft != nil {
			t.Late, t.Capped, t.LateMaxMs = t.Late+ft.Late, t.Capped+ft.Capped, max(t.LateMaxMs, ft.LateMaxMs)
		}
	}
	out.Trace = &t
}

// mergeTrafficSettings are the traffic settings that must be the same in every merged
// report: the mode, the arrival, the trace replayed (wherever its file lies) and how
// conversations were played.
var mergeTrafficSettings = []struct {
	name string
	get  func(*Report) string
}{
	{"settings.mode", func(r *Report) string { return r.Settings.Mode }},
	{"settings.arrival", func(r *Report) string { return r.Settings.Arrival }},
	{"settings.max_concurrency", func(r *Report) string { return strconv.Itoa(r.Settings.MaxConcurrency) }},
	{"settings.trace", func(r *Report) string {
		if t := r.Settings.Trace; t != nil {
			return fmt.Sprintf("%s over %s at %sx speed in windows of %s", Plural(t.Requests, "request"), seconds(t.DurationS), fmtNum(t.Speed, 3), seconds(t.WindowS))
		}
		return "none"
	}},
	{"settings.turns", func(r *Report) string {
		return r.Settings.Turns + " " + r.Settings.History + " " + fmtFloat(r.Settings.ThinkS)
	}},
}

// clientWaitHist is a level's client-side wait histogram for results.json (nil when no
// arrival was paced: users mode).
func (l *level) clientWaitHist() *HistJSON {
	if !l.openLoop {
		return nil
	}
	j := l.wait.h.JSON()
	return &j
}

// lacksWait is the name of the first endpoint of r with an open-loop level without a
// client-wait histogram.
func lacksWait(r *Report) (string, bool) {
	for _, e := range r.Endpoints {
		for _, l := range e.Levels {
			if l.ClientWaitMs != nil && l.Hist != nil && l.Hist.ClientWait == nil {
				return e.Name, true
			}
		}
	}
	return "", false
}
