package model

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// The server-side rules' thresholds.
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
	// kvFull is the KV-cache use that counts as full.
	kvFull = 0.9
	// gapMin is the relative gap between the server's generated tokens and tpsmon's
	// received tokens that is worth a line (above the noise of answers that straddle
	// the window's edges); gapScrapes the seconds it needs.
	gapMin     = 0.25
	gapScrapes = 5
	// cpuBusy is the share of tpsmon's cores in use above which tpsmon may be the limit.
	cpuBusy = 0.8
	// schedLate is the scheduling delay of tpsmon's readers above which it may be the limit.
	schedLate = 20 * time.Millisecond
)

// DiagnoseCPU: "tpsmon may be the limit: it uses 190% CPU" when tpsmon's CPU use over
// the window is at least 80% of the cores it may use, or "tpsmon may be the limit: its
// readers wait 25 ms to run" when its goroutines' scheduling delay (p99) is 20 ms or
// more. Its readers then fall behind the streams: tokens arrive late, TTFT and
// per-user speed are tpsmon's, not the server's.
func DiagnoseCPU(in DiagInput) (Finding, bool) {
	f := Finding{Rule: DiagClientCPU, Severity: SevWarning}
	switch {
	case in.Cores > 0 && in.CPU >= cpuBusy*float64(in.Cores):
		f.Text = fmt.Sprintf("tpsmon may be the limit: it uses %.0f%% CPU", 100*in.CPU)
		f.Evidence = []string{fmt.Sprintf("%.0f%% of %d cores over the last 30 s", 100*in.CPU, in.Cores)}
	case in.Sched >= schedLate:
		f.Text = fmt.Sprintf("tpsmon may be the limit: its readers wait %d ms to run", in.Sched.Milliseconds())
		f.Evidence = []string{fmt.Sprintf("scheduling delay p99 %s (over %s slows the reading of tokens)", FormatMs(in.Sched), FormatMs(schedLate))}
	default:
		return Finding{}, false
	}
	return f, true
}

// DiagnoseTTFT explains a TTFT that rises (the median of the last 5 seconds at least
// twice the base and 250 ms above it) with the server's waiting gauge:
//   - "TTFT rises to 2.5 s (40 ms at low load) because requests queue on the server
//     (14 waiting, KV 97%)" when the server's last 5 scrapes average at least one
//     waiting request;
//   - "TTFT rises to 274 ms (19 ms at low load) with no queue on the server: tpsmon
//     sent 31 requests within 3 ms of each other, and the server prefills them
//     together" (or "tpsmon sent 31 requests in 2 bursts within 42 ms, and the server
//     prefills them burst after burst") when most of the recent slow first tokens
//     belong to requests sent together, within what the prefill of the requests ahead
//     of them may take (sentTogether), and no queue lasts: under one waiting request on
//     average over the last 5 scrapes, and never more waiting in the last 10 than those
//     requests (their own admission: "with no lasting queue on the server (at most 23
//     waiting, at 1 of its last 10 scrapes)");
//   - else, with no waiting request in the last 10 scrapes (the live TTFT's trailing
//     window), unless long prompts could explain it: "TTFT rises to 1.3 s (50 ms at
//     low load) with no queue on the server: the time is spent between tpsmon and the
//     server (network, proxy, gateway)";
//   - without a waiting gauge, what it sees: the rise, and that it cannot tell where.
//
// The queue's Strength is its mean waiting requests, the others' the TTFT it rose to
// (seconds): a run says each at its worst (Finding.Outweighs).
// Diagnose keeps the last two out when another finding explains the TTFT.
func DiagnoseTTFT(in DiagInput) (Finding, bool) {
	now, base, ok := ttftRise(in.TTFT, in.BaseTTFT)
	if !ok {
		return Finding{}, false
	}
	rise := fmt.Sprintf("TTFT rises to %s (%s at low load)", ttftWords(now), ttftWords(base))
	evidence := []string{fmt.Sprintf("TTFT p50 over the last %d s: %s; the lowest second: %s", diagRecent, ttftWords(now), ttftWords(base))}
	waiting := waitingPoints(in.Server)
	if len(waiting) == 0 {
		return Finding{Rule: DiagTTFTRise, Severity: SevInfo, Evidence: evidence, Strength: now,
			Text: rise + "; without the server's queue (its /metrics) tpsmon cannot tell whether requests wait on the server or before it"}, true
	}
	recent := diagLast(waiting, diagRecent)
	var sum, peak float64
	for _, p := range recent {
		sum += p.Waiting
	}
	span := diagLast(waiting, diagTTFTSpan)
	for _, p := range span {
		peak = math.Max(peak, p.Waiting)
	}
	mean := sum / float64(len(recent))
	if mean < queueMin {
		if b, ok := sentTogether(&in, base); ok && peak <= float64(b.n) {
			return b.finding(rise, evidence, now, base, span), true
		}
	}
	if peak == 0 {
		evidence = append(evidence, fmt.Sprintf("no request waiting on the server in its last %d scrapes", len(span)))
		if prefillMayExplain(&in) {
			return Finding{Rule: DiagTTFTRise, Severity: SevInfo, Evidence: evidence, Strength: now,
				Text: rise + " with no queue on the server; the prompts are long enough for a slow prefill to explain it: tpsmon cannot tell it from a delay before the server"}, true
		}
		return Finding{Rule: DiagNoQueue, Severity: SevWarning, Evidence: evidence, Strength: now,
			Text: rise + " with no queue on the server: the time is spent between tpsmon and the server (network, proxy, gateway)"}, true
	}
	if mean < queueMin {
		return Finding{}, false
	}
	last := recent[len(recent)-1]
	what := fmt.Sprintf("%.0f waiting", mean)
	if last.Has.Has(SigKV) {
		what += fmt.Sprintf(", KV %.0f%%", 100*last.KV)
	}
	evidence = append(evidence, fmt.Sprintf("waiting on the server: %.1f on average over its last %d scrapes, at most %.0f", mean, len(recent), peak))
	return Finding{Rule: DiagQueue, Severity: SevWarning, Evidence: evidence, Strength: mean,
		Text: rise + " because requests queue on the server (" + what + ")"}, true
}

