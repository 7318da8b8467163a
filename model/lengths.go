package model

import (
	"math"
	"time"
)

// Lengths are recorded in a rate Hist in whole tokens (n / rateUnits records the
// integer n), so they are exact below 2,048 tokens and within 0.1% above.

// Lengths summarises the input and output lengths a level's requests really had: the
// prompt tokens the server reported (usage.prompt_tokens; requests without it are left
// out of Input) and the output tokens received (Sample.Tokens), over the steady
// successful requests. Add is cheap (two histogram records).
type Lengths struct {
	in, out *Hist
}

// NewLengths returns an empty summary.
func NewLengths() Lengths { return Lengths{in: NewRateHist(), out: NewRateHist()} }

// Add records a request; failed ones are left out (their lengths are not whole).
func (l *Lengths) Add(s *Sample) {
	if !s.OK() {
		return
	}
	if s.PromptTokens > 0 {
		l.in.RecordRate(float64(s.PromptTokens) / rateUnits)
	}
	if s.Tokens > 0 {
		l.out.RecordRate(float64(s.Tokens) / rateUnits)
	}
}

// LengthSummary is a distribution of lengths in tokens: how many requests, their
// mean, p50 and p90 (nearest rank: exact below 2,048 tokens, else within 0.1%).
type LengthSummary struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
}

// LengthStats is a level's input (prompt) and output lengths.
type LengthStats struct {
	Input  LengthSummary `json:"input_tokens"`
	Output LengthSummary `json:"output_tokens"`
}

// Stats returns the summaries.
func (l *Lengths) Stats() LengthStats {
	sum := func(h *Hist) LengthSummary {
		d := h.Dist()
		return LengthSummary{Count: d.Count, Mean: d.Mean * rateUnits, P50: math.Round(d.P50 * rateUnits), P90: math.Round(d.P90 * rateUnits)}
	}
	return LengthStats{Input: sum(l.in), Output: sum(l.out)}
}

// Traffic is what a level holds for rate mode and workloads, beside its latency
// histograms: goodput, input/output lengths and pooled chunk gaps. The level book
// calls Add for each steady ended request (canceled ones excepted) and Stats with the
// level's steady window.
type Traffic struct {
	Goodput Goodput
	Lengths Lengths
	Gaps    ChunkGaps
	Turns   Turns // conversations: TTFT of first and of later turns
}

// NewTraffic returns an empty accumulator judging goodput against target.
func NewTraffic(target GoodputTarget) *Traffic {
	return &Traffic{Goodput: NewGoodput(target), Lengths: NewLengths(), Turns: NewTurns()}
}

// Add records one steady ended request.
func (t *Traffic) Add(s *Sample) {
	t.Goodput.Add(s)
	t.Lengths.Add(s)
	t.Turns.Add(s)
	if s.OK() {
		t.Gaps.Add(s.Gaps)
	}
}

// TrafficStats is Traffic read over a steady window.
type TrafficStats struct {
	Goodput   GoodputStats `json:"goodput"`
	Lengths   LengthStats  `json:"lengths"`
	ChunkGaps GapStats     `json:"chunk_gap_ms"`
	// Turns is the TTFT of conversations' first turns and later turns apart (absent
	// when the level sent no conversation).
	Turns *TurnStats `json:"ttft_by_turn,omitempty"`
}

// Stats reads the accumulator over the level's steady window.
func (t *Traffic) Stats(window time.Duration) TrafficStats {
	return TrafficStats{Goodput: t.Goodput.Stats(window), Lengths: t.Lengths.Stats(), ChunkGaps: t.Gaps.Stats(), Turns: t.Turns.Stats()}
}

// rounded is t as the report writes it: shares to 4 decimals, rates and milliseconds
// to 0.001, mean lengths to 0.1 token.
func (t TrafficStats) rounded() TrafficStats {
	g := &t.Goodput
	g.Share, g.Rate = round(g.Share, 4), round(g.Rate, 3)
	for _, l := range []*LengthSummary{&t.Lengths.Input, &t.Lengths.Output} {
		l.Mean = round(l.Mean, 1)
	}
	c := &t.ChunkGaps
	c.P50, c.P90, c.P99 = round(c.P50, 3), round(c.P90, 3), round(c.P99, 3)
	return t
}
