package model

import "time"

// ClientWait accumulates, over a level's arrivals in rate mode, the time each one
// waited on tpsmon's side for a place under the concurrency cap before it was sent.
// It is never part of TTFT (t_send is taken after it); a level where arrivals were
// capped was paced by the cap, not by the server, and says so.
type ClientWait struct {
	h      *Hist
	capped int
	late   int
}

// LateAfter is how late an arrival may leave before it counts as late: a trace (or a
// rate) the client cannot keep up with says so when its arrivals leave later than this.
const LateAfter = 10 * time.Millisecond

// NewClientWait returns an empty accumulator.
func NewClientWait() ClientWait { return ClientWait{h: NewLatencyHist()} }

// Add records one arrival: its wait, and whether it found the cap full.
func (c *ClientWait) Add(wait time.Duration, capped bool) {
	c.h.RecordDuration(max(wait, 0))
	if capped {
		c.capped++
	}
	if wait > LateAfter {
		c.late++
	}
}

// WaitStats is a level's client-side wait in milliseconds: Arrivals recorded, Capped
// of them found the concurrency cap full (CappedShare = Capped / Arrivals), and the
// wait's p50, p95 and max.
type WaitStats struct {
	Arrivals    int     `json:"arrivals"`
	Capped      int     `json:"capped"`
	CappedShare float64 `json:"capped_share"`
	P50         float64 `json:"p50"`
	P95         float64 `json:"p95"`
	Max         float64 `json:"max"`
	// Late is how many arrivals left more than LateAfter (10 ms) after they were due.
	Late int `json:"late"`
}

// Stats reads the accumulator.
func (c *ClientWait) Stats() WaitStats {
	d := c.h.Dist()
	st := WaitStats{Arrivals: d.Count, Capped: c.capped, P50: d.P50, P95: d.P95, Max: d.Max, Late: c.late}
	if d.Count > 0 {
		st.CappedShare = float64(c.capped) / float64(d.Count)
	}
	return st
}
