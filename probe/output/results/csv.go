package results

import (
	"encoding/csv"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// csvTTFOHeader are CSV's columns after the server's: the time to the first answer token
// (reasoning models think first: TTFT is then the first reasoning token).
var csvTTFOHeader = []string{"ttfo_p50_ms", "ttfo_p95_ms"}

// csvRealTrafficHeader are CSV's columns after TTFO's, last: conversations' first and
// later turns' TTFT, the server's prefix-cache hits, and a trace run's late requests
// and window spans (empty where the run has none).
var csvRealTrafficHeader = []string{
	"ttft_first_turns_p50_ms", "ttft_first_turns_p95_ms", "ttft_later_turns_p50_ms", "ttft_later_turns_p95_ms",
	"server_prefix_cache_hit_pct", "late_requests", "trace_window_from_s", "trace_window_to_s",
}

// realTrafficCells are a level's cells under csvRealTrafficHeader.
func realTrafficCells(l *model.ReportLevel, f func(bool, float64) string) []string {
	out := make([]string, 0, len(csvRealTrafficHeader))
	t := l.Turns
	first, later := t != nil && t.First.Count > 0, t != nil && t.Later.Count > 0
	if t == nil {
		t = &model.TurnStats{}
	}
	out = append(out, f(first, t.First.P50), f(first, t.First.P95), f(later, t.Later.P50), f(later, t.Later.P95))
	prefix := l.Server != nil && l.Server.PrefixHitPct != nil
	if prefix {
		out = append(out, f(true, *l.Server.PrefixHitPct))
	} else {
		out = append(out, "")
	}
	if w := l.ClientWaitMs; w != nil && w.Arrivals > 0 {
		out = append(out, strconv.Itoa(w.Late))
	} else {
		out = append(out, "")
	}
	span := len(l.TraceWindowS) == 2
	if !span {
		return append(out, "", "")
	}
	return append(out, f(true, l.TraceWindowS[0]), f(true, l.TraceWindowS[1]))
}

// csvHeader is the header row of CSV.
var csvHeader = []string{
	"endpoint", "model", "simulated", "concurrency", "duration_s", "requests", "succeeded",
	"error_rate", "ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms", "user_tps_p10", "user_tps_p50",
	"user_tps_p90", "aggregate_tps", "request_rate", "output_tokens", "tpot_p50_ms", "e2e_p50_ms", "stall_p95_ms",
	"stall_max_ms", "steady_requests", "short",
}

// CSV renders one row per endpoint and level, with a header row. Units are in the
// column names (ms, tok/s for tps columns, requests/s for request_rate). A value that
// was not measured is an empty cell, as it is "-" in Markdown: a distribution nothing
// was recorded into, the error rate of a level without requests, and the aggregate
// and request rates of a level without a steady window.
func CSV(r *model.Report) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	head := append(csvHeader[:len(csvHeader):len(csvHeader)], csvTrafficHeader...)
	head = append(head, csvServerHeader...)
	head = append(head, csvTTFOHeader...)
	_ = w.Write(append(append(head, csvRealTrafficHeader...), csvCIHeader...)) // a strings.Builder does not fail
	f := func(ok bool, v float64) string {
		if !ok {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	for _, e := range r.Endpoints {
		j := model.JudgeEndpoint(&r.Settings, &e, r.Interrupted, false)
		for i, l := range e.Levels {
			traffic := append(trafficCells(&l, f), serverCells(&l, f)...)
			traffic = append(traffic, f(l.TTFOMs != (model.LatencyJSON{}), l.TTFOMs.P50), f(l.TTFOMs != (model.LatencyJSON{}), l.TTFOMs.P95))
			traffic = append(traffic, realTrafficCells(&l, f)...)
			traffic = append(traffic, ciCells(&l, j.Levels[i], f)...)
			ttft, user := l.TTFTMs != (model.LatencyJSON{}), l.UserTPS != (model.RateJSON{})
			steady := l.DurationS > 0
			_ = w.Write(append([]string{
				e.Name, e.Model, strconv.FormatBool(e.Simulated), strconv.Itoa(l.Concurrency),
				f(true, l.DurationS), strconv.Itoa(l.Requests), strconv.Itoa(l.Succeeded), f(l.Requests > 0, l.ErrorRate),
				f(ttft, l.TTFTMs.P50), f(ttft, l.TTFTMs.P95), f(ttft, l.TTFTMs.P99),
				f(user, l.UserTPS.P10), f(user, l.UserTPS.P50), f(user, l.UserTPS.P90),
				f(steady, l.AggregateTPS), f(steady, l.RequestRate), strconv.FormatInt(l.OutputTokens, 10),
				f(l.TPOTMs != (model.LatencyJSON{}), l.TPOTMs.P50), f(l.E2EMs != (model.LatencyJSON{}), l.E2EMs.P50),
				f(l.StallMs != (model.LatencyJSON{}), l.StallMs.P95), f(l.StallMs != (model.LatencyJSON{}), l.StallMs.Max),
				strconv.Itoa(l.Steady), strconv.FormatBool(l.Short),
			}, traffic...))
		}
	}
	w.Flush()
	return b.String()
}

// csvTrafficHeader are CSV's columns for rate mode, workloads and goodput, after the
// others (rate and the client wait are empty outside rate mode).
var csvTrafficHeader = []string{
	"rate", "in_flight_mean", "client_wait_p50_ms", "client_wait_p95_ms", "client_wait_max_ms", "capped_share",
	"goodput_share", "goodput_rate", "input_tokens_mean", "input_tokens_p50", "input_tokens_p90",
	"output_tokens_mean", "output_tokens_p50", "output_tokens_p90", "chunk_gap_p50_ms", "chunk_gap_p90_ms", "chunk_gap_p99_ms",
}

// trafficCells are a level's cells under csvTrafficHeader.
func trafficCells(l *model.ReportLevel, f func(bool, float64) string) []string {
	rate, w := "", model.WaitStats{}
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
func serverCells(l *model.ReportLevel, f func(bool, float64) string) []string {
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
