package model

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// DiagInput is what the diagnosis reads: the last seconds of one endpoint, oldest first.
// The engine fills it from its live buckets and the endpoint's ServerSeries once a
// second; every rule is a pure function of it.
type DiagInput struct {
	// TTFT is the client's TTFT p50 per second, in seconds (0: no first token that second).
	TTFT []float64
	// BaseTTFT is the TTFT at low load, in seconds (the first level's p50). 0: the
	// lowest second of the window stands in for it.
	BaseTTFT float64
	// Received is the tokens per second tpsmon received, over the same seconds as Server.
	Received []float64
	// Server is the server's series over the window (nil when it publishes no metrics).
	Server []ServerPoint
	// CPU is tpsmon's own CPU use over the window in cores (1.9 = 190% of one core);
	// Cores is how many it may use (GOMAXPROCS). Cores 0: unknown, the rule is off.
	CPU   float64
	Cores int
	// Sched is how long tpsmon's goroutines waited to run once runnable (p99 over the
	// window; 0: unknown). Readers that wait this long read tokens late.
	Sched time.Duration
}

// Diagnosis rule names, stable for tests and logs.
const (
	DiagClientCPU    = "client-cpu"
	DiagQueue        = "server-queue"
	DiagNoQueue      = "no-server-queue"
	DiagOtherTraffic = "other-traffic"
	DiagFewerTokens  = "server-fewer-tokens"
)

