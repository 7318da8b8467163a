package report

import (
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// asRate makes a report a rate-mode one: its levels become arrival rates.
func asRate(r *model.Report) {
	r.Settings.Mode, r.Settings.Arrival = "rate", "poisson"
	for i := range r.Endpoints {
		for j := range r.Endpoints[i].Levels {
			l := &r.Endpoints[i].Levels[j]
			rate := l.Concurrency
			l.Rate = &rate
		}
	}
}

// TestCompareRateModeInRequestsPerSecond: two rate-mode runs are compared level by
// level by rate, and every word says requests/s, never users.
func TestCompareRateModeInRequestsPerSecond(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	base, next := edited(t, runs[0], "base.json", asRate), edited(t, runs[1], "small.json", asRate)
	c := Compare(base, next, DefaultThresholds)
	if len(c.Mismatches) > 0 {
		t.Fatalf("two rate-mode runs of the same ramp must compare: %v", c.Mismatches)
	}
	for _, w := range []string{"| rate req/s | per-user tok/s p50 |", "Capacity: BASE at least 8 requests/s, NEW 2 requests/s (**worse**)",
		"small vs base at 8 requests/s: per-user tok/s p50 52.2 → 26.0 tok/s", "capacity fell from at least 8 requests/s to 2 requests/s"} {
		if !strings.Contains(c.Markdown, w) {
			t.Errorf("the comparison lacks %q:\n%s", w, c.Markdown)
		}
	}
	if strings.Contains(c.Markdown, "users") || strings.Contains(c.Markdown, "per user") {
		t.Errorf("a rate-mode comparison speaks of users:\n%s", c.Markdown)
	}
}

// TestCompareRefusesRateModeAgainstUsersMode: a rate-mode run and a users-mode one
// cannot be compared, even with the same numbers in their ramps; the refusal names both files.
func TestCompareRefusesRateModeAgainstUsersMode(t *testing.T) {
	base := load(t, "base.json")[0]
	rate := edited(t, base, "rate.json", asRate)
	for _, tc := range []struct{ a, b *Run }{{base, rate}, {rate, base}} {
		c := Compare(tc.a, tc.b, DefaultThresholds)
		all := strings.Join(c.Mismatches, "\n")
		if !strings.Contains(all, "requests/s and users are not the same axis") ||
			!strings.Contains(all, tc.a.Name) || !strings.Contains(all, tc.b.Name) || len(c.Regressions) > 0 {
			t.Errorf("%s vs %s: mismatches %q, regressions %v", tc.a.Name, tc.b.Name, all, c.Regressions)
		}
	}
}
