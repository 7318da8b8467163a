package model

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

// ReportEndpoint builds the report entry of the endpoint this Tracker measures.
func (t *Tracker) ReportEndpoint(info EndpointInfo) ReportEndpoint { panic("not implemented") }

// Markdown renders the report's levels as Markdown tables (one per endpoint), followed by
// each endpoint's capacity and saturation lines, for stdout and the snapshot summary.
func Markdown(r *Report) string { panic("not implemented") }

// CSV renders one row per endpoint and level, with a header row.
func CSV(r *Report) string { panic("not implemented") }
