package run

import "github.com/tpsmon/tpsmon/model"

// The model API this engine reads from a level's row, in one place: h2 is moving
// LevelStats to Requests = every ended request (warm-up included) and Steady = the
// non-warm-up ones, with model.MinSteady and Tracker.MarkShort.

// MinSteady is the level rule's minimum of steady completed requests at users:
// max(20, 2 x users).
func MinSteady(users int) int { return max(20, 2*users) }

// steadyCount is the number of steady (non-warm-up) ended requests in a level's row.
func steadyCount(l *model.LevelStats) int { return l.Requests }

// endedCount is the number of ended requests in a level's row, warm-up included.
func endedCount(l *model.LevelStats) int { return l.Requests }

// shortMarker is a level book that can mark a level short (model.Tracker.MarkShort).
type shortMarker interface{ MarkShort(users int) }

// row is the level of users in levels, nil when it has none.
func row(levels []model.LevelStats, users int) *model.LevelStats {
	for i := range levels {
		if levels[i].Concurrency == users {
			return &levels[i]
		}
	}
	return nil
}
