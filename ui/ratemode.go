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
	long, short := m.modeWords(on, starts)
	m.sayForms(false, long, short...)
}

// modeWords says where a switch of mode started the load and why: "rate mode: 2
// requests/s, the rate 16 users achieved over the last 30 s (2.3/s); users levels kept
// (m)"; and shorter forms for a narrow status line, which keep the mode, the load it
// starts at, what that comes from and that the other mode's levels are kept: "rate
// mode at 2 requests/s (16 users' rate); users levels kept", then without the why.
func (m *root) modeWords(on bool, starts []engine.ModeStart) (string, []string) {
	mode, kept := "users mode", "rate levels kept"
	if on {
		mode, kept = "rate mode", "users levels kept"
	}
	if len(starts) == 1 {
		st := starts[0]
		at := mode + " at " + model.LevelName(on, st.N)
		return mode + ": " + startWords(on, st) + "; " + kept + " (m)",
			[]string{at + " (" + startWhy(on, st) + "); " + kept, at + "; " + kept}
	}
	parts := make([]string, len(starts))
	for i, st := range starts {
		parts[i] = m.eng.Info(i).Name + " " + strconv.Itoa(st.N)
	}
	each := "each endpoint at the rate its users achieved"
	if !on {
		each = "each endpoint at the requests it had in flight"
	}
	loads := strings.Join(parts, ", ") + " " + map[bool]string{true: "requests/s", false: "users"}[on]
	return fmt.Sprintf("%s, %s: %s; %s (m)", mode, each, loads, kept),
		[]string{mode + ": " + loads + "; " + kept, mode + ": " + loads}
}

// startWhy is what an endpoint's start after a switch of mode comes from, in a few
// words: "16 users' rate", "in flight at 2 requests/s", "the rate of the last 9 s",
// "estimated from 8 users", "no rate seen at 8 users yet".
func startWhy(on bool, st engine.ModeStart) string {
	from := model.LevelName(!on, st.From)
	switch st.How {
	case engine.SeenLive, engine.SeenLevel:
		if on {
			return possessive(from) + " rate"
		}
		return "in flight at " + from
	case engine.SeenRecent:
		if on {
			return "the rate of the last " + fmtClockSecs(st.Over)
		}
		return "in flight over the last " + fmtClockSecs(st.Over)
	case engine.SeenLittle:
		return "estimated from " + from
	}
	if on {
		return "no rate seen at " + from + " yet"
	}
	return "nothing seen at " + from + " yet"
}

// possessive is "16 users'" or "1 user's".
func possessive(s string) string {
	if strings.HasSuffix(s, "s") {
		return s + "'"
	}
	return s + "'s"
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
// users and 2 requests/s: ..."); the plain words when none was measured. The shorter
// forms, for a narrow status line, count the levels: "cleared 4 levels: the quit
// summary starts afresh", "cleared 4 levels".
func (m *root) clearedWords() (string, []string) {
	var parts []string
	count := 0
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
			count += len(ns)
		}
	}
	if len(parts) == 0 {
		return "levels, curve and errors cleared", nil
	}
	levels := "cleared " + model.Plural(count, "level")
	return "cleared " + strings.Join(parts, " and ") + " (levels, curve, errors): the quit summary starts afresh",
		[]string{levels + ": the quit summary starts afresh", levels}
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
