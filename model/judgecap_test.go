package model

import "testing"

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
