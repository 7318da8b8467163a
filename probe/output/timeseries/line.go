// Package timeseries writes and reads tpsmon's time series (--timeseries FILE.jsonl): one
// JSON line per live tick (one a second) per endpoint, written as the run goes, so a
// crash or Ctrl-C keeps every line up to the last second. `tpsmon replay` plays it back.
//
// Every key and its unit is listed on Line; docs/measurement.md ("Time series") says
// where each number comes from. The schema grows by adding keys only: readers ignore
// keys they do not know, and optional keys are left out when they have no value.
package timeseries

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// Schema names this format; every line carries it.
const Schema = "tpsmon.timeseries/v1"

// Line is one endpoint's live bucket (normally one second wide). Rates are tokens/s,
// times milliseconds unless the key says _s (seconds).
type Line struct {
	Schema      string  `json:"schema"`         // Schema
	Time        string  `json:"t"`              // the bucket's end, UTC, RFC 3339 with milliseconds
	ElapsedS    float64 `json:"elapsed_s"`      // seconds from the start of the series to the bucket's end
	WidthS      float64 `json:"width_s"`        // the bucket's width, seconds
	Endpoint    string  `json:"endpoint"`       // the endpoint's name
	Index       int     `json:"endpoint_index"` // its position in the run (0-based)
	Model       string  `json:"model,omitempty"`
	API         string  `json:"api,omitempty"`         // the endpoint's API when it is not chat (completions, messages, responses)
	Simulated   bool    `json:"simulated,omitempty"`   // tpsmon's built-in simulator, not a real server
	TargetUsers int     `json:"target_users"`          // users (concurrent streams) asked for at the bucket's end; in rate mode the rate
	TargetRate  *int    `json:"target_rate,omitempty"` // rate mode only: requests/s asked for at the bucket's end
	Active      int     `json:"active_streams"`        // streams in flight at the bucket's end
	Paused      bool    `json:"paused,omitempty"`

	AggregateTPS float64  `json:"aggregate_tps"`              // tokens/s delivered over the bucket, all streams
	UserTPS      *float64 `json:"user_tps,omitempty"`         // tokens/s, median over the streams decoding the whole bucket
	UserCarried  bool     `json:"user_tps_carried,omitempty"` // no stream decoded the whole bucket: user_tps is the previous bucket's
	TTFTP50      *float64 `json:"ttft_p50_ms,omitempty"`      // ms, over the first tokens of the trailing window (10 s)
	TTFTP95      *float64 `json:"ttft_p95_ms,omitempty"`      // ms, same window
	Started      int      `json:"started"`                    // requests sent during the bucket
	Finished     int      `json:"finished"`                   // requests ended during the bucket

	// Errors is the failures recorded since the previous line of this endpoint, by kind
	// (canceled requests are never errors); left out when none.
	Errors map[model.ErrorKind]int `json:"errors,omitempty"`
	// Totals since the start, or since the screen's clear (c): see Cleared.
	Requests    int                     `json:"requests_total"`  // ended requests (canceled excluded)
	Succeeded   int                     `json:"succeeded_total"` // of those, successful
	ErrorsTotal map[model.ErrorKind]int `json:"errors_total,omitempty"`
	LastError   string                  `json:"last_error,omitempty"`   // the newest failure's message, until a later request succeeds
	TokenSource string                  `json:"token_source,omitempty"` // usage, chunks or mixed
	Cleared     bool                    `json:"cleared,omitempty"`      // the levels and totals were cleared since the previous line
	Interrupted bool                    `json:"interrupted,omitempty"`  // the run was interrupted (Ctrl-C, a signal): every line from then on

	Steady        bool    `json:"steady"`                    // the level held now has turned over: its requests count in the level's statistics
	Ramp          *Ramp   `json:"ramp,omitempty"`            // the auto-ramp's level, while the ramp drives this endpoint
	Capacity      int     `json:"capacity_users"`            // the largest level meeting the criteria so far (0: none)
	CapacityRate  *int    `json:"capacity_rate,omitempty"`   // rate mode only: capacity_users, a rate in requests/s
	TargetUserTPS float64 `json:"target_user_tps,omitempty"` // the criteria's per-user tokens/s minimum
	// Levels holds the levels whose statistics changed since the previous line (the level
	// held now among them while it has requests): a reader keeps the newest of each.
	Levels []Level `json:"levels,omitempty"`
	Server *Server `json:"server,omitempty"` // the server's own /metrics, when scraped

	// Reasoning says a request sent reasoning before its answer (a reasoning model):
	// TTFO, the time to the first answer token, is then shown beside TTFT. TTFOP50 and
	// TTFOP95 are over the successful requests that ended in the trailing window.
	Reasoning bool     `json:"reasoning,omitempty"`
	TTFOP50   *float64 `json:"ttfo_p50_ms,omitempty"`
	TTFOP95   *float64 `json:"ttfo_p95_ms,omitempty"`
	// SLO is the criteria the levels are judged against, on an endpoint's first line
	// (a reader keeps it): replay says the verdict the live screen said.
	SLO *model.ReportSLO `json:"slo,omitempty"`
	// Trace is the trace a trace run replays, on an endpoint's first line (a reader
	// keeps it): the levels are its windows (users and target_users hold the window's
	// number), judged as results.json's are.
	Trace *model.ReportTrace `json:"trace,omitempty"`
	// MinRequests is the sequential level rule's floor of steady requests (see
	// results.json's settings.min_requests), on an endpoint's first line with SLO: replay
	// reads the levels' states as the live screen did. Absent on a fixed schedule.
	MinRequests int `json:"min_requests,omitempty"`
	// Diagnosis is what the diagnosis said of the endpoint at its latest second (kind,
	// words, severity, evidence, first and last seen), the most telling first; left
	// out when nothing was wrong.
	Diagnosis []model.Finding `json:"diagnosis,omitempty"`
	// Said is what the live screen's status line said of the endpoint since its previous
	// line (the engine's notices: a level marked short, the ramp's end and why, the
	// server's metrics found or lost; one of the whole run, such as its maximum duration
	// being over, on every endpoint's line), oldest first; left out when nothing.
	Said []Said `json:"said,omitempty"`
	// Recorded lists, on an endpoint's first line, the keys this writer records that an
	// older one did not (RecordedKeys): a line without one of them had nothing to say,
	// while a recording that does not list it never recorded it.
	Recorded []string `json:"recorded,omitempty"`
	// Self is tpsmon's own load at the bucket's end, as the live screen showed it under
	// the server's view; left out before tpsmon's second reading of itself.
	Self *Self `json:"tpsmon,omitempty"`
	// Host is the host[:port] of the endpoint's URL, on its first line, as the live
	// screen's header shows it (never the whole URL: it may hold a secret).
	Host string `json:"host,omitempty"`
	// End marks the endpoint's last line, written once the run is over (Writer.End): it
	// is no bucket (its time is the last bucket's, its width 0, its figures empty) and
	// carries what the run's judgement said, RunDiagnosis.
	End bool `json:"end,omitempty"`
	// RunDiagnosis is, on the End line, the run's diagnosis as results.json's judgement
	// says it (model.JudgeEndpoint's statements, as bench's Markdown and the reports list
	// them): every finding of the run with when it held, or that nothing wrong was seen,
	// or that failures had no cause named. Diagnosis is the latest second's.
	RunDiagnosis []Told `json:"run_diagnosis,omitempty"`
}

