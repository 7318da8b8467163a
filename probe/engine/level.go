package engine

import "github.com/tpsmon/tpsmon/model"

// MinSteady is the level rule's minimum of steady completed requests at users
// (model.MinSteady: max(20, 2 x users)).
func MinSteady(users int) int { return model.MinSteady(users) }

// steadyCount is the number of steady (non-warm-up) ended requests in a level's row.
func steadyCount(l *model.LevelStats) int { return l.Steady }

// endedCount is the number of ended requests in a level's row, warm-up included.
func endedCount(l *model.LevelStats) int { return l.Requests }

// row is the level of users in b, nil when it has none.
func row(b Book, users int) *model.LevelStats {
	if l, ok := b.Level(users); ok {
		return &l
	}
	return nil
}

// steadyOf is the steady count of b's level at users (0 when none).
func steadyOf(b Book, users int) int {
	if l := row(b, users); l != nil {
		return steadyCount(l)
	}
	return 0
}

// steadyIn is the steady count of a level's row l (0 when nil).
func steadyIn(l *model.LevelStats) int {
	if l == nil {
		return 0
	}
	return steadyCount(l)
}
