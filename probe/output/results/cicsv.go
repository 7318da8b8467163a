package results

import (
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// csvCIHeader are CSV's columns for the levels' 95% intervals and the level rule's marks,
// after the TTFO columns: each figure's interval as two columns (empty when not measured; the upper end
// empty when unbounded), the criteria the level stayed undecided on (";"-separated SLO
// terms), whether the capacity's bisection added the level, and, last, its state as the
// judgement reads it and every table marks it: empty when measured in full, else
// "short", "stopped", "undecided: errors", "too few", "no steady answer", "warm-up only".
var csvCIHeader = []string{
	"user_tps_p50_lo", "user_tps_p50_hi", "ttft_p50_ms_lo", "ttft_p50_ms_hi", "ttft_p95_ms_lo", "ttft_p95_ms_hi",
	"aggregate_tps_lo", "aggregate_tps_hi", "error_rate_lo", "error_rate_hi", "undecided", "refined", "state",
}

// ciCells are a level's cells under csvCIHeader; state is the level's judgement.
func ciCells(l *model.ReportLevel, state model.LevelJudgement, f func(bool, float64) string) []string {
	var out []string
	for _, iv := range []*model.Interval{l.CI95.UserTPSP50, l.CI95.TTFTP50, l.CI95.TTFTP95, l.CI95.AggregateTPS, l.CI95.ErrorRate} {
		if iv == nil {
			out = append(out, "", "")
			continue
		}
		out = append(out, f(true, iv.Lo), f(iv.Bounded(), iv.Hi))
	}
	mark := state.Mark()
	if l.Requests == 0 { // as the tables: a row no request ended in is marked nothing
		mark = ""
	}
	return append(out, strings.Join(l.Undecided, ";"), strconv.FormatBool(l.Refined), mark)
}
