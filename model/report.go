package model

import (
	"encoding/json"
	"sort"
	"time"
)

// Schema is the value of Report.Schema.
const Schema = "tpsmon.bench/v1"

// Report is results.json (schema tpsmon.bench/v1), also the TUI's snapshot.
// Field names and JSON keys are fixed by the schema in docs/results.md.
type Report struct {
	Schema      string           `json:"schema"`
	ToolVersion string           `json:"tool_version"`
	StartedAt   string           `json:"started_at"`  // RFC 3339
	FinishedAt  string           `json:"finished_at"` // RFC 3339
	Interrupted bool             `json:"interrupted"`
	Settings    ReportSettings   `json:"settings"`
	Endpoints   []ReportEndpoint `json:"endpoints"`
	// MergedFrom is how many runs' reports Merge combined into this one (absent when 0:
	// the report of one run).
	MergedFrom int `json:"merged_from,omitempty"`
}

// ReportSettings is the workload and criteria the run used. API is the first
// endpoint's (kept for readers of older reports): each endpoint has its own in
// ReportEndpoint.API.
type ReportSettings struct {
	Ramp          []int    `json:"ramp"`
	HoldS         float64  `json:"hold_s"`
	MaxHoldS      float64  `json:"max_hold_s"` // a level ends by then even without enough steady requests (then it is short)
	API           string   `json:"api"`
	MaxTokens     int      `json:"max_tokens"`
	PromptTokens  int      `json:"prompt_tokens"`
	IgnoreEOS     bool     `json:"ignore_eos"`
	ExtraBodyKeys []string `json:"extra_body_keys"` // keys of the extra request body fields, never their values
	TimeoutS      float64  `json:"timeout_s"`
	// Seed is the synthetic prompts' seed: a run with the same seed sends the same
	// prompts (absent when the prompt was given and sent as is).
	Seed uint64    `json:"seed,omitempty"`
	SLO  ReportSLO `json:"slo"`
	// Rate mode: Mode is "rate" (absent in users mode: Ramp holds users), Ramp holds
	// arrival rates in requests/s, Arrival is "poisson" or "constant", MaxConcurrency
	// the cap on requests in flight (0: none).
	Mode           string `json:"mode,omitempty"`
	Arrival        string `json:"arrival,omitempty"`
	MaxConcurrency int    `json:"max_concurrency,omitempty"`
	// Workload describes a dataset or length distributions ("" for the default prompt).
	Workload string `json:"workload,omitempty"`
	// Shard is the share of the load this run sent (absent when it sent the whole load).
	// Levels are keyed by the whole level's users, not the shard's share.
	Shard *ReportShard `json:"shard,omitempty"`
	// StartAt is the wall-clock moment the run's fixed schedule began (RFC 3339, see
	// WindowLayout; absent when the levels were held by the level rule): level i ran
	// from StartAt + i x hold for exactly hold, with no early stop.
	StartAt string `json:"start_at,omitempty"`
	// Trace is the trace a trace run replayed (Mode "trace"): its levels are windows of
	// the trace, numbered from 1 (absent otherwise).
	Trace *ReportTrace `json:"trace,omitempty"`
	// Conversations: Turns is how many turns of each conversation a run played ("all",
	// or a number; absent when requests stand alone), History where the history's
	// answers came from ("dataset" or "live"), ThinkS the pause between turns.
	Turns   string  `json:"turns,omitempty"`
	History string  `json:"history,omitempty"`
	ThinkS  float64 `json:"think_s,omitempty"`
	// MinRequests is the floor of steady requests the sequential level rule held every
	// level for (MinFloor, or --min-requests when larger): a level with fewer is not
	// measured in full (LevelNeed). Absent on a fixed schedule and in files written
	// before the sequential rule, whose levels needed max(20, 2 x users).
	MinRequests int `json:"min_requests,omitempty"`
}

// MarshalJSON writes the settings with extra_body_keys as [] when there are none (never
// null, so that a script can iterate over it without a check), whoever built them: a
// run, a merge, or an older file read back.
func (s ReportSettings) MarshalJSON() ([]byte, error) {
	type plain ReportSettings
	p := plain(s)
	if p.ExtraBodyKeys == nil {
		p.ExtraBodyKeys = []string{}
	}
	return json.Marshal(p)
}

// ReportSLO is SLO in the report's units. It always marshals: a value JSON cannot carry
// (NaN, an infinity) is written as SLO.Report writes it.
type ReportSLO struct {
	UserTPSMin   float64 `json:"user_tps_min"`
	TTFTP95MaxMs float64 `json:"ttft_p95_max_ms"`
	ErrorRateMax float64 `json:"error_rate_max"`
	TTFOP95MaxMs float64 `json:"ttfo_p95_max_ms,omitempty"` // absent: no TTFO criterion
	GoodputMin   float64 `json:"goodput_min,omitempty"`     // least share of requests meeting the per-request SLO (0: no goodput criterion)
}