// Told is one statement of a judgement, as every surface says it.
type Told struct {
	Kind     string         `json:"kind"`               // a diagnosis finding's kind, or model.SayHealthy / model.SayUnnamed
	Severity model.Severity `json:"severity,omitempty"` // problem, warning or info
	Words    string         `json:"words"`              // the sentence, with its numbers
	Evidence []string       `json:"evidence,omitempty"` // figures behind it
	Held     string         `json:"held,omitempty"`     // when it held: "from 21 s to 31 s"
}

// Statement is t as the judgement's statement.
func (t Told) Statement() model.Statement {
	return model.Statement{Kind: t.Kind, Severity: t.Severity, Text: t.Words, Evidence: t.Evidence, Held: t.Held}
}

// RecordedKeys are the keys a line may carry that older writers did not write.
var RecordedKeys = []string{"said", "diagnosis", "tpsmon"}

// Self is tpsmon's own load: whether it may be the limit of what it measures.
type Self struct {
	CPUPct  float64 `json:"cpu_pct"`            // CPU in use, percent of one core (190: almost two cores)
	Cores   int     `json:"cores,omitempty"`    // cores tpsmon may use
	SchedMs float64 `json:"sched_p99_ms"`       // p99 of the time its goroutines waited to run, ms
	WithSim bool    `json:"with_sim,omitempty"` // the built-in simulator runs in tpsmon's process (its CPU counts in)
}

