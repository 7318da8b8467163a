package report

import (
	"math"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// withIntervals gives every level of r 95% intervals of ±rel around its figures, and
// the error rate the Wilson interval of its requests (as a file written since the
// intervals carries them).
func withIntervals(rel float64) func(*model.Report) {
	return func(r *model.Report) {
		for i := range r.Endpoints {
			for j := range r.Endpoints[i].Levels {
				l := &r.Endpoints[i].Levels[j]
				around := func(v float64) *model.Interval { return &model.Interval{Lo: v * (1 - rel), Hi: v * (1 + rel)} }
				l.CI95 = model.LevelCI{UserTPSP50: around(l.UserTPS.P50), TTFTP50: around(l.TTFTMs.P50), TTFTP95: around(l.TTFTMs.P95),
					AggregateTPS: around(l.AggregateTPS), ErrorRate: wilson(l.ErrorRate, l.Requests)}
			}
		}
	}
}

// wilson is the 95% Wilson score interval of a share p of n requests.
func wilson(p float64, n int) *model.Interval {
	const z = 1.959964
	nf := float64(n)
	mid := (p + z*z/(2*nf)) / (1 + z*z/nf)
	half := z / (1 + z*z/nf) * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return &model.Interval{Lo: max(0, mid-half), Hi: min(1, mid+half)}
}

// ttftAt4 sets the 4-user level's TTFT p95, its interval and its steady requests (and
// its TTFO p95 alike: not a reasoning model, whose answer starts with its first token).
func ttftAt4(p95 float64, ci model.Interval, steady int) func(*model.Report) {
	return func(r *model.Report) {
		l := &r.Endpoints[0].Levels[2]
		l.TTFTMs.P95, l.TTFOMs.P95, l.CI95.TTFTP95, l.Steady = p95, p95, &ci, steady
	}
}

// both applies every edit in turn.
func both(edits ...func(*model.Report)) func(*model.Report) {
	return func(r *model.Report) {
		for _, e := range edits {
			e(r)
		}
	}
}

// TestCompareUndecidedByIntervals: two runs of the same build whose TTFT p95 at 4 users
// differs by 29% on points, with 95% intervals that overlap widely (a p95 of 42 and 38
// requests has no upper bound), is no regression: the change is said, with its
// figures, as one the requests cannot tell (the sentence says its times with the table's
// precision, "20.6 ms → 26.5 ms", never "21 ms → 26 ms (+28.6%)", from which a reader
// computes +23.8%). With narrow, disjoint intervals the same points are a regression,
// decided at 95%.
func TestCompareUndecidedByIntervals(t *testing.T) {
	fixture := load(t, "base.json")[0]
	inf := math.Inf(1)
	base := edited(t, fixture, "base.json", both(withIntervals(0.01), ttftAt4(20.6, model.Interval{Lo: 19.8, Hi: inf}, 42)))
	next := edited(t, fixture, "new.json", both(withIntervals(0.01), ttftAt4(26.5, model.Interval{Lo: 20.1, Hi: inf}, 38)))
	c := Compare(base, next, DefaultThresholds)
	const said = "new vs base at 4 users: TTFT p95 20.6 ms → 26.5 ms (+28.6%): within what 42 and 38 requests can tell, not called a regression"
	if len(c.Regressions) > 0 || len(c.Mismatches) > 0 || strings.Join(c.Undecided, "\n") != said {
		t.Errorf("overlapping intervals: regressions %v, mismatches %v, undecided %q; want none, none, %q", c.Regressions, c.Mismatches, c.Undecided, said)
	}
	for _, w := range []string{"| 4 | 62.5 → 62.5 | 0% | 261.4 → 261.4 | 0% | 20.6 → 26.5 | +28.6% (not decided) | 0% → 0% | 0 pt |",
		"**Result: no regression**", "Beyond the thresholds, but not decided by the 95% intervals of BASE and NEW:\n\n- " + said + "\n"} {
		if !strings.Contains(c.Markdown, w) {
			t.Errorf("Markdown lacks %q:\n%s", w, c.Markdown)
		}
	}
	if strings.Contains(c.Markdown, "**+28.6%**") || strings.Contains(c.Markdown, "no intervals") {
		t.Errorf("an undecided change marked as a regression, or intervals said missing:\n%s", c.Markdown)
	}

	// Narrow, disjoint intervals: 26 > 21 x 1.05: decided.
	base = edited(t, base, "base.json", ttftAt4(20.6, model.Interval{Lo: 20.2, Hi: 21}, 420))
	next = edited(t, next, "new.json", ttftAt4(26.5, model.Interval{Lo: 26, Hi: 27.1}, 380))
	c = Compare(base, next, DefaultThresholds)
	if strings.Join(c.Regressions, "\n") != "new vs base at 4 users: TTFT p95 20.6 ms → 26.5 ms (+28.6%): a regression, decided at 95%" || len(c.Undecided) > 0 ||
		c.Decided != 1 || c.Worse() != "NEW is worse than BASE: 1 regression decided at 95%" {
		t.Errorf("disjoint intervals: regressions %q, undecided %q (%s); want the TTFT p95's, decided", c.Regressions, c.Undecided, c.Worse())
	}
	if !strings.Contains(c.Markdown, "| 20.6 → 26.5 | **+28.6%** |") || !strings.Contains(c.Markdown, "**Result: NEW is worse than BASE**") ||
		strings.Contains(c.Markdown, "(not decided)") || strings.Contains(c.Markdown, "not called a regression") || len(c.Notes) > 0 {
		t.Errorf("disjoint intervals: notes %v\n%s", c.Notes, c.Markdown)
	}
}

// TestCompareErrorsByWilson: the error rate is judged on its Wilson intervals with the
// points threshold: 0 of 60 against 1 of 60 at 8 users (+1.67 points) is within what
// 60 requests can tell, and so is the capacity's fall it brings (NEW's 8 users fails
// errors on its figure, not at 95%); 0 of 2500 against 200 of 2500 is a regression,
// and the fall too.
func TestCompareErrorsByWilson(t *testing.T) {
	fixture := load(t, "base.json")[0]
	errorsAt8 := func(failed, n int) func(*model.Report) {
		return func(r *model.Report) {
			l := &r.Endpoints[0].Levels[3]
			l.Requests, l.ErrorRate = n, float64(failed)/float64(n)
			l.CI95.ErrorRate = wilson(l.ErrorRate, n)
		}
	}
	base := edited(t, fixture, "base.json", both(withIntervals(0.01), errorsAt8(0, 60)))
	next := edited(t, fixture, "new.json", both(withIntervals(0.01), errorsAt8(1, 60)))
	c := Compare(base, next, DefaultThresholds)
	const said = "new vs base at 8 users: errors 0% → 1.67% (+1.67 pt): within what 60 and 60 requests can tell, not called a regression"
	if len(c.Regressions) > 0 || !strings.Contains(strings.Join(c.Undecided, "\n"), said) || !strings.Contains(c.Markdown, "| 0% → 1.67% | +1.67 pt (not decided) |") ||
		!strings.Contains(c.Markdown, "Capacity: BASE at least 8 users, NEW 4 users (lower, not decided at 95%: NEW: the failure of 8 users is not decided)") {
		t.Errorf("1 of 60: regressions %v, undecided %q; want %q\n%s", c.Regressions, c.Undecided, said, c.Markdown)
	}
	base = edited(t, base, "base.json", errorsAt8(0, 2500))
	next = edited(t, next, "new.json", errorsAt8(200, 2500))
	c = Compare(base, next, DefaultThresholds)
	all := strings.Join(c.Regressions, "\n")
	if !strings.Contains(all, "new vs base at 8 users: errors 0% → 8% (+8 pt)") || !strings.Contains(all, "capacity fell from at least 8 users to 4 users") || len(c.Undecided) > 0 {
		t.Errorf("200 of 2500: regressions %q, undecided %q; want the errors' and the capacity's", c.Regressions, c.Undecided)
	}
}

// TestCompareWithoutIntervals: files written before the intervals are judged on their
// points, and the comparison says so once, naming the run without them.
func TestCompareWithoutIntervals(t *testing.T) {
	fixture := load(t, "base.json")[0] // written before the intervals: no ci95
	old := edited(t, fixture, "base.json", func(r *model.Report) { r.Endpoints[0].Levels[2].TTFTMs.P95 = 20.6 })
	next := edited(t, old, "new.json", func(r *model.Report) { r.Endpoints[0].Levels[2].TTFTMs.P95 = 26.5 })
	old.Report.Endpoints[0].Levels[2].TTFOMs.P95, next.Report.Endpoints[0].Levels[2].TTFOMs.P95 = 20.6, 26.5
	const reg = "new vs base at 4 users: TTFT p95 20.6 ms → 26.5 ms (+28.6%): a regression on the figures alone"
	for _, tc := range []struct {
		name       string
		base, next *Run
		note       string
	}{
		{"both old", old, next, "BASE and NEW have no intervals (written by older tpsmon versions): changes judged on points alone"},
		{"BASE old", old, edited(t, next, "new.json", withIntervals(0.5)), "BASE has no intervals (written by an older tpsmon): changes judged on points alone"},
		{"NEW old", edited(t, old, "base.json", withIntervals(0.5)), next, "NEW has no intervals (written by an older tpsmon): changes judged on points alone"},
	} {
		c := Compare(tc.base, tc.next, DefaultThresholds)
		if strings.Join(c.Regressions, "\n") != reg || len(c.Undecided) > 0 || c.Worse() != "NEW is worse than BASE: 1 regression on the figures alone (no intervals)" {
			t.Errorf("%s: regressions %q, undecided %q (%s); want %q on points", tc.name, c.Regressions, c.Undecided, c.Worse(), reg)
		}
		if n := strings.Count(c.Markdown, "no intervals"); n != 1 || !strings.Contains(c.Markdown, "Note: "+tc.note+"\n") {
			t.Errorf("%s: want the note %q once, found %d:\n%s", tc.name, tc.note, n, c.Markdown)
		}
	}
	// Nothing beyond the thresholds: nothing was judged on points, nothing to say.
	if c := Compare(old, old, DefaultThresholds); len(c.Notes) > 0 {
		t.Errorf("an old file against itself: notes %v", c.Notes)
	}
}

// TestCompareCapacityFallUndecided: a capacity's fall is a regression when the levels'
// intervals decide it (NEW's failing level fails at 95%); when NEW's failure is not
// decided, the capacity line says so and the fall is not called a regression.
func TestCompareCapacityFallUndecided(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	base := edited(t, runs[0], "base.json", withIntervals(0.01))
	small := edited(t, runs[1], "small.json", withIntervals(0.01)) // 4 users fails: per-user p50 28.86 (28.57-29.15) < 30
	c := Compare(base, small, DefaultThresholds)
	all := strings.Join(c.Regressions, "\n")
	for _, w := range []string{"small vs base: capacity fell from at least 8 users to 2 users", "small vs base at 8 users: per-user tok/s p50 52.2 → 26.0 tok/s (-50.3%)"} {
		if !strings.Contains(all, w) {
			t.Errorf("decided: regressions lack %q:\n%s", w, all)
		}
	}
	if !strings.Contains(c.Markdown, "Capacity: BASE at least 8 users, NEW 2 users (**worse**)") || len(c.Notes) > 0 {
		t.Errorf("decided: notes %v\n%s", c.Notes, c.Markdown)
	}
	// NEW's 4 users: per-user p50 28.86, its interval 25-33 reaching the 30 tok/s target.
	wide := edited(t, small, "small.json", func(r *model.Report) {
		r.Endpoints[0].Levels[2].CI95.UserTPSP50 = &model.Interval{Lo: 25, Hi: 33}
	})
	c = Compare(base, wide, DefaultThresholds)
	want := "Capacity: BASE at least 8 users, NEW 2 users (lower, not decided at 95%: NEW: the failure of 4 users is not decided)"
	said := "small vs base: capacity fell from at least 8 users to 2 users: not decided at 95% (NEW: the failure of 4 users is not decided), not called a regression"
	if !strings.Contains(c.Markdown, want) || !strings.Contains(strings.Join(c.Undecided, "\n"), said) ||
		strings.Contains(strings.Join(c.Regressions, "\n"), "capacity fell") {
		t.Errorf("NEW's failure undecided: want %q and %q; regressions %q\n%s", want, said, c.Regressions, c.Markdown)
	}
}

// TestCompareThresholdsWithIntervals: with intervals narrow enough (±0.1%), a 4% loss at
// every level is within 5% and a decided regression beyond 3%, as on points.
func TestCompareThresholdsWithIntervals(t *testing.T) {
	base := edited(t, load(t, "base.json")[0], "base.json", withIntervals(0.001))
	next := edited(t, base, "next.json", func(r *model.Report) {
		for i := range r.Endpoints[0].Levels {
			l := &r.Endpoints[0].Levels[i]
			l.UserTPS.P50 *= 0.96
			l.AggregateTPS *= 0.96
			l.TTFTMs.P95 *= 1.04
			l.TTFOMs.P95 = l.TTFTMs.P95
		}
		withIntervals(0.001)(r)
	})
	if c := Compare(base, next, DefaultThresholds); len(c.Regressions) > 0 || len(c.Undecided) > 0 {
		t.Errorf("4%% worse is within 5%%: regressions %v, undecided %v", c.Regressions, c.Undecided)
	}
	if c := Compare(base, next, Thresholds{MaxRegression: 0.03, MaxErrorIncrease: 0.01}); len(c.Regressions) != 12 || len(c.Notes) > 0 {
		t.Errorf("4%% worse beyond 3%%: %d regressions, want 3 per level x 4, decided (notes %v):\n%v", len(c.Regressions), c.Notes, c.Regressions)
	}
}
