package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// edited is a copy of r with edit applied to its report (through JSON, so nothing is shared).
func edited(t *testing.T, r *Run, name string, edit func(*model.Report)) *Run {
	t.Helper()
	data, err := json.Marshal(r.Report)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Decode(name, data)
	if err != nil {
		t.Fatal(err)
	}
	edit(&c.Report)
	return c
}

func TestCompareDefaultAgainstSmallGPUIsARegression(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	c := Compare(runs[0], runs[1], DefaultThresholds)
	if len(c.Mismatches) > 0 {
		t.Fatalf("same ramp and workload must compare: %v", c.Mismatches)
	}
	want := []string{
		"small-gpu vs base: capacity fell from at least 8 users to 2 users",
		"small-gpu vs base at 8 users: per-user tok/s p50 52.2 → 26.0 tok/s (-50.3%)",
		"small-gpu vs base at 1 user: TTFT p95 22.3 ms → 87.9 ms (3.9x): a regression on the figures alone",
	}
	all := strings.Join(c.Regressions, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("regressions lack %q:\n%s", w, all)
		}
	}
	for _, w := range []string{"| 8 | 52.2 → 26.0 | **-50.3%** | 412.6 → 185.7 | **-55%** | 54.1 → 126.4 | **2.3x** | 0% → 0% | 0 pt |",
		"- BASE base: capacity at least 8 users (limit not reached: the highest level measured in full meets the criteria)",
		"- NEW small-gpu: capacity 2 users;",
		"Capacity: BASE at least 8 users, NEW 2 users (**worse**)", "Model: BASE sim-14b-h100, NEW sim-8b-awq-l4", "**Result: NEW is worse than BASE**"} {
		if !strings.Contains(c.Markdown, w) {
			t.Errorf("Markdown lacks %q:\n%s", w, c.Markdown)
		}
	}
	// The other way round, NEW is better: no regression.
	if back := Compare(runs[1], runs[0], DefaultThresholds); len(back.Regressions) > 0 || len(back.Mismatches) > 0 {
		t.Errorf("small-gpu -> default: regressions %v, mismatches %v", back.Regressions, back.Mismatches)
	}
}

func TestCompareThresholds(t *testing.T) {
	base := load(t, "base.json")[0]
	// 4% slower per user and aggregate, 4% slower first token at every level: within 5%.
	next := edited(t, base, "next.json", func(r *model.Report) {
		for i := range r.Endpoints[0].Levels {
			l := &r.Endpoints[0].Levels[i]
			l.UserTPS.P50 *= 0.96
			l.AggregateTPS *= 0.96
			l.TTFTMs.P95 *= 1.04
		}
	})
	if c := Compare(base, next, DefaultThresholds); len(c.Regressions) > 0 {
		t.Errorf("4%% worse is within 5%%: %v", c.Regressions)
	}
	if c := Compare(base, next, Thresholds{MaxRegression: 0.03, MaxErrorIncrease: 0.01}); len(c.Regressions) != 12 {
		t.Errorf("4%% worse beyond 3%%: %d regressions, want 3 per level x 4:\n%v", len(c.Regressions), c.Regressions)
	}
	// Errors: 0.5 points more passes one point; 2 points more fails it.
	for _, tc := range []struct {
		rate float64
		regs int
	}{{0.005, 0}, {0.01, 0}, {0.02, 2}} { // 2% errors at 8 users: a regression, and the capacity falls to 4 users
		next := edited(t, base, "next.json", func(r *model.Report) { r.Endpoints[0].Levels[3].ErrorRate = tc.rate })
		c := Compare(base, next, DefaultThresholds)
		if len(c.Regressions) != tc.regs {
			t.Errorf("error rate 0 -> %v: %d regressions, want %d: %v", tc.rate, len(c.Regressions), tc.regs, c.Regressions)
		}
	}
}

