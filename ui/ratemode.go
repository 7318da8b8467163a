package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// level names a load of n in the engine's mode: "8 users" or "8 requests/s".
func (m *root) level(n int) string { return engine.LevelWord(m.eng.RateMode(), n) }

// toggleRate switches between users and rate mode (the `m` key). Each endpoint starts
// at the load it achieved over the last seconds: to rate mode, the request rate its
// users achieved (16 users at 7 s an answer are about 2 requests/s, not 16); to users
// mode, the requests it had in flight. The levels of each mode are kept apart: the
// curve and the table show the new mode's, and the quit summary both.
func (m *root) toggleRate() {
	on := !m.eng.RateMode()
	starts, ok := m.eng.SwitchMode(on)
	if !ok {
		m.say(true, "this run cannot switch between users and rate mode")
		return
	}
	m.keys.setRate(on)
	m.bucketDirty, m.dataDirty, m.frameDirty = true, true, true
	m.relayout()
	m.say(false, "%s", m.modeWords(on, starts))
}

// modeWords says where a switch of mode started the load and why: "rate mode: 2
// requests/s, the rate 16 users achieved over the last 30 s (2.3/s); users levels kept
// (m)".
func (m *root) modeWords(on bool, starts []engine.ModeStart) string {
	mode, back := "users mode", "rate levels kept (m)"
	if on {
		mode, back = "rate mode", "users levels kept (m)"
	}
	if len(starts) == 1 {
		return mode + ": " + startWords(on, starts[0]) + "; " + back
	}
	parts := make([]string, len(starts))
	for i, st := range starts {
		parts[i] = m.eng.Info(i).Name + " " + strconv.Itoa(st.N)
	}
	each := "each endpoint at the rate its users achieved"
	if !on {
		each = "each endpoint at the requests it had in flight"
	}
	return fmt.Sprintf("%s, %s: %s %s; %s", mode, each, strings.Join(parts, ", "),
		map[bool]string{true: "requests/s", false: "users"}[on], back)
}

// startWords is one endpoint's start after a switch of mode, with what it comes from.
func startWords(on bool, st engine.ModeStart) string {
	n, from := model.LevelName(on, st.N), model.LevelName(!on, st.From)
	what, seen := "the mean in flight at "+from, fmt.Sprintf("%.1f", st.Seen)
	if on {
		what, seen = "the rate "+from+" achieved", fmt.Sprintf("%.1f/s", st.Seen)
	}
	switch st.How {
	case engine.SeenLive:
		return fmt.Sprintf("%s, %s over the last %s (%s)", n, what, fmtClockSecs(st.Over), seen)
	case engine.SeenLevel:
		return fmt.Sprintf("%s, %s over its level's steady %s (%s)", n, what, fmtClockSecs(st.Over), seen)
	case engine.SeenRecent: // e.g. m just as a ramp stepped up
		if on {
			return fmt.Sprintf("%s, the rate achieved over the last %s (%s): no answer ended at %s yet",
				n, fmtClockSecs(st.Over), seen, from)
		}
		return fmt.Sprintf("%s, the mean in flight over the last %s (%s): nothing measured at %s yet",
			n, fmtClockSecs(st.Over), seen, from)
	case engine.SeenLittle:
		if on {
			return fmt.Sprintf("%s, the rate %s achieve at their answers' mean length (%s)", n, from, seen)
		}
		return fmt.Sprintf("%s, the requests %s keeps in flight at its answers' mean length (%s)", n, from, seen)
	}
	if on {
		return fmt.Sprintf("%s: no answer ended at %s yet to tell their rate", n, from)
	}
	return fmt.Sprintf("%s: nothing measured at %s yet to tell its requests in flight", n, from)
}

// fmtClockSecs is a whole number of seconds: "30 s".
func fmtClockSecs(d time.Duration) string {
	return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + " s"
}

// clearedWords says what `c` is about to clear: the levels of every endpoint with
// requests, by mode, which the quit summary will no longer hold ("cleared 1, 2 and 4
// users and 2 requests/s: ..."); the plain words when none was measured.
func (m *root) clearedWords() string {
	var parts []string
	for _, rate := range []bool{false, true} {
		var ns []int
		for i := range m.eng.Len() {
			e, _ := m.eng.Book(i).ReportMode(model.EndpointInfo{}, rate)
			for _, l := range e.Levels {
				if l.Requests > 0 && !slices.Contains(ns, l.Concurrency) {
					ns = append(ns, l.Concurrency)
				}
			}
		}
		if len(ns) > 0 {
			slices.Sort(ns)
			parts = append(parts, model.LevelNames(rate, ns))
		}
	}
	if len(parts) == 0 {
		return "levels, curve and errors cleared"
	}
	return "cleared " + strings.Join(parts, " and ") + " (levels, curve, errors): the quit summary starts afresh"
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
