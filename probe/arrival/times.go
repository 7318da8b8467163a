package arrival

import "time"

// Plan is what a Dispatcher paces: a Schedule (a rate that may change) or Times (the
// moments of a trace).
type Plan interface {
	Pacer
	// Due is when arrival number hits is due, counted from the start (see Schedule.Due).
	Due(hits uint64) time.Duration
	// SetRate asks for a new rate from elapsed on (a trace keeps its own times).
	SetRate(rate float64, elapsed time.Duration) error
}

var (
	_ Plan = (*Schedule)(nil)
	_ Plan = (*Times)(nil)
)

// Times is a Pacer of arrivals at given moments: arrival i is due at at[i], counted
// from the start, and there is none after the last (a trace replayed on its schedule,
// open loop: each leaves at its time whatever the answers take).
type Times struct {
	at []time.Duration
}

// NewTimes returns the plan of arrivals at the moments at, which must not decrease.
func NewTimes(at []time.Duration) *Times { return &Times{at: at} }

// Pace implements Pacer: the wait until arrival hits is due (0 when it is late: an open
// loop catches up), stop after the last.
func (t *Times) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if hits >= uint64(len(t.at)) {
		return 0, true
	}
	return max(t.at[hits]-elapsed, 0), false
}

// Due implements Plan (the last moment for hits past the end).
func (t *Times) Due(hits uint64) time.Duration {
	if len(t.at) == 0 {
		return 0
	}
	return t.at[min(hits, uint64(len(t.at)-1))]
}

// SetRate implements Plan: a trace keeps its times (only the rate check applies).
func (t *Times) SetRate(rate float64, _ time.Duration) error { return CheckRate(rate) }

// Rate is the trace's mean rate in arrivals per second (0 for a trace of one moment).
func (t *Times) Rate() float64 {
	if len(t.at) < 2 || t.at[len(t.at)-1] <= 0 {
		return 0
	}
	return float64(len(t.at)) / t.at[len(t.at)-1].Seconds()
}

// Len is the number of arrivals.
func (t *Times) Len() int { return len(t.at) }
