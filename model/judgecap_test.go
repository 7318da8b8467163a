package model

import (
	"strings"
	"testing"
	"time"
)

// TestCapacityAbove: an exact capacity names the lowest level above it that bounds it
// (the bracket the capacity's bisection closes): a failing level below the capacity,
// and levels above it that were not measured in full, do not; a lower bound has none.
func TestCapacityAbove(t *testing.T) {
	for _, tc := range []struct {
		name      string
		levels    []LevelStats
		undecided int // the level marked undecided (0: none)
		want      CapacityClaim
	}{
		{"8 meets, 16 and 32 fail", []LevelStats{lvl(4, 20, 100, 0, 80), lvl(8, 50, 100, 0, 400), lvl(32, 20, 100, 0, 640),
			lvl(16, 25, 100, 0, 400)}, 0, CapacityClaim{Kind: CapExact, Level: 8, Above: 16}},
		{"16 undecided: 32 bounds", []LevelStats{lvl(8, 50, 100, 0, 400), lvl(16, 25, 100, 0, 400), lvl(32, 20, 100, 0, 640)},
			16, CapacityClaim{Kind: CapExact, Level: 8, Above: 32}},
		{"the top meets: at least", []LevelStats{lvl(8, 50, 100, 0, 400), lvl(16, 40, 100, 0, 640)}, 0,
			CapacityClaim{Kind: CapAtLeast, Level: 16}},
	} {
		for i := range tc.levels {
			if tc.levels[i].Concurrency == tc.undecided {
				tc.levels[i].Undecided = []string{TermUserTPS}
			}
		}
		c := judgeLevels(tc.levels, DefaultSLO, false, false).Capacity
		if c.Kind != tc.want.Kind || c.Level != tc.want.Level || c.Above != tc.want.Above {
			t.Errorf("%s: %+v, want kind %d, level %d, above %d", tc.name, c, tc.want.Kind, tc.want.Level, tc.want.Above)
		}
	}
}

// TestSaturationComparesWhatWasMeasured: a ramp's level is compared with the level at
// twice its load, or else the next ramp level past twice it (1 with 4 on a ramp of 1, 4,
// 16); a refined level only with one at exactly twice its load (22 never with 64).
func TestSaturationComparesWhatWasMeasured(t *testing.T) {
	refined := func(l LevelStats) LevelStats { l.Refined = true; return l }
	for _, tc := range []struct {
		name   string
		levels []LevelStats
		kind   SatKind
		at     int
	}{
		{"1, 4, 16: 4 adds 5%", []LevelStats{lvl(1, 90, 100, 0, 100), lvl(4, 80, 100, 0, 105), lvl(16, 40, 100, 0, 110)}, SatAt, 1},
		{"1, 4, 16: each adds more", []LevelStats{lvl(1, 90, 100, 0, 100), lvl(4, 80, 100, 0, 300), lvl(16, 40, 100, 0, 600)}, SatNotReached, 0},
		{"refined 22 against 64: not compared", []LevelStats{lvl(16, 40, 100, 0, 600), refined(lvl(22, 31, 100, 0, 700)),
			lvl(32, 25, 100, 0, 740), lvl(64, 20, 100, 0, 750)}, SatAt, 32},
		// The server went down as 2 users began (tpsmon sim --down-after 20s, the screen's
		// auto-ramp): every request of 2 users failed, its aggregate 0 is no measure of
		// what doubling the load adds.
		{"2 users: every request failed", []LevelStats{lvl(1, 90, 21, 0.2, 90.3), allFailed(2, 11)}, SatNotMeasured, 0},
		{"4 users: most failed, tokens measured", []LevelStats{lvl(1, 90, 21, 0, 90), func() LevelStats {
			l := lvl(4, 70, 40, 0.6, 95)
			l.Succeeded = 16
			return l
		}()}, SatAt, 1},
	} {
		c := judgeLevels(tc.levels, DefaultSLO, false, false).Saturation
		if c.Kind != tc.kind || c.Level != tc.at {
			t.Errorf("%s: %+v, want kind %d at %d", tc.name, c, tc.kind, tc.at)
		}
	}
}

// allFailed is a level of users whose n requests all failed (connections refused).
func allFailed(users, n int) LevelStats {
	return LevelStats{Concurrency: users, Requests: n, Steady: n, Duration: 10 * time.Second, ErrorRate: 1,
		Errors: map[ErrorKind]int{ErrConnect: n}}
}

// TestSaturationWordsNameTheFailedLevel: the verdict says why a level at twice the load
// was not compared: every request of it failed.
func TestSaturationWordsNameTheFailedLevel(t *testing.T) {
	got := verdictOf([]LevelStats{lvl(1, 90, 21, 0.2, 90.3), allFailed(2, 11)}, DefaultSLO, false, false)
	want := "saturation not measured (no level measured in full was followed by one with twice its users; 2 users: every request failed)"
	if !strings.HasSuffix(got, want) {
		t.Errorf("verdict %q, want it to end %q", got, want)
	}
}