// ttftWords is a TTFT in seconds, in words: "40 ms", "2.50 s".
func ttftWords(v float64) string { return FormatMs(time.Duration(v * float64(time.Second))) }

// ttftRise returns the recent median TTFT and the base when the first is at least
// riseFactor times the base and riseMin above it. The base is base, or the window's
// lowest second.
func ttftRise(ttft []float64, base float64) (now, low float64, ok bool) {
	var seen []float64
	for _, v := range ttft {
		if v > 0 {
			seen = append(seen, v)
		}
	}
	if len(seen) == 0 {
		return 0, 0, false
	}
	if base <= 0 {
		base = slices.Min(seen)
	}
	now = diagMedian(diagLast(seen, diagRecent))
	return now, base, now >= riseFactor*base && now-base >= riseMin
}

// recentTTFT is the median of the last seconds' TTFT p50 (0 when none).
func recentTTFT(ttft []float64) float64 {
	var seen []float64
	for _, v := range ttft {
		if v > 0 {
			seen = append(seen, v)
		}
	}
	if len(seen) == 0 {
		return 0
	}
	return diagMedian(diagLast(seen, diagRecent))
}

// DiagnoseKV: the server preempts sequences (its KV cache is full): "the KV cache is
// full (98%): the server preempts 4.3 sequences/s (52 since the start)", from the
// preemptions of the last 10 scrapes (per second) and the run's total. Without a KV
// gauge the line names the preemptions alone.
func DiagnoseKV(in DiagInput) (Finding, bool) {
	var pre, span float64
	var kv *ServerPoint
	pts := diagLast(in.Server, diagTTFTSpan)
	for i := range pts {
		p := &pts[i]
		if p.Has.Has(SigKV) {
			kv = p
		}
		if p.Rate && p.Has.Has(SigPreemptions) {
			pre += p.Preempted
			if i > 0 {
				span += p.Time.Sub(pts[i-1].Time).Seconds()
			} else {
				span++
			}
		}
	}
	if pre <= 0 || span <= 0 {
		return Finding{}, false
	}
	rate := pre / span
	total := math.Max(in.Preempted, pre)
	evidence := []string{fmt.Sprintf("%.0f preemptions in the server's last %.0f s, %.0f since the run started", pre, span, total)}
	f := Finding{Rule: DiagKV, Severity: SevWarning, Evidence: evidence}
	preempts := fmt.Sprintf("the server preempts %.1f sequences/s (%.0f since the start)", rate, total)
	if kv != nil {
		f.Text = fmt.Sprintf("the KV cache is full (%.0f%%): %s", 100*kv.KV, preempts)
		if kv.KV < kvFull {
			f.Text = fmt.Sprintf("the KV cache runs out (%.0f%% used now): %s", 100*kv.KV, preempts)
		}
		f.Evidence = append(f.Evidence, fmt.Sprintf("KV cache use %.0f%% at the last scrape", 100*kv.KV))
		return f, true
	}
	f.Text = preempts + ": its KV cache is full"
	return f, true
}

