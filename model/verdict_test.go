package model

import (
	"strings"
	"testing"
	"time"
)

// lvl is a level with the figures the verdict reads, measured in full (40 steady
// requests).
func lvl(users int, userP50, ttftP95Ms, errRate, agg float64) LevelStats {
	return LevelStats{Concurrency: users, Requests: 40, Succeeded: 40, Steady: max(40, MinSteady(users)), Duration: 10 * time.Second,
		UserTPS: Dist{Count: 40, P50: userP50}, TTFT: Dist{Count: 40, P95: ttftP95Ms},
		ErrorRate: errRate, AggregateTPS: agg}
}

// verdictOf is the verdict sentence the live screen shows for levels held as
// LevelStats ("" before any level is measured): Text, or Short for a narrow screen.
func verdictOf(levels []LevelStats, slo SLO, walking, short bool) string {
	j := judgeLevels(levels, slo, false, walking)
	if !j.Judged() {
		return ""
	}
	if short {
		return j.Verdict.ShortText()
	}
	return j.Verdict.Text
}

func TestVerdict(t *testing.T) {
	slo := DefaultSLO
	ramp := []LevelStats{lvl(8, 60, 300, 0, 480), lvl(16, 40, 800, 0, 640), lvl(32, 23, 1500, 0, 740), lvl(64, 11, 5000, 0, 760)}
	for _, c := range []struct {
		name    string
		levels  []LevelStats
		running bool
		want    string
	}{
		{"limit reached", ramp, false,
			"capacity 16 users; saturates at 32 users (740 tok/s; doubling to 64 users adds less than 10%)"},
		{"top level passes", ramp[:2], false,
			"capacity at least 16 users (limit not reached: the highest level measured in full meets the criteria); saturation not reached"},
		{"ramp goes on", ramp[:2], true,
			"capacity at least 16 users (limit not reached: the ramp goes on)"},
		{"none", ramp[2:], false, "capacity none: no level measured in full meets the criteria (32 users: per-user p50 23 tok/s < 30 tok/s); saturates at 32 users (740 tok/s"},
		{"empty level skipped", append([]LevelStats{{Concurrency: 1}}, ramp[:1]...), false, "capacity at least 8 users"},
		{"nothing yet", []LevelStats{{Concurrency: 1}}, false, ""},
		{"a completed level above failed while the ramp goes on", ramp[:3], true,
			"capacity 16 users"},
		{"open level waits while running", append(append([]LevelStats{}, ramp[:2]...), func() LevelStats { l := ramp[2]; l.Open = true; return l }()), true,
			"capacity at least 16 users (limit not reached: the ramp goes on)"},
	} {
		got := verdictOf(c.levels, slo, c.running, false)
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: Verdict = %q\nwant prefix %q", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		levels  []LevelStats
		running bool
		want    string
	}{
		{ramp, false, "capacity 16 users; saturates at 32 users (740 tok/s)"},
		{ramp[:2], true, "capacity at least 16 users; saturation not reached"},
		{ramp[:2], false, "capacity at least 16 users; saturation not reached"},
		{ramp[3:], false, "capacity none (64 users: TTFT p95 5.00 s > 2 s); saturation not measured"},
	} {
		if got := verdictOf(c.levels, slo, c.running, true); got != c.want {
			t.Errorf("short Verdict = %q, want %q", got, c.want)
		}
	}
}

// TestVerdictFromThinData is the case: a level that existed for about a second
// (2 requests, 1 steady) said "saturates at 1 requests/s", and a bench whose 16-user
// level was short (1 of 32 steady requests then, 6% errors) said "Saturation: 4 users".
// A level not measured in full is listed and marked, never decides capacity or
// saturation. (The sequential level rule's floor is 8 steady requests: "1 of 8".)
func TestVerdictFromThinData(t *testing.T) {
	rate := func(n int, agg float64, steady int) LevelStats {
		l := lvl(n, 60, 300, 0, agg)
		l.OpenLoop, l.Steady, l.Requests = true, steady, max(steady, 2)
		return l
	}
	levels := []LevelStats{rate(1, 130, 1), rate(2, 250, 24), rate(4, 506, 30)}
	got := verdictOf(levels, DefaultSLO, false, false)
	want := "capacity at least 4 requests/s (limit not reached: the highest level measured in full meets the criteria); " +
		"saturation not reached (every doubling of the rate added at least 10% aggregate tok/s; 1 request/s not measured in full)"
	if got != want {
		t.Errorf("rate verdict:\n got %q\nwant %q", got, want)
	}
	short := lvl(16, 35, 900, 0.06, 330)
	short.Steady, short.Short = 1, true
	bench := []LevelStats{lvl(1, 60, 300, 0, 60), lvl(2, 58, 300, 0, 116), lvl(4, 55, 400, 0, 220), lvl(8, 50, 500, 0, 400), short}
	j := judgeLevels(bench, DefaultSLO, false, false)
	want = "capacity at least 8 users (limit not reached: 16 users short: 1 of 8 steady requests when the maximum hold ended it); " +
		"saturation not reached (every doubling of users added at least 10% aggregate tok/s; 16 users not measured in full)"
	if j.Verdict.Text != want {
		t.Errorf("short level verdict:\n got %q\nwant %q", j.Verdict.Text, want)
	}
	if j.Saturation.Kind == SatAt {
		t.Errorf("a short level decided a saturation: %+v", j.Saturation)
	}
	if !strings.Contains(strings.Join(j.Failing(), "\n"), "16 users (short: 1 of 8 steady requests when the maximum hold ended it): errors 6% > 1%") {
		t.Errorf("the short level's failure is not listed with its state: %q", j.Failing())
	}
}
