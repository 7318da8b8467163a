package model

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"
)

// DiagInput is what the diagnosis reads: the last seconds of one endpoint, oldest first.
// The engine fills it once a second from its live buckets, the endpoint's ServerSeries
// and its DiagRecorder; every rule is a pure function of it.
type DiagInput struct {
	// TTFT is the client's TTFT p50 per second, in seconds (0: no first token that second).
	TTFT []float64
	// BaseTTFT is the TTFT at low load, in seconds (the lowest per-second p50 seen). 0:
	// the lowest second of the window stands in for it.
	BaseTTFT float64
	// Pairs are the seconds both sides saw (a scrape covers them, tpsmon was not
	// paused): the tokens the server generated and those tpsmon received.
	Pairs []TokenPair
	// Server is the server's series over the window (nil when it publishes no metrics,
	// or is down).
	Server []ServerPoint
	// Preempted is the preemptions the server counted since the run started.
	Preempted float64
	// CPU is tpsmon's own CPU use over the window in cores (1.9 = 190% of one core);
	// Cores is how many it may use (GOMAXPROCS). Cores 0: unknown, the rule is off.
	CPU   float64
	Cores int
	// Sched is how long tpsmon's goroutines waited to run once runnable (p99 of each
	// second, the lowest of the last 3: a delay that held; 0: unknown). Readers that
	// wait this long read tokens late.
	Sched time.Duration

	// Now is the moment diagnosed; Start the run's start (times in words count from it).
	Now, Start time.Time
	// Requests are the requests that ended in the window, oldest first.
	Requests []DiagRequest
	// Firsts are the first tokens that came in the window, requests still streaming
	// included: when each request was sent and its TTFT (nil: unknown).
	Firsts []FirstToken
	// Outage is the failures to reach the server in a row going on (nil: none; an
	// outage once they hold long enough); Ended the outages that ended, oldest first,
	// with the answers and successes since the newest one ended.
	Outage *Outage
	Ended  []Outage
	// Idle says no load is asked of the endpoint at Now (0 users or requests/s, or
	// paused): no request tells whether the server answers again.
	Idle         bool
	Answers, OKs int
	Model        string   // the model asked for
	Served       []string // the models the server's /models lists (nil: unknown)
	ErrorRateMax float64  // the criteria's error rate: a failure kind above it is a problem
}

// TokenPair is one second both the server and tpsmon saw: tokens/s generated and received.
type TokenPair struct{ Server, Received float64 }

// Diagnosis kinds (Finding.Rule), stable for tests, logs and results.json.
const (
	DiagDown         = "server-down"
	DiagStopped      = "server-stopped"
	DiagAuth         = "auth-refused"
	DiagModel        = "unknown-model"
	DiagNotFound     = "not-found"
	DiagRejected     = "requests-rejected"
	DiagBuffered     = "buffered"
	DiagServerErrors = "server-errors"
	DiagRateLimit    = "rate-limited"
	DiagCut          = "streams-cut"
	DiagStreamError  = "stream-errors"
	DiagTimeout      = "timeouts"
	DiagProtocol     = "protocol-errors"
	DiagClientErrors = "client-errors"
	DiagClientCPU    = "client-cpu"
	DiagKV           = "kv-full"
	DiagQueue        = "server-queue"
	DiagPrefill      = "slow-prefill"
	DiagStall        = "stalls"
	DiagNoQueue      = "no-server-queue"
	DiagTogether     = "sent-together"
	DiagOtherTraffic = "other-traffic"
	DiagFewerTokens  = "server-fewer-tokens"
	DiagTTFTRise     = "ttft-rises"
	DiagBack         = "server-back"
)

// diagRank is the kinds, most telling first: a server that cannot be reached or
// refuses every request explains everything after it; tpsmon as the limit makes the
// readings after it suspect; a cause of a rising TTFT comes before a place to look.
var diagRank = []string{
	DiagDown, DiagStopped, DiagAuth, DiagModel, DiagNotFound, DiagRejected, DiagBuffered, DiagServerErrors,
	DiagRateLimit, DiagCut, DiagStreamError, DiagTimeout, DiagProtocol, DiagClientErrors, DiagClientCPU,
	DiagKV, DiagQueue, DiagPrefill, DiagStall, DiagTogether, DiagNoQueue, DiagOtherTraffic, DiagFewerTokens, DiagTTFTRise, DiagBack,
}

