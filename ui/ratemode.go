package ui

import (
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// level names a load of n in the engine's mode: "8 users" or "8 requests/s".
func (m *root) level(n int) string { return engine.LevelWord(m.eng.RateMode(), n) }

// toggleRate switches between users and rate mode (the `m` key), keeping the number:
// 8 users become 8 requests/s arriving, and back. The curve starts afresh.
func (m *root) toggleRate() {
	on := !m.eng.RateMode()
	n := max(m.eng.Control(m.focus).Concurrency(), 1)
	if !m.eng.SetRateMode(on, n, m.now) {
		m.say(true, "this run cannot switch between users and rate mode")
		return
	}
	m.keys.setRate(on)
	m.bucketDirty, m.dataDirty, m.frameDirty = true, true, true
	m.relayout()
	if on {
		m.say(false, "rate mode: requests arrive at %s whatever the answers take (+/- a step, ]/[ double/halve, m: users); levels cleared", model.Rate(n))
	} else {
		m.say(false, "users mode: %s, each sending its next request when its answer ends (m: rate); levels cleared", model.Users(n))
	}
}

// setRate sets the load keys' help to the mode: users or requests/s.
func (k *KeyMap) setRate(rate bool) {
	if rate {
		k.More.SetHelp("+/↑", "rate +1/s")
		k.Less.SetHelp("-/↓", "rate -1/s")
		k.Double.SetHelp("]", "double rate")
		k.Halve.SetHelp("[", "halve rate")
		k.Mode.SetHelp("m", "users mode")
		return
	}
	k.More.SetHelp("+/↑", "add user")
	k.Less.SetHelp("-/↓", "drop user")
	k.Double.SetHelp("]", "double users")
	k.Halve.SetHelp("[", "halve users")
	k.Mode.SetHelp("m", "rate mode")
}

// openLoop reports whether levels are arrival rates (rate mode).
func openLoop(levels []model.LevelStats) bool {
	for i := range levels {
		if levels[i].OpenLoop {
			return true
		}
	}
	return false
}