// MarshalJSON writes the criteria with NaN as 0 and an infinity as the largest float
// of its sign, so that a report with any SLO can be saved.
func (r ReportSLO) MarshalJSON() ([]byte, error) {
	type plain ReportSLO
	return json.Marshal(plain{UserTPSMin: finite(r.UserTPSMin), TTFTP95MaxMs: finite(r.TTFTP95MaxMs), ErrorRateMax: finite(r.ErrorRateMax),
		TTFOP95MaxMs: finite(r.TTFOP95MaxMs), GoodputMin: finite(r.GoodputMin)})
}

// ReportEndpoint is one endpoint's curve.
type ReportEndpoint struct {
	Name            string        `json:"name"`
	URL             string        `json:"url"`
	Model           string        `json:"model"`
	API             string        `json:"api"` // "chat" or "completions": this endpoint's own
	Simulated       bool          `json:"simulated"`
	TokenSource     string        `json:"token_source"`
	Levels          []ReportLevel `json:"levels"`
	Capacity        ReportCap     `json:"capacity"`
	SaturationUsers *int          `json:"saturation_users"` // null when not reached
	// RampEnd is why the endpoint's ramp ended: "finished" (every level held),
	// "stopped: <the stop rule, in words>", "max_duration", "interrupted" or "manual"
	// (stopped by hand on the live screen). Absent when no ramp ran or it still runs.
	RampEnd string `json:"ramp_end,omitempty"`
	// ServerMetrics is the URL the server's view was scraped from, as it may be printed
	// (user info and query redacted); absent when nothing was scraped. Merge keeps the
	// server's view only when every file names the same one.
	ServerMetrics string `json:"server_metrics,omitempty"`
	// Diagnosis is every finding that held during the run (kind, words, severity,
	// evidence, first and last seen), the most telling first; absent when none held.
	Diagnosis []Finding `json:"diagnosis,omitempty"`
	// Diagnosed says tpsmon's diagnosis watched the run: with no finding, nothing wrong
	// was seen. Absent in a file from a tpsmon without the diagnosis, which says nothing
	// of it.
	Diagnosed bool `json:"diagnosed,omitempty"`
}

// ReportCap is the capacity: 0 users when no level meets the criteria. AtLeast says
// it is a lower bound: the highest level with requests still meets the criteria (the
// limit was not reached), or the run was interrupted. It is false when Users is 0.
type ReportCap struct {
	Users   int  `json:"users"`
	AtLeast bool `json:"at_least"`
	// Decided says the capacity is decided at 95%: its level meets every criterion at 95%
	// (but a share of requests, errors or goodput, whose figure meets its target: see
	// Call.Share and ReportEndpoint.Unproven), and the next level above it fails one at
	// 95% (or there is none: AtLeast). When Users is 0: the lowest level fails one at 95%.
	// False when an undecided level lies between.
	Decided bool `json:"decided"`
}

