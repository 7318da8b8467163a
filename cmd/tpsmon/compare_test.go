package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureAs is fixture under another name (runs are named by their files).
func fixtureAs(t *testing.T, name, as string, edit func(map[string]any)) string {
	t.Helper()
	path := fixture(t, name, edit)
	to := filepath.Join(filepath.Dir(path), as)
	if err := os.Rename(path, to); err != nil {
		t.Fatal(err)
	}
	return to
}

// withTTFTAt4 gives every level of a results file (as a JSON map) narrow 95% intervals
// (±1%) and sets the 4-user level's TTFT p95 (and TTFO p95: not a reasoning model) to
// p95 with the interval [lo, hi] (hi nil: no upper bound) over steady requests.
func withTTFTAt4(p95, lo float64, hi any, steady int) func(map[string]any) {
	return func(m map[string]any) {
		levels := m["endpoints"].([]any)[0].(map[string]any)["levels"].([]any)
		for i, x := range levels {
			l := x.(map[string]any)
			fig := func(key, q string) float64 { return l[key].(map[string]any)[q].(float64) }
			around := func(v float64) []any { return []any{v * 0.99, v * 1.01} }
			ci := map[string]any{"user_tps_p50": around(fig("user_tps", "p50")), "ttft_p50_ms": around(fig("ttft_ms", "p50")),
				"ttft_p95_ms": around(fig("ttft_ms", "p95")), "aggregate_tps": around(l["aggregate_tps"].(float64)), "error_rate": []any{0, 0.1}}
			if i == 2 {
				l["ttft_ms"].(map[string]any)["p95"], l["ttfo_ms"].(map[string]any)["p95"] = p95, p95
				l["steady_requests"], ci["ttft_p95_ms"] = steady, []any{lo, hi}
			}
			l["ci95"] = ci
		}
	}
}

// TestCompareExitFollowsDecidedRegressions: compare exits 1 only for the regressions the
// intervals decide: a TTFT p95 29% higher within overlapping intervals is said, and
// exits 0; the same points within narrow, disjoint intervals exit 1.
func TestCompareExitFollowsDecidedRegressions(t *testing.T) {
	base := fixture(t, "base.json", withTTFTAt4(20.6, 19.8, nil, 42))
	next := fixtureAs(t, "base.json", "new.json", withTTFTAt4(26.5, 20.1, nil, 38))
	r := cli(t, nil, nil, nil, "compare", base, next)
	const said = "new vs base at 4 users: TTFT p95 20.6 ms → 26.5 ms (+28.6%): within what 42 and 38 requests can tell, not called a regression"
	if r.code != exitOK || !strings.Contains(r.stdout, said) || !strings.Contains(r.stdout, "**Result: no regression**") {
		t.Errorf("overlapping intervals: exit %d, want 0 and %q\n%s\n%s", r.code, said, r.stdout, r.stderr)
	}
	checkClean(t, r)
	base = fixture(t, "base.json", withTTFTAt4(20.6, 20.2, 21.0, 420))
	next = fixtureAs(t, "base.json", "new.json", withTTFTAt4(26.5, 26.0, 27.1, 380))
	r = cli(t, nil, nil, nil, "compare", base, next)
	if r.code != exitCapacity || !strings.Contains(r.stdout, "- new vs base at 4 users: TTFT p95 20.6 ms → 26.5 ms (+28.6%): a regression, decided at 95%\n") ||
		!strings.Contains(r.stderr, "NEW is worse than BASE: 1 regression decided at 95%") {
		t.Errorf("disjoint intervals: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
