package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// mdServerHeader is the header of the server's-view table; its first column is the
// level's (model.EndpointJudgement.LevelColumn).
const mdServerHeader = "| users | waiting mean | waiting max | running mean | KV mean % | server tok/s | received tok/s | preemptions |\n" +
	"|---:|---:|---:|---:|---:|---:|---:|---:|\n"

// writeServer writes the server's own view per level (from its /metrics), when some
// level has one: mean and max waiting requests, mean running, mean KV-cache use, the
// tokens the server generated per second beside those tpsmon received, and the
// preemptions. Nothing when no level has one. The cross-check of the two is the
// judgement's (a note).
func writeServer(b *strings.Builder, e *model.ReportEndpoint, j *model.EndpointJudgement) {
	any := false
	for i := range e.Levels {
		any = any || e.Levels[i].Server != nil
	}
	if !any {
		return
	}
	b.WriteString("\nServer's view (its own /metrics, scraped once a second in each level's steady time):\n\n")
	b.WriteString(strings.Replace(mdServerHeader, "users", j.LevelColumn(), 1))
	for i := range e.Levels {
		l := &e.Levels[i]
		sv := l.Server
		if sv == nil {
			continue
		}
		recv := "-"
		if l.DurationS > 0 {
			recv = strconv.FormatFloat(l.AggregateTPS, 'f', 1, 64)
		}
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", l.Concurrency,
			ptrCell(sv.WaitingMean, 1), ptrCell(sv.WaitingMax, 0), ptrCell(sv.RunningMean, 1),
			ptrCell(sv.KVMeanPct, 1), ptrCell(sv.GenTPS, 1), recv, ptrCell(sv.Preemptions, 0))
	}
	b.WriteString("\n")
}

// ptrCell is v with prec decimals, "-" when absent.
func ptrCell(v *float64, prec int) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}
