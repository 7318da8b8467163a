package model

import (
	"math"
	"testing"
)

// TestChangeCall: a move beyond the threshold is a regression only when the intervals
// decide it; without intervals the points alone decide.
func TestChangeCall(t *testing.T) {
	iv := func(lo, hi float64) *Interval { return &Interval{Lo: lo, Hi: hi} }
	ttft := Change{Rel: 0.05}
	user := Change{Higher: true, Rel: 0.05}
	errs := Change{Points: 0.01}
	inf := math.Inf(1)
	for _, tc := range []struct {
		name       string
		rule       Change
		base, next Figure
		want       ChangeCall
	}{
		// Two runs of the same build: TTFT p95 20.6 -> 26.5 ms (+29%), 42 and 38 requests: no upper bound.
		{"p95 +29%, unbounded", ttft, Figure{20.6, iv(19.8, inf)}, Figure{26.5, iv(20.1, inf)}, ChangeUndecided},
		{"p95 +29%, overlapping", ttft, Figure{20.6, iv(18, 24)}, Figure{26.5, iv(22, 31)}, ChangeUndecided},
		{"p95 +29%, disjoint", ttft, Figure{20.6, iv(20.2, 21)}, Figure{26.5, iv(25.9, 27.1)}, ChangeRegressed},
		// Disjoint but not by the threshold: 21 x 1.05 = 22.05 > 22.
		{"p95 disjoint within 5% of BASE.hi", ttft, Figure{20.6, iv(20.2, 21)}, Figure{23, iv(22, 24)}, ChangeUndecided},
		{"p95 +4%", ttft, Figure{20, iv(19.9, 20.1)}, Figure{20.8, iv(20.7, 20.9)}, ChangeWithin},
		{"p95 better", ttft, Figure{20, iv(19, 21)}, Figure{10, iv(9, 11)}, ChangeWithin},
		{"p95 no intervals", ttft, Figure{20.6, nil}, Figure{26.5, nil}, ChangeOnPoints},
		{"p95 NEW only has intervals", ttft, Figure{20.6, nil}, Figure{26.5, iv(26, 27)}, ChangeOnPoints},
		{"p50 -50%, disjoint", user, Figure{52.2, iv(51, 53)}, Figure{26, iv(25.5, 26.5)}, ChangeRegressed},
		{"p50 -10%, overlapping", user, Figure{50, iv(44, 56)}, Figure{45, iv(40, 50)}, ChangeUndecided},
		{"p50 NEW unbounded above", user, Figure{50, iv(49, 51)}, Figure{20, iv(0, inf)}, ChangeUndecided},
		{"p50 -4%", user, Figure{50, iv(49, 51)}, Figure{48, iv(47.9, 48.1)}, ChangeWithin},
		// Errors: 0 of 111 (Wilson hi 3.35%) against 5 of 111 (4.5%, lo 1.9%): can't tell.
		{"errors +4.5 pt, Wilson", errs, Figure{0, iv(0, 0.0335)}, Figure{0.045, iv(0.019, 0.101)}, ChangeUndecided},
		{"errors 0 -> 60%", errs, Figure{0, iv(0, 0.0335)}, Figure{0.6, iv(0.5, 0.69)}, ChangeRegressed},
		{"errors +1 pt exactly", errs, Figure{0.005, nil}, Figure{0.015, nil}, ChangeWithin},
		{"errors +2 pt on points", errs, Figure{0, nil}, Figure{0.02, nil}, ChangeOnPoints},
	} {
		got := tc.rule.Call(tc.base, tc.next)
		if got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if got.Regression() != (tc.want == ChangeRegressed || tc.want == ChangeOnPoints) {
			t.Errorf("%s: Regression() %v", tc.name, got.Regression())
		}
	}
}