func TestCompareMissingLevelIsARegression(t *testing.T) {
	base := load(t, "base.json")[0]
	next := edited(t, base, "next.json", func(r *model.Report) { r.Endpoints[0].Levels = r.Endpoints[0].Levels[:3] })
	c := Compare(base, next, DefaultThresholds)
	if len(c.Regressions) != 1 || !strings.Contains(c.Regressions[0], "NEW did not measure 8 users") {
		t.Errorf("regressions %v, want the level NEW stopped before", c.Regressions)
	}
	if !strings.Contains(c.Markdown, "| 8 | not measured in NEW |") {
		t.Errorf("table lacks the missing level:\n%s", c.Markdown)
	}
	// Cut short by the user, NEW says nothing about the levels it did not reach.
	cut := edited(t, next, "cut.json", func(r *model.Report) { r.Interrupted = true })
	c = Compare(base, cut, DefaultThresholds)
	if len(c.Regressions) > 0 || strings.Join(c.Mismatches, "") != "cut vs base: NEW was interrupted before 8 users, which BASE measured" {
		t.Errorf("interrupted NEW: regressions %v, mismatches %v", c.Regressions, c.Mismatches)
	}
	// The other way round, NEW went further than BASE: shown, not a regression.
	c = Compare(next, base, DefaultThresholds)
	if len(c.Regressions) > 0 || !strings.Contains(c.Markdown, "| 8 | not measured in BASE |") {
		t.Errorf("NEW with a level more: regressions %v\n%s", c.Regressions, c.Markdown)
	}
}

func TestCompareRefusesDifferentRuns(t *testing.T) {
	base := load(t, "base.json")[0]
	for _, tc := range []struct {
		name string
		edit func(*model.Report)
		want string
	}{
		{"ramp", func(r *model.Report) { r.Settings.Ramp = []int{1, 2, 4, 8, 16} }, "the ramp differs: BASE 1,2,4,8, NEW 1,2,4,8,16"},
		{"max_tokens", func(r *model.Report) { r.Settings.MaxTokens = 512 }, "max_tokens differs: BASE 256, NEW 512 (run NEW again with --max-tokens 256)"},
		{"max_tokens, the old default", func(r *model.Report) { r.Settings.MaxTokens = 128 },
			"max_tokens differs: BASE 256, NEW 128 (run NEW again with --max-tokens 256: tpsmon's default was 256 until 2026-11-26, and is 128 since)"},
		{"prompt", func(r *model.Report) { r.Settings.PromptTokens = 1024 }, "the prompt size differs: BASE 128 tokens, NEW 1024 tokens"},
		{"api", func(r *model.Report) { r.Settings.API = "completions" }, "the API differs: BASE chat, NEW completions"},
		{"criteria", func(r *model.Report) { r.Settings.SLO.UserTPSMin = 20 }, "the criteria differ"},
		{"endpoints", func(r *model.Report) {
			e := r.Endpoints[0]
			e.Name = "other"
			r.Endpoints = append(r.Endpoints, e)
			r.Endpoints[0].Name = "vllm"
		}, "no endpoint in common: BASE has simulator, NEW has vllm, other"},
	} {
		c := Compare(base, edited(t, base, "next.json", tc.edit), DefaultThresholds)
		if !strings.Contains(strings.Join(c.Mismatches, "\n"), tc.want) {
			t.Errorf("%s: mismatches %v, want %q", tc.name, c.Mismatches, tc.want)
		}
		if len(c.Regressions) > 0 || !strings.Contains(c.Markdown, "cannot be compared") {
			t.Errorf("%s: runs that cannot be compared are not judged: %v", tc.name, c.Regressions)
		}
	}
	// A different hold is a note, not a refusal.
	c := Compare(base, edited(t, base, "next.json", func(r *model.Report) { r.Settings.HoldS = 30 }), DefaultThresholds)
	if len(c.Mismatches) > 0 || !strings.Contains(strings.Join(c.Notes, "\n"), "the hold differs (BASE 5 s, NEW 30 s)") {
		t.Errorf("hold: mismatches %v, notes %v", c.Mismatches, c.Notes)
	}
}