// Said is one thing the live screen's status line said.
type Said struct {
	Text    string   `json:"text"`
	Warning bool     `json:"warning,omitempty"` // shown as a warning
	Shorter []string `json:"shorter,omitempty"` // shorter forms, longest first, for a narrow status line
}

// Ramp is where the auto-ramp stands on an endpoint.
type Ramp struct {
	Level    int     `json:"level"`           // 1-based index of the level held
	Levels   int     `json:"levels"`          // levels in the ramp
	Users    int     `json:"users"`           // the level's users (in rate mode its rate)
	Rate     *int    `json:"rate,omitempty"`  // rate mode only: the level's arrival rate, requests/s
	Steady   int     `json:"steady_requests"` // steady completed requests of the level so far
	Need     int     `json:"need"`            // the level rule's floor of steady requests (max(20, 2 x users) on a fixed schedule)
	Warming  bool    `json:"warming"`         // not steady yet: the hold has not started
	LeftS    float64 `json:"left_s"`          // steady seconds still to hold (0 once held)
	MaxLeftS float64 `json:"max_left_s"`      // seconds before the maximum hold ends the level
}

// Level is one level's statistics as the level table shows them.
type Level struct {
	Users          int      `json:"users"`             // the level's users (in rate mode its rate)
	Rate           *int     `json:"rate,omitempty"`    // rate mode only: the level's arrival rate, requests/s
	Open           bool     `json:"open,omitempty"`    // being measured now
	Short          bool     `json:"short,omitempty"`   // reached the maximum hold before enough steady requests
	Stopped        bool     `json:"stopped,omitempty"` // a stop rule of the ramp ended it (it bounds the capacity)
	Requests       int      `json:"requests"`          // ended requests, warm-up and failed ones included
	Succeeded      int      `json:"succeeded"`
	SteadyRequests int      `json:"steady_requests"`             // of requests, those not in the warm-up
	Cooldown       int      `json:"cooldown_requests,omitempty"` // of those, the ones in flight when the level ended
	ErrorRate      float64  `json:"error_rate"`                  // charged failures / requests (0 to 1), its cool-down left out
	SteadyS        float64  `json:"steady_s"`                    // seconds of steady window
	AggregateTPS   float64  `json:"aggregate_tps"`               // tokens/s over the steady window
	UserTPSP50     *float64 `json:"user_tps_p50,omitempty"`      // tokens/s per request, median
	UserTPSP10     *float64 `json:"user_tps_p10,omitempty"`      // tokens/s per request, 10th percentile
	TTFTP50        *float64 `json:"ttft_p50_ms,omitempty"`
	TTFTP95        *float64 `json:"ttft_p95_ms,omitempty"`
	TTFOP50        *float64 `json:"ttfo_p50_ms,omitempty"` // the first answer token (reasoning models)
	TTFOP95        *float64 `json:"ttfo_p95_ms,omitempty"`
	// The arrivals' wait on tpsmon's side (rate mode and traces, once some arrived):
	// arrivals, those that left more than 10 ms late, those the concurrency cap held,
	// and the longest wait.
	Arrivals  int      `json:"arrivals,omitempty"`
	Late      int      `json:"late,omitempty"`
	Capped    int      `json:"capped,omitempty"`
	WaitMaxMs *float64 `json:"wait_max_ms,omitempty"`
	// CI95 is the level's 95% confidence intervals as results.json's levels[].ci95 holds
	// them; Undecided and Refined as its levels[].undecided and levels[].refined.
	CI95      *model.LevelCI `json:"ci95,omitempty"`
	Undecided []string       `json:"undecided,omitempty"`
	Refined   bool           `json:"refined,omitempty"`
}

