package model

import (
	"fmt"
	"strconv"
	"strings"
)

// csvTrafficHeader are CSV's columns for rate mode, workloads and goodput, after the
// others (rate and the client wait are empty outside rate mode).
var csvTrafficHeader = []string{
	"rate", "in_flight_mean", "client_wait_p50_ms", "client_wait_p95_ms", "client_wait_max_ms", "capped_share",
	"goodput_share", "goodput_rate", "input_tokens_mean", "input_tokens_p50", "input_tokens_p90",
	"output_tokens_mean", "output_tokens_p50", "output_tokens_p90", "chunk_gap_p50_ms", "chunk_gap_p90_ms", "chunk_gap_p99_ms",
}

// trafficCells are a level's cells under csvTrafficHeader.
func trafficCells(l *ReportLevel, f func(bool, float64) string) []string {
	rate, w := "", WaitStats{}
	if l.Rate != nil {
		rate = strconv.Itoa(*l.Rate)
	}
	if l.ClientWaitMs != nil {
		w = *l.ClientWaitMs
	}
	waited := l.ClientWaitMs != nil && w.Arrivals > 0
	g, in, out, gap := l.Goodput, l.Lengths.Input, l.Lengths.Output, l.ChunkGaps
	return []string{
		rate, f(l.DurationS > 0, l.InFlightMean), f(waited, w.P50), f(waited, w.P95), f(waited, w.Max), f(waited, w.CappedShare),
		f(g.Judged > 0, g.Share), f(g.Judged > 0 && l.DurationS > 0, g.Rate),
		f(in.Count > 0, in.Mean), f(in.Count > 0, in.P50), f(in.Count > 0, in.P90),
		f(out.Count > 0, out.Mean), f(out.Count > 0, out.P50), f(out.Count > 0, out.P90),
		f(gap.Count > 0, gap.P50), f(gap.Count > 0, gap.P90), f(gap.Count > 0, gap.P99),
	}
}

// csvServerHeader are CSV's columns for the server's own view (its /metrics), last:
// empty when the level has no server view or the server does not publish the figure.
var csvServerHeader = []string{
	"server_scrapes", "server_waiting_mean", "server_waiting_max", "server_running_mean", "server_kv_mean_pct",
	"server_tps", "server_preemptions",
}

// serverCells are a level's cells under csvServerHeader.
func serverCells(l *ReportLevel, f func(bool, float64) string) []string {
	sv := l.Server
	if sv == nil {
		return make([]string, len(csvServerHeader))
	}
	g := func(v *float64) string {
		if v == nil {
			return ""
		}
		return f(true, *v)
	}
	return []string{strconv.Itoa(sv.Scrapes), g(sv.WaitingMean), g(sv.WaitingMax), g(sv.RunningMean), g(sv.KVMeanPct),
		g(sv.GenTPS), g(sv.Preemptions)}
}

// rateMode reports whether an endpoint's levels are arrival rates (rate mode).
func (e *ReportEndpoint) rateMode() bool {
	for i := range e.Levels {
		if e.Levels[i].Rate != nil {
			return true
		}
	}
	return false
}

// levelName names a level of e: "8 users", or "8 requests/s" in rate mode.
func levelName(e *ReportEndpoint) func(int) string {
	if e.traceMode() {
		return e.windowName
	}
	if e.rateMode() {
		return func(n int) string { return strconv.Itoa(n) + " requests/s" }
	}
	return users
}

// LevelWords names a level of e in the run's own terms: "8 users" ("1 user"), or
// "8 requests/s" in rate mode.
func (e *ReportEndpoint) LevelWords(n int) string { return levelName(e)(n) }

// LoadWords is what e's levels step: "users", or "the rate" in rate mode (for "doubling
// users", "doubling the rate").
func (e *ReportEndpoint) LoadWords() string {
	if e.rateMode() {
		return "the rate"
	}
	return "users"
}

// writeTraffic writes an endpoint's second table: goodput, chunk gaps, the lengths
// really sent and received, and in rate mode the achieved rate, the mean in flight
// and the client-side wait (with the share of arrivals that found the cap full).
func writeTraffic(b *strings.Builder, e *ReportEndpoint) {
	rate := e.rateMode()
	head := "| users | goodput | goodput req/s | chunk gap p50 ms | p90 | p99 | input tokens mean | p50 | p90 | output tokens mean | p50 | p90 |"
	if rate {
		head = "| rate req/s | achieved req/s | in flight (mean) | client wait p95 ms | capped |" + strings.TrimPrefix(head, "| users |")
	}
	if e.traceMode() {
		head = "| window | achieved req/s | in flight (mean) | late p95 ms |" + strings.TrimPrefix(head, "| users |")
	}
	b.WriteString(head + "\n|" + strings.Repeat("---:|", strings.Count(head, "|")-1) + "\n")
	for i := range e.Levels {
		l := &e.Levels[i]
		g, in, out, gap := l.Goodput, l.Lengths.Input, l.Lengths.Output, l.ChunkGaps
		good, goodRate := "-", "-"
		if g.Judged > 0 {
			good = FormatPercent(g.Share) + " (" + strconv.Itoa(g.Met) + "/" + strconv.Itoa(g.Judged) + ")"
			if l.DurationS > 0 {
				goodRate = fmtNum(g.Rate, 2)
			}
		}
		row := fmt.Sprintf("| %d |", l.Concurrency)
		if w := l.ClientWaitMs; e.traceMode() {
			row += fmt.Sprintf(" %s | %s | %s |", cell(l.DurationS > 0, l.RequestRate), cell(l.DurationS > 0, l.InFlightMean),
				cell(w != nil && w.Arrivals > 0, waitP95(w)))
		}
		if rate {
			w := WaitStats{}
			if l.ClientWaitMs != nil {
				w = *l.ClientWaitMs
			}
			capped := FormatPercent(w.CappedShare)
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
