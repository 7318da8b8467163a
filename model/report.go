package model

import (
	"encoding/csv"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Schema is the value of Report.Schema.
const Schema = "tpsmon.bench/v1"

// Report is results.json (schema tpsmon.bench/v1), also the TUI's snapshot.
// Field names and JSON keys are fixed by the schema in the README.
type Report struct {
	Schema      string           `json:"schema"`
	ToolVersion string           `json:"tool_version"`
	StartedAt   string           `json:"started_at"`  // RFC 3339
	FinishedAt  string           `json:"finished_at"` // RFC 3339
	Interrupted bool             `json:"interrupted"`
	Settings    ReportSettings   `json:"settings"`
	Endpoints   []ReportEndpoint `json:"endpoints"`
}

// ReportSettings is the workload and criteria the run used.
type ReportSettings struct {
	Ramp         []int     `json:"ramp"`
	HoldS        float64   `json:"hold_s"`
	API          string    `json:"api"`
	MaxTokens    int       `json:"max_tokens"`
	PromptTokens int       `json:"prompt_tokens"`
	SLO          ReportSLO `json:"slo"`
}

// ReportSLO is SLO in the report's units.
type ReportSLO struct {
	UserTPSMin   float64 `json:"user_tps_min"`
	TTFTP95MaxMs float64 `json:"ttft_p95_max_ms"`
	ErrorRateMax float64 `json:"error_rate_max"`
}

// ReportEndpoint is one endpoint's curve.
type ReportEndpoint struct {
	Name            string        `json:"name"`
	URL             string        `json:"url"`
	Model           string        `json:"model"`
	Simulated       bool          `json:"simulated"`
	TokenSource     string        `json:"token_source"`
	Levels          []ReportLevel `json:"levels"`
	Capacity        ReportCap     `json:"capacity"`
	SaturationUsers *int          `json:"saturation_users"` // null when not reached
}

// ReportCap is the capacity: 0 users when no level meets the criteria.
type ReportCap struct {
	Users int `json:"users"`
}

// ReportLevel is one level (one concurrency) of the curve.
type ReportLevel struct {
	Concurrency  int            `json:"concurrency"`
	DurationS    float64        `json:"duration_s"`
	Requests     int            `json:"requests"`
	Succeeded    int            `json:"succeeded"`
	Errors       map[string]int `json:"errors"`
	ErrorRate    float64        `json:"error_rate"`
	TTFTMs       LatencyJSON    `json:"ttft_ms"`
	TTFOMs       LatencyJSON    `json:"ttfo_ms"`
	TPOTMs       LatencyJSON    `json:"tpot_ms"`
	E2EMs        LatencyJSON    `json:"e2e_ms"`
	StallMs      LatencyJSON    `json:"-"` // largest gap between two chunks of a request: CSV only (the JSON keys are fixed by the schema)
	UserTPS      RateJSON       `json:"user_tps"`
	AggregateTPS float64        `json:"aggregate_tps"`
	RequestRate  float64        `json:"request_rate"`
	OutputTokens int64          `json:"output_tokens"`
}

// LatencyJSON is a latency distribution in milliseconds.
type LatencyJSON struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// RateJSON is a per-user tokens/s distribution.
type RateJSON struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	P10  float64 `json:"p10"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	Max  float64 `json:"max"`
}

// EndpointInfo names an endpoint in a report.
type EndpointInfo struct {
	Name      string
	URL       string
	Model     string
	Simulated bool
}

// ReportEndpoint builds the report entry of the endpoint this Tracker measures: every
// level measured (ordered by concurrency), capacity (0 users when none) and saturation
// (nil when not reached), with floats rounded for reading.
func (t *Tracker) ReportEndpoint(info EndpointInfo) ReportEndpoint {
	levels := t.Levels()
	e := ReportEndpoint{
		Name:        info.Name,
		URL:         info.URL,
		Model:       info.Model,
		Simulated:   info.Simulated,
		TokenSource: t.TokenSource(),
		Levels:      make([]ReportLevel, 0, len(levels)),
		Capacity:    ReportCap{Users: capacity(levels, t.slo)},
	}
	for i := range levels {
		e.Levels = append(e.Levels, levels[i].Report())
	}
	if u, ok := saturation(levels); ok {
		e.SaturationUsers = &u
	}
	return e
}

// Report converts a level to its report entry. Latencies are rounded to 0.01 ms,
// rates to 0.01 tok/s, durations to 0.01 s, the error rate to 4 decimals and the
// request rate to 0.001 requests/s.
func (l *LevelStats) Report() ReportLevel {
	errs := make(map[string]int, len(l.Errors))
	for k, n := range l.Errors {
		errs[string(k)] = n
	}
	return ReportLevel{
		Concurrency:  l.Concurrency,
		DurationS:    round(l.Duration.Seconds(), 2),
		Requests:     l.Requests,
		Succeeded:    l.Succeeded,
		Errors:       errs,
		ErrorRate:    round(l.ErrorRate, 4),
		TTFTMs:       l.TTFT.Latency(),
		TTFOMs:       l.TTFO.Latency(),
		TPOTMs:       l.TPOT.Latency(),
		E2EMs:        l.E2E.Latency(),
		StallMs:      l.Stall.Latency(),
		UserTPS:      l.UserTPS.Rate(),
		AggregateTPS: round(l.AggregateTPS, 2),
		RequestRate:  round(l.RequestRate, 3),
		OutputTokens: l.OutputTokens,
	}
}

// Latency converts a latency Dist (ms) to its report form, rounded to 0.01 ms.
func (d Dist) Latency() LatencyJSON {
	return LatencyJSON{
		Mean: round(d.Mean, 2), Min: round(d.Min, 2), P50: round(d.P50, 2), P90: round(d.P90, 2),
		P95: round(d.P95, 2), P99: round(d.P99, 2), Max: round(d.Max, 2),
	}
}

// Rate converts a rate Dist (tok/s) to its report form, rounded to 0.01 tok/s.
func (d Dist) Rate() RateJSON {
	return RateJSON{
		Mean: round(d.Mean, 2), Min: round(d.Min, 2), P10: round(d.P10, 2), P50: round(d.P50, 2),
		P90: round(d.P90, 2), Max: round(d.Max, 2),
	}
}

// tokenSourceWords says where an endpoint's token counts come from.
func tokenSourceWords(src string) string {
	switch src {
	case SourceUsage:
		return "tokens: server usage"
	case SourceChunks:
		return "tokens: estimated from chunks (no usage reported)"
	case SourceMixed:
		return "tokens: mixed, partly estimated from chunks (usage reported by some requests)"
	}
	return "tokens: none received"
}

// Markdown renders the report's levels as Markdown tables (one per endpoint), followed by
// each endpoint's capacity and saturation lines, for stdout and the snapshot summary.
// A value that was not measured (no successful request, no steady window, or a
// distribution nothing was recorded into, such as per-user tok/s of one-token answers)
// shows as "-".
func Markdown(r *Report) string {
	var b strings.Builder
	slo := r.Settings.SLO.SLO()
	for i, e := range r.Endpoints {
		if i > 0 {
			b.WriteString("\n")
		}
		head := []string{e.Name}
		if e.Model != "" {
			head = append(head, e.Model)
		}
		if e.URL != "" {
			head = append(head, e.URL)
		}
		if e.Simulated {
			head = append(head, "SIMULATED")
		}
		head = append(head, tokenSourceWords(e.TokenSource))
		fmt.Fprintf(&b, "### %s\n\n", strings.Join(head, " · "))
		b.WriteString("| users | requests | errors | per-user tok/s p50 | p10 | aggregate tok/s | TTFT p50 ms | TTFT p95 ms | TPOT p50 ms | E2E p50 ms |\n")
		b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, l := range e.Levels {
			errs := strconv.Itoa(l.Requests - l.Succeeded)
			if l.Requests > l.Succeeded {
				var kinds []string
				for _, k := range sortedKinds(l.Errors) {
					if n := l.Errors[k]; n > 0 {
						kinds = append(kinds, k+" "+strconv.Itoa(n))
					}
				}
				if len(kinds) > 0 {
					errs += " (" + FormatPercent(l.ErrorRate) + ": " + strings.Join(kinds, ", ") + ")"
				} else {
					errs += " (" + FormatPercent(l.ErrorRate) + ")"
				}
			}
			ok := l.Succeeded > 0
			user := ok && l.UserTPS != (RateJSON{})
			ttft := ok && l.TTFTMs != (LatencyJSON{})
			agg := "-"
			if l.DurationS > 0 {
				agg = strconv.FormatFloat(l.AggregateTPS, 'f', 1, 64)
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				l.Concurrency, l.Requests, errs,
				cell(user, l.UserTPS.P50), cell(user, l.UserTPS.P10), agg,
				cell(ttft, l.TTFTMs.P50), cell(ttft, l.TTFTMs.P95),
				cell(ok && l.TPOTMs != (LatencyJSON{}), l.TPOTMs.P50), cell(ok && l.E2EMs != (LatencyJSON{}), l.E2EMs.P50))
		}
		b.WriteString("\n")
		if e.Capacity.Users > 0 {
			fmt.Fprintf(&b, "Capacity: %s (%s)\n", users(e.Capacity.Users), slo)
		} else {
			fmt.Fprintf(&b, "Capacity: no level meets %s\n", slo)
		}
		if e.SaturationUsers != nil {
			fmt.Fprintf(&b, "Saturation: %s (doubling users from there raises aggregate tok/s by less than 10%%)\n", users(*e.SaturationUsers))
		} else if doubled(e.Levels) {
			b.WriteString("Saturation: not reached (no doubling of users raised aggregate tok/s by less than 10%)\n")
		} else {
			b.WriteString("Saturation: not measured (no level was followed by one with at least twice its users)\n")
		}
	}
	return b.String()
}

// doubled reports whether the saturation rule compared anything: some level with a
// steady window has a later one, also with a steady window, of at least twice its users.
func doubled(levels []ReportLevel) bool {
	for _, l := range levels {
		for _, m := range levels {
			if l.Concurrency > 0 && l.DurationS > 0 && m.DurationS > 0 && m.Concurrency >= 2*l.Concurrency {
				return true
			}
		}
	}
	return false
}

// users is "1 user" or "N users".
func users(n int) string {
	if n == 1 {
		return "1 user"
	}
	return strconv.Itoa(n) + " users"
}

func cell(ok bool, v float64) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// csvHeader is the header row of CSV.
var csvHeader = []string{
	"endpoint", "model", "simulated", "concurrency", "duration_s", "requests", "succeeded",
	"error_rate", "ttft_p50_ms", "ttft_p95_ms", "ttft_p99_ms", "user_tps_p10", "user_tps_p50",
	"user_tps_p90", "aggregate_tps", "request_rate", "output_tokens", "tpot_p50_ms", "e2e_p50_ms", "stall_p95_ms",
}

// CSV renders one row per endpoint and level, with a header row. Units are in the
// column names (ms, tok/s for tps columns, requests/s for request_rate). A value that
// was not measured is an empty cell, as it is "-" in Markdown: a distribution nothing
// was recorded into, the error rate of a level without requests, and the aggregate
// and request rates of a level without a steady window.
func CSV(r *Report) string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(csvHeader) // a strings.Builder does not fail
	f := func(ok bool, v float64) string {
		if !ok {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	for _, e := range r.Endpoints {
		for _, l := range e.Levels {
			ttft, user := l.TTFTMs != (LatencyJSON{}), l.UserTPS != (RateJSON{})
			steady := l.DurationS > 0
			_ = w.Write([]string{
				e.Name, e.Model, strconv.FormatBool(e.Simulated), strconv.Itoa(l.Concurrency),
				f(true, l.DurationS), strconv.Itoa(l.Requests), strconv.Itoa(l.Succeeded), f(l.Requests > 0, l.ErrorRate),
				f(ttft, l.TTFTMs.P50), f(ttft, l.TTFTMs.P95), f(ttft, l.TTFTMs.P99),
				f(user, l.UserTPS.P10), f(user, l.UserTPS.P50), f(user, l.UserTPS.P90),
				f(steady, l.AggregateTPS), f(steady, l.RequestRate), strconv.FormatInt(l.OutputTokens, 10),
				f(l.TPOTMs != (LatencyJSON{}), l.TPOTMs.P50), f(l.E2EMs != (LatencyJSON{}), l.E2EMs.P50),
				f(l.StallMs != (LatencyJSON{}), l.StallMs.P95),
			})
		}
	}
	w.Flush()
	return b.String()
}

// sortedKinds returns the error kinds of m in name order.
func sortedKinds(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// HoldWarnings says which levels held too briefly for their requests: a request belongs to
// the level it was sent in, so when a level's E2E p50 is more than half its hold, much of
// its requests' time ran after the level ended. One line per such level, naming a hold to use.
func HoldWarnings(r *Report) []string {
	hold := r.Settings.HoldS
	if hold <= 0 {
		return nil
	}
	var out []string
	for _, e := range r.Endpoints {
		for _, l := range e.Levels {
			e2e := l.E2EMs.P50 / 1000
			if l.Succeeded == 0 || e2e <= hold/2 {
				continue
			}
			out = append(out, fmt.Sprintf("%s: at %s, requests take %.1f s (E2E p50), more than half the %s hold: "+
				"much of their time ran after the level ended; hold longer (e.g. --hold %ds) or ask for fewer tokens",
				e.Name, users(l.Concurrency), e2e, strconv.FormatFloat(hold, 'f', -1, 64)+"s", int(math.Ceil(4*e2e))))
		}
	}
	return out
}