// ReportLevel is one level (one concurrency) of the curve.
type ReportLevel struct {
	Concurrency int            `json:"concurrency"`
	DurationS   float64        `json:"duration_s"`
	Requests    int            `json:"requests"`        // every ended request, warm-up included
	Steady      int            `json:"steady_requests"` // of those, the ones not in warm-up (Cooldown included)
	Short       bool           `json:"short"`           // the level hit its maximum hold before it had enough steady requests
	Succeeded   int            `json:"succeeded"`
	Errors      map[string]int `json:"errors"`
	ErrorRate   float64        `json:"error_rate"` // charged failures / (requests - client failures), the cool-down left out
	TTFTMs      LatencyJSON    `json:"ttft_ms"`
	TTFOMs      LatencyJSON    `json:"ttfo_ms"`
	TPOTMs      LatencyJSON    `json:"tpot_ms"`
	E2EMs       LatencyJSON    `json:"e2e_ms"`
	StallMs     LatencyJSON    `json:"stall_ms"` // each request's largest gap between two chunks
	// Rate mode: Rate is the arrival rate the level held (requests/s; absent in users
	// mode, where Concurrency is the users); InFlightMean the mean requests in flight;
	// ClientWaitMs the arrivals' wait for a place under the concurrency cap.
	Rate         *int       `json:"rate,omitempty"`
	InFlightMean float64    `json:"in_flight_mean"`
	ClientWaitMs *WaitStats `json:"client_wait_ms,omitempty"`
	TrafficStats            // goodput, lengths (input/output tokens), chunk_gap_ms
	UserTPS      RateJSON   `json:"user_tps"`
	AggregateTPS float64    `json:"aggregate_tps"`
	RequestRate  float64    `json:"request_rate"`
	OutputTokens int64      `json:"output_tokens"`
	// What Merge needs to combine runs (absent from reports written before it): the
	// tokens delivered in the steady windows (aggregate_tps = steady_tokens / duration_s,
	// before rounding), the steady windows in wall-clock time, and the histograms behind
	// every distribution.
	SteadyTokens float64        `json:"steady_tokens"`
	Windows      []ReportWindow `json:"windows"`
	Hist         *ReportHists   `json:"hist,omitempty"`
	// Server is the server's own view over the level's scrapes of its /metrics (absent
	// when it publishes none, or when server metrics are off).
	Server *ServerLevel `json:"server,omitempty"`
	// Open says the level was still being measured when the report was made (a
	// snapshot of the live screen); Stopped that a stop rule of the ramp ended it (see
	// LevelState). Both are absent when false.
	Open    bool `json:"open,omitempty"`
	Stopped bool `json:"stopped,omitempty"`
	// TraceWindowS is the span of the trace this level replayed, [from, to] in the
	// trace's own seconds (a trace run: Concurrency is the window's number; absent
	// otherwise).
	TraceWindowS []float64 `json:"trace_window_s,omitempty"`
	// UserTPSBursts counts the steady answers whose tokens all arrived in one burst (a
	// buffering proxy): they are left out of user_tps and tpot_ms, which mean nothing
	// for them (absent when none).
	UserTPSBursts int `json:"user_tps_bursts,omitempty"`
	// CI95 is the 95% confidence interval of the level's figures (see LevelCI): each
	// [lo, hi], hi null when unbounded, null when not measured.
	CI95 LevelCI `json:"ci95"`
	// Undecided names the criteria (SLO terms) the level reached its maximum hold with
	// still undecided at 95%: it neither sets nor bounds a capacity (LevelUndecided).
	// Absent when none.
	Undecided []string `json:"undecided,omitempty"`
	// Refined says the capacity's bisection added the level: it is not on the ramp's list.
	Refined bool `json:"refined,omitempty"`
	// Cooldown counts the steady requests still in flight when the level ended (its
	// cool-down): they ended at another load, so they are in no distribution and count
	// toward no level rule (absent when none, and in files written before it was counted).
	Cooldown int `json:"cooldown_requests,omitempty"`
	// CoolWarmup counts the warm-up requests still in flight when the level ended (a
	// level left during its warm-up, or just after): in Requests, not in the error rate.
	CoolWarmup int `json:"cooldown_warmup,omitempty"`
	// CoolErrors counts, by kind, the failures among the requests still in flight when
	// the level ended, steady or warm-up (counted in Errors): the error rate and its
	// interval leave them out, as the level rule judged the level when it ended it
	// (absent when none).
	CoolErrors map[string]int `json:"cooldown_errors,omitempty"`
}

// Charged returns the level's failures charged to the endpoint and the requests its
// error rate divides them by: those that ended while it was held (its cool-down left out).
func (l *ReportLevel) Charged() (failures, requests int) {
	errs := make(map[ErrorKind]int, len(l.Errors))
	for k, n := range l.Errors {
		errs[ErrorKind(k)] = n
	}
	cool := make(map[ErrorKind]int, len(l.CoolErrors))
	for k, n := range l.CoolErrors {
		cool[ErrorKind(k)] = n
	}
	return chargedCounts(withoutCooldown(l.Requests, errs, l.Cooldown+l.CoolWarmup, cool))
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

// EndpointInfo names an endpoint in a report, with what the report needs to know of
// its run.
type EndpointInfo struct {
	Name      string
	URL       string
	Model     string
	API       string // "chat" or "completions"
	Simulated bool
	// Interrupted says the run was cut short: a capacity found is then a lower bound.
	Interrupted bool
	// Clock converts the Tracker's times into the wall-clock times of the levels'
	// steady windows; the zero WallClock uses the times' own wall-clock readings.
	Clock WallClock
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

// SLO returns the criteria a report was made with; DefaultSLO when r is the zero value.
func (r ReportSLO) SLO() SLO {
	return SLO{
		UserTPSMin:   r.UserTPSMin,
		TTFTP95Max:   time.Duration(r.TTFTP95MaxMs * float64(time.Millisecond)),
		ErrorRateMax: r.ErrorRateMax,
		TTFOP95Max:   time.Duration(r.TTFOP95MaxMs * float64(time.Millisecond)),
		GoodputMin:   r.GoodputMin,
	}.orDefault()
}