// Finding is one diagnosis: what tpsmon sees, in plain words, with the figures that
// show it. Rule is the finding's kind (a Diag* name, stable for tests, logs and
// results.json); Text its sentence with its numbers. Severity ranks findings (the most
// telling first); Evidence lists the figures behind the sentence ("waiting mean 12.3
// over 10 s"); FirstS and LastS are when it first and last held, in seconds since the
// run started (0 and 0 when not tracked). Strength is how strongly it held, for the rules
// with one figure that says so (a queue: the requests waiting; a TTFT that rises with
// no queue, or where tpsmon cannot tell: the TTFT it rose to, in seconds); 0 for the others.
type Finding struct {
	Rule     string   `json:"kind"`
	Text     string   `json:"words"`
	Severity Severity `json:"severity,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
	FirstS   float64  `json:"first_seen_s,omitempty"`
	LastS    float64  `json:"last_seen_s,omitempty"`
	Strength float64  `json:"strength,omitempty"`
}

// Outweighs reports whether g, a later holding of f's kind, tells more than f: a graver
// severity, or the same and at least f's Strength. A run keeps each finding's words from
// the holding that told most, so that a queue that emptied as the load came down is
// said as it was at its worst ("14 waiting"), not as it ended ("1 waiting"); a finding
// without a Strength keeps its latest words.
func (f Finding) Outweighs(g Finding) bool {
	if a, b := g.Severity.weight(), f.Severity.weight(); a != b {
		return a < b
	}
	return g.Strength >= f.Strength
}

// Same reports whether f and g say the same thing: kind, words, severity and evidence
// (not when they were seen).
func (f Finding) Same(g Finding) bool {
	return f.Rule == g.Rule && f.Text == g.Text && f.Severity == g.Severity && slices.Equal(f.Evidence, g.Evidence)
}

// Severity says how much a statement (a finding, a verdict) weighs, for ranking and
// colour: SevProblem (something fails or is broken), SevWarning (something may
// mislead or limit), SevInfo (context). "" is SevInfo.
type Severity string

// The severities, most telling first.
const (
	SevProblem Severity = "problem"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// weight orders severities: the most telling first.
func (s Severity) weight() int {
	switch s {
	case SevProblem:
		return 0
	case SevWarning:
		return 1
	}
	return 2
}

// RankFindings sorts findings most telling first: by severity, then by kind (diagRank).
func RankFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Severity.weight(), b.Severity.weight()), cmp.Compare(rankOf(a.Rule), rankOf(b.Rule)))
	})
}

func rankOf(kind string) int {
	if i := slices.Index(diagRank, kind); i >= 0 {
		return i
	}
	return len(diagRank)
}

// Diagnose applies every rule and returns the findings that hold, the most telling
// first (RankFindings). A rule that explains a rising TTFT (a proxy holding answers,
// slow prefill, an outage, stalls, tpsmon as the limit) keeps the diagnosis from
// sending anyone to look between tpsmon and the server. None: nothing wrong is seen.
func Diagnose(in DiagInput) []Finding {
	var out []Finding
	rules := []func(DiagInput) (Finding, bool){
		DiagnoseOutage, DiagnoseBack, DiagnoseAuth, DiagnoseNotFound, DiagnoseRejected,
		DiagnoseServerErrors, DiagnoseRateLimit, DiagnoseCut, DiagnoseStreamErrors, DiagnoseTimeouts,
		DiagnoseProtocol, DiagnoseClientErrors, DiagnoseCPU, DiagnoseBuffered, DiagnoseStalls,
		DiagnosePrefill, DiagnoseKV, DiagnoseCrossCheck,
	}
	for _, rule := range rules {
		if f, ok := rule(in); ok {
			out = append(out, f)
		}
	}
	if slices.ContainsFunc(out, func(f Finding) bool { return f.Rule == DiagBuffered }) {
		// Answers held back and sent whole: tokens arrive seconds after the server made
		// them, so the two sides' seconds cannot be compared.
		out = slices.DeleteFunc(out, func(f Finding) bool { return f.Rule == DiagOtherTraffic || f.Rule == DiagFewerTokens })
	}
	explainStalls(out)
	explained := slices.ContainsFunc(out, func(f Finding) bool {
		switch f.Rule {
		case DiagBuffered, DiagPrefill, DiagStall, DiagDown, DiagBack, DiagClientCPU:
			return true
		}
		return false
	})
	if f, ok := DiagnoseTTFT(in); ok && (f.Rule == DiagQueue || !explained) {
		out = append(out, f)
	}
	RankFindings(out)
	return out
}

// explainStalls adds to the stalls finding the cause another finding gives for them:
// preempted sequences pause until they run again; a slow prefill of new requests holds
// up every answer in the batch.
func explainStalls(fs []Finding) {
	i := slices.IndexFunc(fs, func(f Finding) bool { return f.Rule == DiagStall })
	if i < 0 {
		return
	}
	switch {
	case slices.ContainsFunc(fs, func(f Finding) bool { return f.Rule == DiagKV }):
		fs[i].Text += "; preempted sequences pause until the KV cache has room again"
	case slices.ContainsFunc(fs, func(f Finding) bool { return f.Rule == DiagPrefill }):
		fs[i].Text += "; the slow prefill of new requests holds up every answer in the batch"
	}
}

// NothingWrong is what the diagnosis says of a run in which no finding held, once
// requests ended: a healthy run says so.
const NothingWrong = "nothing wrong seen"

// diagPct is k of n as a percentage: "23%", "4.5%", "0.8%".
func diagPct(k, n int) string {
	if n <= 0 {
		return "-"
	}
	p := 100 * float64(k) / float64(n)
	if p >= 10 || p == math.Trunc(p) {
		return strconv.FormatFloat(math.Round(p), 'f', 0, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 1, 64) + "%"
}

// ofRequests is "41 of 180 requests", or "all 12 requests".
func ofRequests(k, n int) string {
	if k == n {
		if n == 1 {
			return "the only request"
		}
		return "all " + diagInt(n) + " requests"
	}
	return diagInt(k) + " of " + diagInt(n) + " requests"
}

// diagInt is n with thousands separators: 1,840.
func diagInt(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + diagInt(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// runAt says when t was in the run: "20 s", "5 min 12 s" (seconds since start).
func runAt(start, t time.Time) string {
	if start.IsZero() || t.Before(start) {
		return "the start"
	}
	return runSpan(t.Sub(start))
}

func diagLast[T any](s []T, n int) []T { return s[max(len(s)-n, 0):] }

func diagMean(v []float64) float64 {
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

func diagMedian(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// medianDuration is the median of v (0 when empty).
func medianDuration(v []time.Duration) time.Duration {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
