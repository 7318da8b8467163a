package model

import (
	"fmt"
	"strconv"
	"strings"
)

// mdServerHeader is the header of the server's-view table.
const mdServerHeader = "| users | waiting mean | waiting max | running mean | KV mean % | server tok/s | received tok/s | preemptions |\n" +
	"|---:|---:|---:|---:|---:|---:|---:|---:|\n"

// writeServer writes the server's own view per level (from its /metrics), when some
// level has one: mean and max waiting requests, mean running, mean KV-cache use, the
// tokens the server generated per second beside those tpsmon received, and the
// preemptions. Nothing when no level has one.
func writeServer(b *strings.Builder, e *ReportEndpoint) {
	any := false
	for i := range e.Levels {
		any = any || e.Levels[i].Server != nil
	}
	if !any {
		return
	}
	b.WriteString("Server's view (its own /metrics, scraped once a second in each level's steady time):\n\n")
	if e.traceMode() {
		b.WriteString(strings.Replace(mdServerHeader, "| users |", "| window |", 1))
	} else {
		b.WriteString(mdServerHeader)
	}
	var gaps []string
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
		if g, ok := ServerGap(sv, l.AggregateTPS); ok && l.DurationS > 0 {
			gaps = append(gaps, fmt.Sprintf("%s: the server generated %.2fx what tpsmon received", levelName(e)(l.Concurrency), g))
		}
	}
	b.WriteString("\n")
	if len(gaps) > 0 {
		b.WriteString("Cross-check (over 10% apart: another client on the same server, a proxy, or tpsmon falling behind): " +
			strings.Join(gaps, "; ") + ".\n")
	}
}

// ServerGap is the server's generated tok/s over the tokens tpsmon received, when the
// two are more than 10% apart (the cross-check's threshold); ok is false otherwise or
// when either is unknown.
func ServerGap(sv *ServerLevel, received float64) (ratio float64, ok bool) {
	if sv == nil || sv.GenTPS == nil || received <= 0 {
		return 0, false
	}
	r := *sv.GenTPS / received
	return r, r > 1+gapMin || r < 1-gapMin
}

// ptrCell is v with prec decimals, "-" when absent.
func ptrCell(v *float64, prec int) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}

// Report is l as the report writes it: figures rounded to 2 decimals.
func (l ServerLevel) Report() *ServerLevel {
	r := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		x := round(*v, 2)
		return &x
	}
	return &ServerLevel{Scrapes: l.Scrapes, WaitingMean: r(l.WaitingMean), WaitingMax: r(l.WaitingMax),
		RunningMean: r(l.RunningMean), KVMeanPct: r(l.KVMeanPct), GenTPS: r(l.GenTPS), Preemptions: r(l.Preemptions),
		PrefixHitPct: r(l.PrefixHitPct)}
}