// DiagnoseCrossCheck compares the tokens the server generated with those tpsmon
// received over the seconds both saw (at least 5; paused seconds and seconds without a
// scrape are not among them):
//   - server above tpsmon by more than 25%: "another client uses the server: it
//     generates 2.3x the tokens tpsmon receives (1,610 against 700 tok/s)";
//   - server below tpsmon by more than 25%: "the server reports 0.6x what tpsmon
//     receives: its /metrics may cover one replica of several".
//
// Not while an answer of the window arrived in one burst (a buffering proxy): its
// tokens reach tpsmon seconds after the server made them, so the two sides' seconds
// cannot be compared, even before enough answers ended for DiagnoseBuffered to say so.
func DiagnoseCrossCheck(in DiagInput) (Finding, bool) {
	if len(in.Pairs) < gapScrapes || slices.ContainsFunc(in.Requests, func(r DiagRequest) bool { return r.burst() }) {
		return Finding{}, false
	}
	var server, client float64
	for _, p := range in.Pairs {
		server += p.Server
		client += p.Received
	}
	n := float64(len(in.Pairs))
	server, client = server/n, client/n
	evidence := []string{fmt.Sprintf("over %d s both saw: the server generated %s, tpsmon received %s", len(in.Pairs), FormatTPS(server), FormatTPS(client))}
	switch {
	case client <= 0 && server <= 0:
		return Finding{}, false
	case client <= 0:
		return Finding{Rule: DiagOtherTraffic, Severity: SevInfo, Evidence: evidence, Text: fmt.Sprintf(
			"another client uses the server: it generates %.0f tok/s while tpsmon receives none", server)}, true
	case server > (1+gapMin)*client:
		return Finding{Rule: DiagOtherTraffic, Severity: SevInfo, Evidence: evidence, Text: fmt.Sprintf(
			"another client uses the server: it generates %.1fx the tokens tpsmon receives (%.0f against %.0f tok/s)", server/client, server, client)}, true
	case server < (1-gapMin)*client:
		return Finding{Rule: DiagFewerTokens, Severity: SevInfo, Evidence: evidence, Text: fmt.Sprintf(
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

// DiagWindow builds the server-side part of the diagnosis input from the live buckets
// and the server's series: the buckets of the last window (TTFT p50 per second) and the
// server points that fall in the same span. Pairs are the scrape intervals both sides
// saw: for each scrape with a counter rate, the tokens the server generated per second
// since the previous scrape, and those tpsmon received over the same interval (its
// buckets weighted by their overlap with it, so that a burst is never lost between
// two intervals). An interval that tpsmon's buckets cover less than half, or that
// touches a paused bucket or the one after it, is left out of both: an outage, a
// restart or a pause never reads as other traffic. base is the TTFT at low load (0:
// unknown); cpu and cores are tpsmon's own CPU use (in cores) and GOMAXPROCS.
func DiagWindow(buckets []Bucket, server []ServerPoint, window, base time.Duration, cpu float64, cores int) DiagInput {
	in := DiagInput{BaseTTFT: base.Seconds(), CPU: cpu, Cores: cores}
	if len(buckets) == 0 {
		return in
	}
	last := buckets[len(buckets)-1]
	in.Idle = last.Target == 0 || last.Paused
	end := last.Start.Add(last.Width)
	from := end.Add(-window)
	for i, p := range server {
		if !p.Time.After(from) || p.Time.After(end) {
			continue
		}
		in.Server = append(in.Server, p)
		if i > 0 && p.Rate {
			if recv, ok := received(buckets, server[i-1].Time, p.Time); ok {
				in.Pairs = append(in.Pairs, TokenPair{Server: p.GenTPS, Received: recv})
			}
		}
	}
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
	return in
}

// received is the tokens per second tpsmon received over (lo, hi], from the buckets
// weighted by their overlap with it; ok false when they cover less than half of it or
// one of them (or the one before it) was paused.
func received(buckets []Bucket, lo, hi time.Time) (float64, bool) {
	var tokens float64
	var covered time.Duration
	for i, b := range buckets {
		bEnd := b.Start.Add(b.Width)
		overlap := minTime(hi, bEnd).Sub(maxTime(lo, b.Start))
		if overlap <= 0 {
			continue
		}
		if b.Paused || i > 0 && buckets[i-1].Paused {
			return 0, false
		}
		tokens += b.AggregateTPS * overlap.Seconds()
		covered += overlap
	}
	if covered <= 0 || covered < hi.Sub(lo)/2 {
		return 0, false
	}
	return tokens / covered.Seconds(), true
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