func TestCompareNotesFewRequests(t *testing.T) {
	base := load(t, "base.json")[0]
	few := edited(t, base, "few.json", func(r *model.Report) {
		for i := range r.Endpoints[0].Levels {
			r.Endpoints[0].Levels[i].Requests -= 20 // the file's 2 to 11 requests a level
		}
	})
	c := Compare(few, few, DefaultThresholds)
	if len(c.Regressions) > 0 {
		t.Errorf("a run against itself: %v", c.Regressions)
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "few (2) vs few: at 1, 2, 4, 8 users, BASE or NEW was not measured in full") ||
		!strings.Contains(c.Markdown, "| 8 (too few) |") {
		t.Errorf("notes %v: want the levels with fewer than 20 requests\n%s", c.Notes, c.Markdown)
	}
	if c := Compare(base, base, DefaultThresholds); len(c.Notes) > 0 {
		t.Errorf("levels measured in full: notes %v", c.Notes)
	}
	// With enough steady requests recorded, and none short, no note.
	r := load(t, "newkeys.json")[0]
	for i := range r.Report.Endpoints[0].Levels {
		r.Report.Endpoints[0].Levels[i].Steady, r.Report.Endpoints[0].Levels[i].Short = 40, false
	}
	if c := Compare(r, r, DefaultThresholds); len(c.Notes) > 0 {
		t.Errorf("40 steady requests a level: notes %v", c.Notes)
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want string
	}{{100, 110, "+10%"}, {100, 94.5, "-5.5%"}, {100, 100.01, "0%"}, {100, 99.99, "0%"}, {0, 0, "0%"}, {0, 5, "-"},
		{100, 199, "+99%"}, {100, 200, "2x"}, {100, 245, "2.5x"}, {93, 15700, "169x"}} {
		if got := Percent(tc.a, tc.b); got != tc.want {
			t.Errorf("Percent(%v, %v) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestCompareRefinedLevels: a level the capacity's bisection added in one run only (the
// runs' searches took different paths) is shown as such, never a regression.
func TestCompareRefinedLevels(t *testing.T) {
	base := load(t, "base.json")[0]
	refined := edited(t, base, "refined.json", func(r *model.Report) {
		l := r.Endpoints[0].Levels[2]
		l.Concurrency, l.Refined = 5, true
		r.Endpoints[0].Levels = append(r.Endpoints[0].Levels, l)
	})
	c := Compare(refined, base, DefaultThresholds)
	if len(c.Regressions) > 0 || !strings.Contains(c.Markdown, "| 5 | refined in BASE only |") {
		t.Errorf("BASE's refined level: regressions %v\n%s", c.Regressions, c.Markdown)
	}
	c = Compare(base, refined, DefaultThresholds)
	if len(c.Regressions) > 0 || !strings.Contains(c.Markdown, "| 5 | refined in NEW only |") {
		t.Errorf("NEW's refined level: regressions %v\n%s", c.Regressions, c.Markdown)
	}
}

// TestCompareCapacityWithinSteps: a capacity below BASE's is a fall only when NEW
// measured a failing level at or below BASE's capacity; NEW's ramp that went from 8
// (meets) to 16 (fails) says nothing against BASE's 12, refined between them.
func TestCompareCapacityWithinSteps(t *testing.T) {
	base := load(t, "base.json")[0]
	at := func(name string, users int, p50 float64, refined bool) *Run {
		return edited(t, base, name, func(r *model.Report) {
			e := &r.Endpoints[0]
			l16 := e.Levels[3]
			l16.Concurrency, l16.UserTPS.P50, l16.Requests = 16, 20, 40
			l := e.Levels[3]
			l.Concurrency, l.UserTPS.P50, l.Refined = users, p50, refined
			e.Levels = append(e.Levels, l, l16)
		})
	}
	b12 := at("b12.json", 12, 35, true) // capacity 12 users, 16 fails
	n8 := edited(t, base, "n8.json", func(r *model.Report) {
		e := &r.Endpoints[0]
		l := e.Levels[3]
		l.Concurrency, l.UserTPS.P50, l.Requests = 16, 20, 40
		e.Levels = append(e.Levels, l)
	}) // capacity 8 users, 16 fails
	c := Compare(b12, n8, DefaultThresholds)
	want := "Capacity: BASE 12 users, NEW 8 users (no change that NEW's levels tell: it measured no level between 8 and 16 users)"
	if len(c.Regressions) > 0 || !strings.Contains(c.Markdown, want) {
		t.Errorf("NEW unrefined: regressions %v; want none and %q in\n%s", c.Regressions, want, c.Markdown)
	}
	n12 := at("n12.json", 12, 25, true) // capacity 8 users, 12 fails
	if c := Compare(b12, n12, DefaultThresholds); !strings.Contains(strings.Join(c.Regressions, "\n"), "capacity fell from 12 users to 8 users") {
		t.Errorf("NEW fails at 12: regressions %v, want the capacity's fall", c.Regressions)
	}
}

// TestCompareRowsInIncreasingLoad: a level only NEW held (its bisection's 3 users) is a
// row in its place among BASE's, as every other table orders levels; it was listed
// after BASE's last ("1, 2, 4, 8, 3").
func TestCompareRowsInIncreasingLoad(t *testing.T) {
	base := load(t, "base.json")[0] // 1, 2, 4, 8 users
	refined := edited(t, base, "refined.json", func(r *model.Report) {
		l := r.Endpoints[0].Levels[1]
		l.Concurrency, l.Refined = 3, true
		r.Endpoints[0].Levels = append(r.Endpoints[0].Levels, l)
	})
	var order []string
	for _, line := range strings.Split(Compare(base, refined, DefaultThresholds).Markdown, "\n") {
		if f := strings.Fields(strings.TrimPrefix(line, "| ")); strings.HasPrefix(line, "| ") && len(f) > 0 && f[0] != "users" && !strings.HasPrefix(f[0], "-") {
			order = append(order, f[0])
		}
	}
	if got := strings.Join(order, " "); got != "1 2 3 4 8" {
		t.Errorf("rows in order %q, want 1 2 3 4 8", got)
	}
}

// TestCompareTokPerSAtTheTablesPrecision: compare says a tok/s figure with the tables'
// one decimal. A level whose per-user p50 the tables show at 71.0 read "71 → 71.1" in
// compare's cells and "71 → 35.5 tok/s" in its sentences.
func TestCompareTokPerSAtTheTablesPrecision(t *testing.T) {
	base := load(t, "base.json")[0]
	at8 := func(p50 float64) func(*model.Report) {
		return func(r *model.Report) {
			for i := range r.Endpoints[0].Levels {
				if l := &r.Endpoints[0].Levels[i]; l.Concurrency == 8 {
					l.UserTPS.P50 = p50
				}
			}
		}
	}
	a, b := edited(t, base, "base.json", at8(71)), edited(t, base, "next.json", at8(71.1))
	if c := Compare(a, b, DefaultThresholds); !strings.Contains(c.Markdown, "| 8 | 71.0 → 71.1 |") {
		t.Errorf("Markdown lacks the cell 71.0 → 71.1:\n%s", c.Markdown)
	}
	slow := edited(t, base, "slow.json", at8(35.5))
	c := Compare(a, slow, DefaultThresholds)
	if all := strings.Join(c.Regressions, "\n"); !strings.Contains(all, "per-user tok/s p50 71.0 → 35.5 tok/s (-50%)") {
		t.Errorf("regressions lack per-user tok/s p50 71.0 → 35.5 tok/s (-50%%):\n%s", all)
	}
}
