package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// writeTraffic writes an endpoint's second table: goodput, chunk gaps, the lengths
// really sent and received, in rate mode the achieved rate, the mean in flight and the
// client-side wait (with the share of arrivals that found the cap full), and for a
// trace's windows the achieved rate, the mean in flight and how late requests left.
func writeTraffic(b *strings.Builder, e *model.ReportEndpoint, j *model.EndpointJudgement) {
	rate, trace := j.Rate, j.Trace != nil
	head := " goodput | goodput req/s | chunk gap p50 ms | p90 | p99 | input tokens mean | p50 | p90 | output tokens mean | p50 | p90 |"
	switch {
	case trace:
		head = "| window | achieved req/s | in flight (mean) | late p95 ms |" + head
	case rate:
		head = "| rate req/s | achieved req/s | in flight (mean) | client wait p95 ms | capped |" + head
	default:
		head = "| users |" + head
	}
	b.WriteString(head + "\n|" + strings.Repeat("---:|", strings.Count(head, "|")-1) + "\n")
	for i := range e.Levels {
		l := &e.Levels[i]
		g, in, out, gap := l.Goodput, l.Lengths.Input, l.Lengths.Output, l.ChunkGaps
		good, goodRate := "-", "-"
		if g.Judged > 0 {
			good = model.FormatPercent(g.Share) + " (" + strconv.Itoa(g.Met) + "/" + strconv.Itoa(g.Judged) + ")"
			if l.DurationS > 0 {
				goodRate = fmtNum(g.Rate, 2)
			}
		}
		row := fmt.Sprintf("| %d |", l.Concurrency)
		if w := l.ClientWaitMs; trace {
			row += fmt.Sprintf(" %s | %s | %s |", cell(l.DurationS > 0, l.RequestRate), cell(l.DurationS > 0, l.InFlightMean),
				cell(w != nil && w.Arrivals > 0, waitP95(w)))
		}
		if rate {
			w := model.WaitStats{}
			if l.ClientWaitMs != nil {
				w = *l.ClientWaitMs
			}
			capped := model.FormatPercent(w.CappedShare)
			if w.Capped > 0 {
				capped += " (the cap set the pace)"
			}
			row += fmt.Sprintf(" %s | %s | %s | %s |", cell(l.DurationS > 0, l.RequestRate), cell(l.DurationS > 0, l.InFlightMean),
				cell(w.Arrivals > 0, w.P95), capped)
		}
		row += fmt.Sprintf(" %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", good, goodRate,
			cell(gap.Count > 0, gap.P50), cell(gap.Count > 0, gap.P90), cell(gap.Count > 0, gap.P99),
			cell(in.Count > 0, in.Mean), cell(in.Count > 0, in.P50), cell(in.Count > 0, in.P90),
			cell(out.Count > 0, out.Mean), cell(out.Count > 0, out.P50), cell(out.Count > 0, out.P90))
		b.WriteString(row)
	}
	b.WriteString("\ngoodput: requests that met TTFT and their own tok/s targets (per request); chunk gaps: times between a request's chunks, pooled over its level.\n")
}

// waitP95 is a level's client wait p95 (0 without one).
func waitP95(w *model.WaitStats) float64 {
	if w == nil {
		return 0
	}
	return w.P95
}
