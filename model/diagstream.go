package model

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// The stream rules' thresholds.
const (
	// A request stalled when its longest chunk gap is at least stallMin and at least
	// stallFactor times its own median gap; it needs stallChunks chunks to tell.
	stallMin    = 500 * time.Millisecond
	stallFactor = 10
	stallChunks = 4
	// stallShare is the share of requests stalling that is worth a finding.
	stallShare = 0.02
	// A request arrived in one burst when it had at least burstChunks chunks, its
	// chunks came within burstSpan of its end-to-end time, at gaps under burstGap.
	burstChunks = 8
	burstSpan   = 0.1
	burstGap    = time.Millisecond
	// The prefill fit needs prefillMin requests whose prompts span at least a factor
	// prefillSpread, a fit explaining prefillR2 of TTFT's variance, and a prefill of
	// at least prefillShare of the mean TTFT and prefillFloor.
	prefillMin    = 10
	prefillSpread = 2.0
	prefillR2     = 0.5
	prefillShare  = 0.3
	prefillFloor  = 200 * time.Millisecond
	// Without a spread of prompts: a TTFT of at least slowTTFT, with prompts of at
	// least slowPrompt tokens, at least slowPerToken per token and no queue.
	slowTTFT     = 500 * time.Millisecond
	slowPrompt   = 500
	slowPerToken = 500 * time.Microsecond
)

// DiagnoseBuffered: most answers arrive in one burst (TTFT close to end-to-end, chunk
// gaps near zero): "answers arrive in one burst: every token of 95% of requests (57 of
// 60) came at once, 2.10 s after sending (chunk gaps 0.01 ms): a proxy or the server
// buffers the stream; per-user tok/s means nothing here, and TTFT is the whole
// answer's time".
func DiagnoseBuffered(in DiagInput) (Finding, bool) {
	var n int
	var ttft, gaps []time.Duration
	for i := range in.Requests {
		r := &in.Requests[i]
		if r.Err != ErrNone || r.Chunks < burstChunks || r.E2E <= 0 {
			continue
		}
		n++
		if r.burst() {
			ttft = append(ttft, r.TTFT)
			gaps = append(gaps, r.TypicalGap)
		}
	}
	k := len(ttft)
	if k < failMin || 2*k < n {
		return Finding{}, false
	}
	return Finding{Rule: DiagBuffered, Severity: SevProblem,
		Text: fmt.Sprintf("answers arrive in one burst: every token of %s came at once, %s after sending (chunk gaps %s): "+
			"a proxy or the server buffers the stream; per-user tok/s means nothing here, and TTFT is the whole answer's time",
			(&failures{n: n}).share(k), FormatMs(medianDuration(ttft)), FormatMs(medianDuration(gaps))),
		Evidence: []string{diagSpan(&in), fmt.Sprintf("of %d answers with %d chunks or more, %d had all their chunks within a tenth of their time", n, burstChunks, k)}}, true
}

// DiagnoseStalls: answers that pause mid-stream, a chunk gap far above the request's
// own typical gap: "answers pause mid-stream: 30% of requests (54 of 180) paused,
// typically for 4.00 s (their chunks otherwise come every 25 ms)".
func DiagnoseStalls(in DiagInput) (Finding, bool) {
	var n int
	var pauses, typical []time.Duration
	for i := range in.Requests {
		r := &in.Requests[i]
		if r.Err != ErrNone || r.Chunks < stallChunks || r.burst() {
			continue
		}
		n++
		if r.MaxGap >= stallMin && (r.TypicalGap <= 0 || r.MaxGap >= stallFactor*r.TypicalGap) {
			pauses = append(pauses, r.MaxGap)
			typical = append(typical, r.TypicalGap)
		}
	}
	k := len(pauses)
	if k < failMin || float64(k) < stallShare*float64(n) {
		return Finding{}, false
	}
	f := failures{n: n}
	text := fmt.Sprintf("answers pause mid-stream: %s paused, typically for %s", f.share(k), FormatMs(medianDuration(pauses)))
	if g := medianDuration(typical); g > 0 {
		text += fmt.Sprintf(" (their chunks otherwise come every %s)", FormatMs(g))
	}
	return Finding{Rule: DiagStall, Severity: SevWarning, Text: text,
		Evidence: []string{diagSpan(&in), fmt.Sprintf("a pause: a chunk gap of %s or more and %dx the request's median gap; the longest %s",
			FormatMs(stallMin), stallFactor, FormatMs(maxDuration(pauses)))}}, true
}

func maxDuration(v []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range v {
		m = max(m, d)
	}
	return m
}

// DiagnosePrefill: a slow prefill. With prompts of varied length, from a fit of TTFT
// against the prompt tokens: "slow prefill: TTFT grows 3.0 ms per prompt token (fit
// over 120 requests with prompts of 100 to 2,000 tokens: 6.01 s at 2,000)". With
// prompts of one length, what it sees: a high TTFT with no queue on the server and
// long prompts ("likely slow prefill").
func DiagnosePrefill(in DiagInput) (Finding, bool) {
	var xs, ys []float64
	for i := range in.Requests {
		r := &in.Requests[i]
		if r.Err == ErrNone && r.PromptTokens > 0 && r.TTFT > 0 && !r.burst() {
			xs = append(xs, float64(r.PromptTokens))
			ys = append(ys, float64(r.TTFT)/float64(time.Millisecond))
		}
	}
	if f, ok := prefillFit(&in, xs, ys); ok {
		return f, true
	}
	return prefillNoQueue(&in, xs, ys)
}

