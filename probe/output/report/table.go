package report

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// levelHeader is the header of the level table; units are in the names. The TTFO
// columns are left out unless TTFO is worth showing (model.ReportEndpoint.ShowsTTFO).
var levelHeader = []string{
	"users", "requests", "errors", "per-user tok/s p50", "p10", "p90", "aggregate tok/s",
	"TTFT p50 ms", "TTFT p95 ms", "TTFO p50 ms", "TTFO p95 ms", "TPOT p50 ms", "stall p95 ms", "meets the criteria",
}

// The indexes of the columns levelTable may leave out.
const (
	ttfoColumn  = 9  // "TTFO p50 ms", followed by "TTFO p95 ms"
	stallColumn = 12 // "stall p95 ms"
)

// levelTable is a series' level table: one row per level, "-" for what was not
// measured; without the stall column when the file records no stall, and without the
// TTFO columns unless TTFO differs from TTFT somewhere.
func levelTable(s *Series) (header []string, rows [][]string) {
	header, rows = slices.Clone(levelHeader), levelRows(s)
	drop := func(from, n int) {
		header = slices.Delete(header, from, from+n)
		for i := range rows {
			rows[i] = slices.Delete(rows[i], from, from+n)
		}
	}
	if !slices.ContainsFunc(rows, func(r []string) bool { return r[stallColumn] != "-" }) {
		drop(stallColumn, 1)
	}
	if !s.Judgement.TTFO {
		drop(ttfoColumn, 2)
	}
	header[0] = s.Judgement.LevelColumn()
	return header, rows
}

// levelRows is a series' level table, every column of levelHeader. A level not measured
// in full is marked with its state; a figure that fails its target is never shown
// rounded onto it (model.Cell).
func levelRows(s *Series) [][]string {
	slo := s.SLO()
	ttftLim, ttfoLim := msOf(slo.TTFTP95Max), msOf(slo.TTFOP95Max)
	var rows [][]string
	for i, l := range s.Endpoint.Levels {
		lj := s.Judgement.Levels[i]
		u := strconv.Itoa(l.Concurrency)
		var marks []string
		if lj.Refined {
			marks = append(marks, "refined")
		}
		if m := lj.Mark(); m != "" && l.Requests > 0 {
			marks = append(marks, m)
		}
		if len(marks) > 0 {
			u += " (" + strings.Join(marks, ", ") + ")"
		}
		req := strconv.Itoa(l.Requests)
		if n, ok := s.SteadyRequests(i); ok {
			req += " (" + strconv.Itoa(n) + " steady)"
		}
		_, user := userP50(l)
		_, ttft := ttftP95(l)
		ttfo := l.Succeeded > 0 && l.TTFOMs != (model.LatencyJSON{})
		rows = append(rows, []string{
			u, req, errorsCell(&l),
			pmCell(user, l.UserTPS.P50, l.CI95.UserTPSP50, slo.UserTPSMin, l.UserTPS.P50 < slo.UserTPSMin), cell(user, l.UserTPS.P10), cell(user, l.UserTPS.P90),
			pmCell(l.DurationS > 0, l.AggregateTPS, l.CI95.AggregateTPS, 0, false),
			cell(ttft, l.TTFTMs.P50), failCell(ttft, l.TTFTMs.P95, ttftLim, l.TTFTMs.P95 > ttftLim),
			cell(ttfo, l.TTFOMs.P50), failCell(ttfo, l.TTFOMs.P95, ttfoLim, ttfoLim > 0 && l.TTFOMs.P95 > ttfoLim),
			cell(l.TPOTMs != (model.LatencyJSON{}), l.TPOTMs.P50),
			cell(l.StallMs != (model.LatencyJSON{}), l.StallMs.P95),
			meetsCell(lj),
		})
	}
	return rows
}

// meetsCell says whether a level meets the criteria: "yes", "no: errors 4.55% > 1%";
// for a level not measured in full, that it was not judged and what its figures show,
// never a "yes" or "no" its few requests cannot support: "not judged (short): its
// figures meet them", "not judged (undecided): errors 2.41% > 1%", "not measured (...)".
func meetsCell(lj model.LevelJudgement) string {
	why := strings.Join(lj.Failures, ", ")
	switch {
	case lj.State == model.LevelNotMeasured:
		return why
	case lj.State.Bounds() && lj.Meets:
		return "yes"
	case lj.State.Bounds():
		return "no: " + why
	case lj.Meets:
		return "not judged (" + lj.State.Mark() + "): its figures meet them"
	}
	return "not judged (" + lj.State.Mark() + "): " + why
}

// msOf is d in float milliseconds.
func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// failCell is cell, with the decimals it takes to show a failing figure apart from its
// target (model.Cell).
func failCell(ok bool, v, target float64, fails bool) string {
	if !ok {
		return "-"
	}
	return model.Cell(v, target, 1, fails)
}

// legend says what the level table's "±" is, when one of its rows shows one ("" otherwise).
func legend(rows [][]string) string {
	for _, r := range rows {
		for _, c := range r {
			if strings.Contains(c, "±") {
				return model.IntervalLegend
			}
		}
	}
	return ""
}

// pmCell is failCell with the figure's 95% interval as "±" (model.PlusMinus).
func pmCell(ok bool, v float64, iv *model.Interval, target float64, fails bool) string {
	if !ok {
		return "-"
	}
	return model.PlusMinus(v, iv, target, 1, fails)
}

func cell(ok bool, v float64) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// heading names a series for its table: label, endpoint, model, URL, simulated.
func heading(s *Series) []string {
	h := []string{s.Label}
	e := s.Endpoint
	if e.Name != s.Label && !strings.HasSuffix(s.Label, " · "+e.Name) {
		h = append(h, e.Name)
	}
	if e.Model != "" {
		h = append(h, e.Model)
	}
	if e.URL != "" {
		h = append(h, e.URL)
	}
	if e.Simulated {
		h = append(h, "SIMULATED")
	}
	return h
}
