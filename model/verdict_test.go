package model

import (
	"strings"
	"testing"
	"time"
)

// lvl is a level with the figures the verdict reads.
func lvl(users int, userP50, ttftP95Ms, errRate, agg float64) LevelStats {
	return LevelStats{Concurrency: users, Requests: 40, Succeeded: 40, Duration: 10 * time.Second,
		UserTPS: Dist{Count: 40, P50: userP50}, TTFT: Dist{Count: 40, P95: ttftP95Ms},
		ErrorRate: errRate, AggregateTPS: agg}
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
			"capacity 16 users (per-user p50 >= 30 tok/s, TTFT p95 <= 2000 ms, errors <= 1%) - saturates at 32 users (740 tok/s)"},
		{"top level passes", ramp[:2], false,
			"capacity at least 16 users (limit not reached: the highest level measured meets per-user p50 >= 30 tok/s, TTFT p95 <= 2000 ms, errors <= 1%)"},
		{"ramp goes on", ramp[:2], true,
			"capacity at least 16 users (limit not reached: the ramp goes on) for per-user p50 >= 30 tok/s"},
		{"none", ramp[2:], false, "capacity no level meets per-user p50 >= 30 tok/s, TTFT p95 <= 2000 ms, errors <= 1% - 32 users: per-user p50 23 tok/s < 30 tok/s - saturates at 32 users (740 tok/s)"},
		{"empty level skipped", append([]LevelStats{{Concurrency: 1}}, ramp[:1]...), false, "capacity at least 8 users"},
		{"nothing yet", []LevelStats{{Concurrency: 1}}, false, ""},
		{"a completed level above failed while the ramp goes on", ramp[:3], true,
			"capacity 16 users (per-user p50 >= 30 tok/s, TTFT p95 <= 2000 ms, errors <= 1%)"},
		{"open level waits while running", append(append([]LevelStats{}, ramp[:2]...), func() LevelStats { l := ramp[2]; l.Open = true; return l }()), true,
			"capacity at least 16 users (limit not reached: the ramp goes on)"},
	} {
		got := Verdict(c.levels, slo, c.running, false)
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: Verdict = %q\nwant prefix %q", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		levels  []LevelStats
		running bool
		want    string
	}{
		{ramp, false, "capacity 16 users - saturates at 32 users (740 tok/s)"},
		{ramp[:2], true, "capacity at least 16 users (limit not reached: the ramp goes on)"},
		{ramp[:2], false, "capacity at least 16 users (limit not reached: the highest level measured meets the criteria)"},
		{ramp[3:], false, "capacity none - 64 users: TTFT p95 5000 ms > 2000 ms"},
	} {
		if got := Verdict(c.levels, slo, c.running, true); got != c.want {
			t.Errorf("short Verdict = %q, want %q", got, c.want)
		}
	}
}
