package model

import (
	"fmt"
)

// Turns holds, over a level's steady successful conversation turns, the TTFT of first
// turns and of later turns apart: a later turn carries the whole history before it, so
// a server with prefix caching answers it from its cache, and a first turn is the slow
// one. Requests that are not part of a conversation (Sample.Turn 0) are left out.
type Turns struct {
	first, later *Hist
}

// NewTurns returns an empty accumulator.
func NewTurns() Turns { return Turns{first: NewLatencyHist(), later: NewLatencyHist()} }

// Add records a successful turn's TTFT as a first or a later turn.
func (t *Turns) Add(s *Sample) {
	if s.Turn <= 0 || !s.OK() {
		return
	}
	d, ok := s.TTFT()
	if !ok {
		return
	}
	if s.Turn == 1 {
		t.first.RecordDuration(d)
	} else {
		t.later.RecordDuration(d)
	}
}

// TurnTTFT is the TTFT of one kind of turn, in ms: how many turns, p50 and p95.
type TurnTTFT struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
}

// TurnStats is a level's TTFT of first turns and of later turns (JSON "ttft_by_turn").
type TurnStats struct {
	First TurnTTFT `json:"first_turns"`
	Later TurnTTFT `json:"later_turns"`
}

// Stats reads the accumulator; nil when no conversation turn was recorded.
func (t *Turns) Stats() *TurnStats {
	if t.first == nil || t.first.Count()+t.later.Count() == 0 {
		return nil
	}
	read := func(h *Hist) TurnTTFT {
		d := h.Dist()
		return TurnTTFT{Count: d.Count, P50: round(d.P50, 2), P95: round(d.P95, 2)}
	}
	return &TurnStats{First: read(t.first), Later: read(t.later)}
}

// Words says the two TTFTs side by side, e.g. "first turns: TTFT p50 812 ms, p95 1.20 s
// (40 turns); later turns: TTFT p50 95 ms, p95 140 ms (120 turns)".
func (s *TurnStats) Words() string {
	part := func(name string, x TurnTTFT) string {
		if x.Count == 0 {
			return name + ": none measured"
		}
		return fmt.Sprintf("%s: TTFT p50 %s, p95 %s (%s)", name, Millis(x.P50), Millis(x.P95), Plural(x.Count, "turn"))
	}
	return part("first turns", s.First) + "; " + part("later turns", s.Later)
}

// json adds the turns' histograms to hs (none when no turn was recorded).
func (t *Turns) json(hs *ReportHists) {
	if t.first == nil || t.first.Count()+t.later.Count() == 0 {
		return
	}
	f, l := t.first.JSON(), t.later.JSON()
	hs.TTFTFirstTurns, hs.TTFTLaterTurns = &f, &l
}

// merge adds a report's turn histograms (absent ones add nothing).
func (t *Turns) merge(hs *ReportHists) error {
	for _, p := range []struct {
		name string
		into *Hist
		j    *HistJSON
	}{{"ttft_first_turns", t.first, hs.TTFTFirstTurns}, {"ttft_later_turns", t.later, hs.TTFTLaterTurns}} {
		if p.j == nil {
			continue
		}
		h, err := HistFromJSON(*p.j)
		if err == nil {
			err = p.into.Merge(h)
		}
		if err != nil {
			return fmt.Errorf("hist.%s: %w", p.name, err)
		}
	}
	return nil
}