// prefillFit is the fit's finding, when prompts vary and the fit explains TTFT.
func prefillFit(in *DiagInput, xs, ys []float64) (Finding, bool) {
	if len(xs) < prefillMin {
		return Finding{}, false
	}
	lo, hi := xs[0], xs[0]
	var sx, sy float64
	for i := range xs {
		lo, hi = math.Min(lo, xs[i]), math.Max(hi, xs[i])
		sx += xs[i]
		sy += ys[i]
	}
	n := float64(len(xs))
	mx, my := sx/n, sy/n
	var sxx, sxy, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if hi < prefillSpread*lo || sxx == 0 || syy == 0 {
		return Finding{}, false
	}
	slope := sxy / sxx // ms per token
	r2 := sxy * sxy / (sxx * syy)
	prefill := time.Duration(slope * mx * float64(time.Millisecond))
	if slope <= 0 || r2 < prefillR2 || prefill < prefillFloor || slope*mx < prefillShare*my {
		return Finding{}, false
	}
	at := time.Duration((my + slope*(hi-mx)) * float64(time.Millisecond))
	return Finding{Rule: DiagPrefill, Severity: SevWarning,
		Text: fmt.Sprintf("slow prefill: TTFT grows %s ms per prompt token (fit over %d requests with prompts of %s to %s tokens: %s at %s)",
			perToken(slope), len(xs), diagInt(int(lo)), diagInt(int(hi)), FormatMs(at), diagInt(int(hi))),
		Evidence: []string{diagSpan(in), fmt.Sprintf("TTFT = %s + %s ms x prompt tokens, r² %.2f; prefill about %.0f tokens/s",
			FormatMs(time.Duration((my-slope*mx)*float64(time.Millisecond))), perToken(slope), r2, 1000/slope)}}, true
}

// perToken is a slope in ms per token with two significant digits: "3.0", "0.52".
func perToken(ms float64) string {
	if ms >= 10 {
		return fmt.Sprintf("%.0f", ms)
	}
	if ms >= 1 {
		return fmt.Sprintf("%.1f", ms)
	}
	return fmt.Sprintf("%.2f", ms)
}

// prefillNoQueue: a high TTFT, long prompts, no queue on the server: what it sees
// ("likely slow prefill"), when no fit tells (prompts of one length, or too few
// requests yet for a fit).
func prefillNoQueue(in *DiagInput, xs, ys []float64) (Finding, bool) {
	waiting := waitingPoints(in.Server)
	if len(xs) < failMin || len(waiting) == 0 {
		return Finding{}, false
	}
	for _, p := range diagLast(waiting, diagTTFTSpan) {
		if p.Waiting > 0 {
			return Finding{}, false
		}
	}
	prompt, ttftMs := diagMedian(xs), diagMedian(ys)
	ttft := time.Duration(ttftMs * float64(time.Millisecond))
	if !slowPerPrompt(prompt, ttftMs) || ttft < slowTTFT {
		return Finding{}, false
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	prompts := fmt.Sprintf("prompts of %s tokens", diagInt(int(prompt)))
	confirm := "; prompts of varied length would confirm it"
	if hi >= prefillSpread*lo {
		prompts = fmt.Sprintf("prompts of %s to %s tokens (median %s)", diagInt(int(lo)), diagInt(int(hi)), diagInt(int(prompt)))
		confirm = "; more requests would allow a fit of TTFT against prompt length"
	}
	return Finding{Rule: DiagPrefill, Severity: SevWarning,
		Text: fmt.Sprintf("TTFT is %s with no queue on the server and %s: likely slow prefill (%s ms per prompt token)%s",
			FormatMs(ttft), prompts, perToken(ttftMs/prompt), confirm),
		Evidence: []string{diagSpan(in), fmt.Sprintf("median TTFT %s over %d requests, median prompt %s tokens; no request waiting on the server in its last %d scrapes",
			FormatMs(ttft), len(xs), diagInt(int(prompt)), len(diagLast(waiting, diagTTFTSpan)))}}, true
}

// slowPerPrompt reports whether prompts of this many tokens are long and a TTFT of
// ttftMs is slow enough per token for a slow prefill to explain it.
func slowPerPrompt(prompt, ttftMs float64) bool {
	return prompt >= slowPrompt && ttftMs/prompt >= float64(slowPerToken)/float64(time.Millisecond)
}

// prefillMayExplain reports whether the window's prompts are long enough, and its TTFT
// slow enough per prompt token, for a slow prefill to explain the TTFT: then a TTFT
// without a queue is not the network's for sure.
func prefillMayExplain(in *DiagInput) bool {
	var xs, ys []float64
	for i := range in.Requests {
		r := &in.Requests[i]
		if r.Err == ErrNone && r.PromptTokens > 0 && r.TTFT > 0 {
			xs = append(xs, float64(r.PromptTokens))
			ys = append(ys, float64(r.TTFT)/float64(time.Millisecond))
		}
	}
	return len(xs) > 0 && slowPerPrompt(diagMedian(xs), diagMedian(ys))
}
