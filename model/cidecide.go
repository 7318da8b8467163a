package model

import (
	"slices"
)

// Decision is how a capacity criterion stands at a level, at 95% confidence.
type Decision int

// The decisions: a criterion is decided when the 95% interval of its figure lies wholly
// on one side of its target.
const (
	Undecided Decision = iota // the interval reaches both sides of the target (or nothing was measured)
	Meets                     // the interval lies wholly on the meeting side
	Fails                     // the interval lies wholly on the failing side
)

// The criteria's terms, as the SLO syntax names them.
const (
	TermUserTPS   = "user_tps_p50"
	TermTTFT      = "ttft_p95"
	TermErrorRate = "error_rate"
	TermTTFO      = "ttfo_p95"
	TermGoodput   = "goodput"
)

// Call is one capacity criterion of a level, decided at 95%.
type Call struct {
	Term     string   // TermUserTPS, TermTTFT, ...
	Decision Decision // Meets, Fails, or Undecided
	Meets    bool     // the figure itself meets the target (what SLO.Meets reads)
	Measured bool     // the figure was measured (its interval exists)
	// Share says the figure is a share of requests (the error rate, goodput). Showing a
	// small share below its target takes about 4/target requests without a failure (0
	// errors in 380 is below 1% at 95%), more than a level can hold: the level rule waits
	// for a share only while its figure fails the target.
	Share bool
	CI    Interval
}

// LevelCall is how a level stands for the sequential level rule: each criterion's call,
// and the curve's figures whose interval is not yet within ±CurvePrecision.
type LevelCall struct {
	Calls []Call
	Curve []string // "per-user p50", "aggregate tok/s"
}

// CurvePrecision is how well the level rule wants the curve's own figures known (per-user
// tok/s p50 and aggregate tok/s): their 95% interval within ±5% of the figure.
const CurvePrecision = 0.05

// atMost decides a criterion "figure <= target" on its interval.
func atMost(term string, iv *Interval, meets bool, target float64, share bool) Call {
	c := Call{Term: term, Meets: meets, Share: share, Measured: iv != nil}
	if iv == nil {
		return c
	}
	c.CI = *iv
	switch {
	case iv.Hi <= target:
		c.Decision = Meets
	case iv.Lo > target:
		c.Decision = Fails
	}
	return c
}

// atLeast decides a criterion "figure >= target" on its interval.
func atLeast(term string, iv *Interval, meets bool, target float64, share bool) Call {
	c := Call{Term: term, Meets: meets, Share: share, Measured: iv != nil}
	if iv == nil {
		return c
	}
	c.CI = *iv
	switch {
	case iv.Lo >= target:
		c.Decision = Meets
	case iv.Hi < target:
		c.Decision = Fails
	}
	return c
}

// Fails reports whether a criterion fails at 95%: the level fails, whatever the others.
func (c LevelCall) Fails() bool { return failsAt(c.Calls) }

func failsAt(calls []Call) bool {
	return slices.ContainsFunc(calls, func(c Call) bool { return c.Decision == Fails })
}

// Met reports whether the level meets the criteria at 95%: each is decided Meets, but
// a share whose figure meets the target (see Call.Share), which may stay undecided.
func (c LevelCall) Met() bool { return metAt(c.Calls) }

func metAt(calls []Call) bool {
	for _, x := range calls {
		if x.Decision != Meets && !(x.Share && x.Meets) {
			return false
		}
	}
	return len(calls) > 0
}

// Unproven names the criteria met by their figure but undecided at 95% (shares the rule
// does not wait for, see Call.Share).
func unproven(calls []Call) []string {
	var out []string
	for _, x := range calls {
		if x.Decision == Undecided && x.Share && x.Meets {
			out = append(out, x.Term)
		}
	}
	return out
}

// Waiting returns the undecided criteria the level rule holds the level for. Exploring
// (the ramp's climb and the bisection), it holds for a criterion whose figure fails its
// target until the failure is decided (or the figure comes back): a level whose figures
// all meet the targets ends, and the capacity's level is confirmed later. Confirming
// (the capacity's level), it holds for every undecided criterion but a share whose
// figure meets its target. Nothing once a criterion fails at 95% (the level fails).
func (c LevelCall) Waiting(confirm bool) []Call {
	if c.Fails() {
		return nil
	}
	var out []Call
	for _, x := range c.Calls {
		if x.Decision != Undecided || (x.Meets && (x.Share || !confirm)) {
			continue
		}
		out = append(out, x)
	}
	return out
}

// Terms is the calls' terms.
func Terms(calls []Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Term
	}
	return out
}

// Unproven names the criteria (SLO terms) of a saved report's capacity level met by their
// figure but not shown at 95%: shares of requests (errors, goodput) the level rule does
// not wait for (0 errors in 92 requests is below 4% at 95%, not below 1%). nil when the
// capacity is 0.
func (e *ReportEndpoint) Unproven(slo SLO) []string {
	for i := range e.Levels {
		if l := &e.Levels[i]; l.Concurrency == e.Capacity.Users && e.Capacity.Users > 0 {
			return unproven(slo.ReportCalls(l))
		}
	}
	return nil
}