// Server is the server's own view in the bucket, from its /metrics (keys it does not
// publish are left out).
type Server struct {
	Running   *float64 `json:"running,omitempty"`    // requests being decoded
	Waiting   *float64 `json:"waiting,omitempty"`    // requests queued
	KVPct     *float64 `json:"kv_pct,omitempty"`     // KV-cache use, percent
	GenTPS    *float64 `json:"server_tps,omitempty"` // tokens/s the server generated since its previous scrape
	Preempted *float64 `json:"preempted,omitempty"`  // preemptions since the previous scrape
	// Kind is the server the metrics came from (vLLM, SGLang, TGI, llama.cpp).
	Kind string `json:"kind,omitempty"`
	// PreemptPerS is the preemptions per second over the last 5 scrapes and
	// PreemptedTotal those since the start (or the screen's clear), as the live screen
	// says them; left out when the server counts none.
	PreemptPerS    *float64 `json:"preempt_per_s,omitempty"`
	PreemptedTotal *float64 `json:"preempted_total,omitempty"`
}

// ServerOf is the Server of one point of the server's per-second series.
func ServerOf(p model.ServerPoint) *Server {
	s := &Server{}
	if p.Has.Has(model.SigRunning) {
		s.Running = ptr(p.Running)
	}
	if p.Has.Has(model.SigWaiting) {
		s.Waiting = ptr(p.Waiting)
	}
	if p.Has.Has(model.SigKV) {
		s.KVPct = ptr(round(100*p.KV, 2))
	}
	if p.Rate && p.Has.Has(model.SigGenerated) {
		s.GenTPS = ptr(round(p.GenTPS, 2))
	}
	if p.Rate && p.Has.Has(model.SigPreemptions) {
		s.Preempted = ptr(p.Preempted)
	}
	return s
}

// At is the bucket's end (zero when t does not parse).
func (l *Line) At() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, l.Time)
	return t
}

// Series is a read time series.
type Series struct {
	Lines []Line
	// Cut is true when the file ended inside a line (a run killed mid-write): that
	// part line was left out.
	Cut bool
}

// Read reads a time series: every whole line, in order. A last line without its
// newline is kept when it is whole JSON and left out (Cut) when it is not. A line that
// is not a time series line is an error naming its number.
func Read(r io.Reader) (*Series, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	s := &Series{}
	for n := 1; ; n++ {
		raw, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return s, fmt.Errorf("line %d: %w", n, err)
		}
		last := errors.Is(err, io.EOF)
		text := bytes.TrimSpace(raw)
		if len(text) > 0 {
			var l Line
			if jerr := json.Unmarshal(text, &l); jerr != nil || l.Schema != Schema {
				if last && raw[len(raw)-1] != '\n' {
					s.Cut = true
					return s, nil
				}
				if jerr == nil {
					return s, fmt.Errorf("line %d: schema %q, want %q (a tpsmon time series)", n, l.Schema, Schema)
				}
				return s, fmt.Errorf("line %d: not a time series line: %v", n, jerr)
			}
			s.Lines = append(s.Lines, l)
		}
		if last {
			return s, nil
		}
	}
}

func ptr(v float64) *float64 { return &v }

// round rounds v to the given decimal places (JSON then prints it short: 812.31).
func round(v float64, places int) float64 {
	p := math.Pow10(places)
	return math.Round(v*p) / p
}
