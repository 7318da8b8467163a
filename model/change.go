package model

// Change is how a figure of a level may move the worse way from one run (BASE) to
// another (NEW) before the move is a regression, and the one rule that calls it (Call):
// compare judges every figure of every level by it.
type Change struct {
	// Higher says a higher figure is better (tok/s); a lower one is better otherwise
	// (TTFT, the error rate).
	Higher bool
	// Rel is the move allowed as a share of BASE's figure (0.05: 5%); Points, for a share
	// of requests (the error rate), the move allowed in its own units (0.01: one
	// percentage point). Points is used when Rel is 0.
	Rel, Points float64
}

// ChangeCall is what the rule says of NEW's figure against BASE's.
type ChangeCall int

// The calls.
const (
	// ChangeWithin: the point estimates are within the allowed move (or NEW is better).
	ChangeWithin ChangeCall = iota
	// ChangeRegressed: the points differ beyond the allowed move and the 95% intervals
	// decide it: a regression.
	ChangeRegressed
	// ChangeUndecided: the points differ beyond the allowed move but the intervals do
	// not decide it: not a regression ("within what 42 and 38 requests can tell").
	ChangeUndecided
	// ChangeOnPoints: the points differ beyond the allowed move and one run carries no
	// intervals (a file from before them): a regression judged on points alone.
	ChangeOnPoints
)

// Figure is one figure of a level as a comparison reads it: its point estimate and its
// 95% interval. CI is nil when the run carries no intervals at all (a file written
// before them); a run that does but could not bound this figure gives it [0, +Inf).
type Figure struct {
	V  float64
	CI *Interval
}

// Call judges NEW's figure against BASE's. It is a regression only when the points
// differ beyond the allowed move AND the intervals decide it: NEW's whole 95% interval
// lies beyond BASE's whole interval moved the worse way by the threshold. For tok/s
// (higher is better, Rel 5%): NEW.hi < BASE.lo x 0.95; for TTFT p95: NEW.lo >
// BASE.hi x 1.05; for the error rate (Points 1 point, Wilson intervals): NEW.lo >
// BASE.hi + 0.01. Every value the data allow NEW is then worse, by more than the
// threshold, than every value they allow BASE: the noise of neither run (BASE's point
// is an estimate too) makes a regression, and a p95 the data do not bound from above
// (fewer than about 72 samples) never decides one. The rule is conservative: a real
// change smaller than the intervals' widths is said undecided, not called a regression.
// When either figure has no interval, the points alone decide (ChangeOnPoints).
func (c Change) Call(base, next Figure) ChangeCall {
	if !c.beyond(base.V, next.V) {
		return ChangeWithin
	}
	if base.CI == nil || next.CI == nil {
		return ChangeOnPoints
	}
	if c.Higher && c.beyond(base.CI.Lo, next.CI.Hi) || !c.Higher && c.beyond(base.CI.Hi, next.CI.Lo) {
		return ChangeRegressed
	}
	return ChangeUndecided
}

// beyond reports whether y (NEW) is worse than x (BASE) by more than the allowed move.
func (c Change) beyond(x, y float64) bool {
	const eps = 1e-12 // 1.5% - 0.5% is one point, not a little more
	switch {
	case c.Rel == 0 && c.Higher:
		return y < x-c.Points-eps
	case c.Rel == 0:
		return y > x+c.Points+eps
	case c.Higher:
		return y < x*(1-c.Rel)
	}
	return y > x*(1+c.Rel) // x +Inf (an unbounded hi): nothing is beyond it
}

// Regression reports whether the call counts as a regression (decided, or judged on
// points for want of intervals).
func (c ChangeCall) Regression() bool { return c == ChangeRegressed || c == ChangeOnPoints }