// Finding is one diagnosis: what tpsmon sees, in plain words, with the figures that
// show it. Rule is the finding's kind (a Diag* name, stable for tests, logs and
// results.json); Text its sentence with its numbers. Severity ranks findings (the most
// telling first); Evidence lists the figures behind the sentence ("waiting mean 12.3
// over 10 s"); FirstS and LastS are when it first and last held, in seconds since the
// run started (0 and 0 when not tracked).
type Finding struct {
	Rule     string   `json:"kind"`
	Text     string   `json:"words"`
	Severity Severity `json:"severity,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
	FirstS   float64  `json:"first_seen_s,omitempty"`
	LastS    float64  `json:"last_seen_s,omitempty"`
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

// The rules' thresholds.
const (
	// diagRecent is how many of the last seconds stand for "now".
	diagRecent = 5
	// diagTTFTSpan is the seconds the live TTFT looks back over (its trailing window,
	// DefaultTTFTWindow): a queue in them may still hold TTFT up.
	diagTTFTSpan = 10
	// A TTFT "rises" when its recent median is at least riseFactor times the base and
	// at least riseMin seconds above it.
	riseFactor = 2.0
	riseMin    = 0.25
	// queueMin is the mean waiting requests over the recent scrapes that counts as a queue.
	queueMin = 1.0
	// gapMin is the relative gap between the server's generated tokens and tpsmon's
	// received tokens that is worth a line; gapScrapes the rate intervals it needs.
	gapMin     = 0.10
	gapScrapes = 5
	// cpuBusy is the share of tpsmon's cores in use above which tpsmon may be the limit.
	cpuBusy = 0.8
	// schedLate is the scheduling delay of tpsmon's readers above which it may be the limit.
	schedLate = 20 * time.Millisecond
)

// Diagnose applies every rule and returns the lines that hold, the most telling
// first: tpsmon's own CPU (when tpsmon is the limit, the other readings are suspect),
// then why TTFT rises (queue, or no queue), then the tokens cross-check.
func Diagnose(in DiagInput) []Finding {
	var out []Finding
	for _, rule := range []func(DiagInput) (Finding, bool){DiagnoseCPU, DiagnoseTTFT, DiagnoseCrossCheck} {
		if f, ok := rule(in); ok {
			out = append(out, f)
		}
	}
	return out
}

// DiagnoseCPU: "tpsmon may be the limit: it uses 190% CPU" when tpsmon's CPU use over
// the window is at least 80% of the cores it may use, or "tpsmon may be the limit: its
// readers wait 25 ms to run" when its goroutines' scheduling delay (p99) is 20 ms or
// more. Its readers then fall behind the streams: tokens arrive late, TTFT and
// per-user speed are tpsmon's, not the server's.
func DiagnoseCPU(in DiagInput) (Finding, bool) {
	switch {
	case in.Cores > 0 && in.CPU >= cpuBusy*float64(in.Cores):
		return Finding{Rule: DiagClientCPU, Text: fmt.Sprintf("tpsmon may be the limit: it uses %.0f%% CPU", 100*in.CPU)}, true
	case in.Sched >= schedLate:
		return Finding{Rule: DiagClientCPU, Text: fmt.Sprintf("tpsmon may be the limit: its readers wait %d ms to run", in.Sched.Milliseconds())}, true
	}
	return Finding{}, false
}

// DiagnoseTTFT explains a TTFT that rises (the median of the last 5 seconds at least
// twice the base and 250 ms above it) with the server's waiting gauge:
//   - "TTFT rises because requests queue on the server (14 waiting, KV 97%)" when the
//     server's last 5 scrapes average at least one waiting request (figures: that
//     average, and the last scrape's KV use when the server publishes it);
//   - "no queue on the server: look between tpsmon and it (network, proxy)" when none of
//     the last 10 scrapes (the live TTFT's trailing window) shows a waiting request:
//     the time is spent before the server.
//
// No line without a rise, without recent TTFT, or without the server's waiting gauge.
func DiagnoseTTFT(in DiagInput) (Finding, bool) {
	if !ttftRises(in.TTFT, in.BaseTTFT) {
		return Finding{}, false
	}
	waiting := waitingPoints(in.Server)
	recent := diagLast(waiting, diagRecent)
	if len(recent) == 0 {
		return Finding{}, false
	}
	var sum, peak float64
	for _, p := range recent {
		sum += p.Waiting
	}
	for _, p := range diagLast(waiting, diagTTFTSpan) {
		peak = math.Max(peak, p.Waiting)
	}
	if peak == 0 {
		return Finding{Rule: DiagNoQueue, Text: "no queue on the server: look between tpsmon and it (network, proxy)"}, true
	}
	mean := sum / float64(len(recent))
	if mean < queueMin {
		return Finding{}, false
	}
	last := recent[len(recent)-1]
	what := fmt.Sprintf("%.0f waiting", mean)
	if last.Has.Has(SigKV) {
		what += fmt.Sprintf(", KV %.0f%%", 100*last.KV)
	}
	return Finding{Rule: DiagQueue, Text: "TTFT rises because requests queue on the server (" + what + ")"}, true
}

// ttftRises reports whether the recent median TTFT is at least riseFactor times the
// base and riseMin above it. The base is base, or the window's lowest second.
func ttftRises(ttft []float64, base float64) bool {
	var seen []float64
	for _, v := range ttft {
		if v > 0 {
			seen = append(seen, v)
		}
	}
	if len(seen) == 0 {
		return false
	}
	if base <= 0 {
		base = slices.Min(seen)
	}
	now := diagMedian(diagLast(seen, diagRecent))
	return now >= riseFactor*base && now-base >= riseMin
}

// DiagnoseCrossCheck compares the tokens the server generated with those tpsmon
// received over the window (means over the seconds with a counter rate; at least 5):
//   - server above tpsmon by more than 10%: "the server is also busy with other traffic:
//     it generates 2.3x what tpsmon receives" (another client, or tpsmon falling behind);
//   - server below tpsmon by more than 10%: "the server reports 0.6x what tpsmon
//     receives: its /metrics may cover one replica of several".
func DiagnoseCrossCheck(in DiagInput) (Finding, bool) {
	var gen []float64
	for _, p := range in.Server {
		if p.Rate {
			gen = append(gen, p.GenTPS)
		}
	}
	if len(gen) < gapScrapes || len(in.Received) == 0 {
		return Finding{}, false
	}
	server, client := diagMean(gen), diagMean(in.Received)
	switch {
	case client <= 0 && server <= 0:
		return Finding{}, false
	case client <= 0:
		return Finding{Rule: DiagOtherTraffic, Text: fmt.Sprintf(
			"the server is busy with other traffic: it generates %.0f tok/s while tpsmon receives none", server)}, true
	case server > (1+gapMin)*client:
		return Finding{Rule: DiagOtherTraffic, Text: fmt.Sprintf(
			"the server is also busy with other traffic: it generates %.1fx what tpsmon receives", server/client)}, true
	case server < (1-gapMin)*client:
		return Finding{Rule: DiagFewerTokens, Text: fmt.Sprintf(
			"the server reports %.1fx what tpsmon receives: its /metrics may cover one replica of several", server/client)}, true
	}
	return Finding{}, false
}

func waitingPoints(ps []ServerPoint) []ServerPoint {
	var out []ServerPoint
	for _, p := range ps {
		if p.Has.Has(SigWaiting) {
			out = append(out, p)
		}
	}
	return out
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

// DiagWindow builds the diagnosis input from the live buckets and the server's series:
// the buckets of the last window (TTFT p50 and aggregate tok/s per second) and the
// server points that fall in the same span. When there are server points, Received
// keeps only the seconds a scrape covers (one answering within half a second of the
// bucket's end), so that the cross-check compares the same seconds on both sides:
// seconds in which the server did not answer (an outage, a restart) are left out of
// both. base is the TTFT at low load (0: unknown); cpu and cores are tpsmon's own CPU use (in cores) and GOMAXPROCS.
func DiagWindow(buckets []Bucket, server []ServerPoint, window, base time.Duration, cpu float64, cores int) DiagInput {
	in := DiagInput{BaseTTFT: base.Seconds(), CPU: cpu, Cores: cores}
	if len(buckets) == 0 {
		return in
	}
	last := buckets[len(buckets)-1]
	end := last.Start.Add(last.Width)
	from := end.Add(-window)
	for _, b := range buckets {
		if b.Start.Before(from) {
			continue
		}
		ttft := 0.0
		if b.HasTTFT {
			ttft = b.TTFTP50.Seconds()
		}
		in.TTFT = append(in.TTFT, ttft)
	}
	for _, p := range server {
		if p.Time.After(from) && !p.Time.After(end) {
			in.Server = append(in.Server, p)
		}
	}
	for _, b := range buckets {
		if !b.Start.Before(from) && (len(in.Server) == 0 || scraped(in.Server, b)) {
			in.Received = append(in.Received, b.AggregateTPS)
		}
	}
	return in
}

// scraped reports whether a scrape's interval (the second before it answered) covers
// most of b: one answered within half a bucket width of b's end.
func scraped(server []ServerPoint, b Bucket) bool {
	lo, hi := b.Start.Add(b.Width/2), b.Start.Add(3*b.Width/2)
	for _, p := range server {
		if !p.Time.Before(lo) && p.Time.Before(hi) {
			return true
		}
	}
	return false
}
