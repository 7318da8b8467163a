package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/themes"
)

// loadTargets are the endpoints the load keys act on.
func (m *root) loadTargets() []int {
	if !m.all {
		return []int{m.focus}
	}
	t := make([]int, m.eng.Len())
	for i := range t {
		t[i] = i
	}
	return t
}

func (m *root) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Quit):
		m.quitting, m.frameDirty = true, true
		m.interrupted = m.eng.Interrupt() // quitting mid-ramp: the report says so
		m.eng.Stop()
		return tea.Quit
	case key.Matches(msg, k.More):
		m.setLoad("+", func(n int) int { return n + 1 })
	case key.Matches(msg, k.Less):
		m.setLoad("-", func(n int) int { return n - 1 })
	case key.Matches(msg, k.Double):
		m.setLoad("]", func(n int) int { return max(2*n, 1) })
	case key.Matches(msg, k.Halve):
		m.setLoad("[", func(n int) int { return max(n/2, min(n, 1)) })
	case key.Matches(msg, k.Ramp):
		if m.eng.StopRamp() {
			m.say(false, "auto-ramp stopped (r): holding %s", m.level(m.eng.Control(m.focus).Concurrency()))
		} else {
			m.startRamp()
		}
	case key.Matches(msg, k.Refine):
		m.startRefine()
	case key.Matches(msg, k.Mode):
		m.toggleRate()
	case key.Matches(msg, k.Pause), key.Matches(msg, k.Resume):
		m.togglePause()
	case key.Matches(msg, k.Next):
		m.focus = (m.focus + 1) % m.eng.Len()
		m.onFocus()
	case key.Matches(msg, k.Prev):
		m.focus = (m.focus + m.eng.Len() - 1) % m.eng.Len()
		m.onFocus()
	case key.Matches(msg, k.All):
		m.all = !m.all
		if m.all {
			m.say(false, "load keys act on all %d endpoints", m.eng.Len())
		} else {
			m.say(false, "load keys act on %s only", m.eng.Info(m.focus).Name)
		}
	case key.Matches(msg, k.Clear):
		cleared, short := m.clearedWords()
		m.eng.Reset(m.now)
		m.bucketDirty, m.dataDirty = true, true
		m.sayForms(false, cleared, short...)
	case key.Matches(msg, k.Theme):
		m.themeIdx = (m.themeIdx + 1) % len(themes.Names())
		m.applyTheme()
		m.say(false, "theme: %s", m.st.Theme)
	case key.Matches(msg, k.Snapshot):
		rs := m.eng.Reports(false)
		m.say(false, "saving snapshot…")
		return snapshotCmd(m.snapDir, rs, m.now)
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.relayout()
	case key.Matches(msg, k.Diag):
		m.toggleDiagnosis()
	case key.Matches(msg, k.Retry):
		m.retry()
	}
	return nil
}

// setLoad applies f to the users of the load targets; a manual change stops the
// auto-ramp. Users beyond what the run can hold are capped, and the status says so.
func (m *root) setLoad(keyName string, f func(int) int) {
	stopped, capped := false, -1
	for _, i := range m.loadTargets() {
		n := f(m.eng.Control(i).Concurrency())
		if room := m.eng.Room(i); n > room {
			n, capped = room, room
		}
		if m.eng.SetUsers(i, n) {
			stopped = true
		}
	}
	switch {
	case capped >= 0 && stopped:
		m.say(true, "auto-ramp stopped; capped at %s: %s", model.Users(capped), m.streamCapWhy())
	case capped >= 0:
		m.say(true, "capped at %s: %s", model.Users(capped), m.streamCapWhy())
	case stopped:
		m.say(false, "auto-ramp stopped: manual change (%s)", keyName)
	default: // the load in force, never an earlier one (a switch of mode said its start)
		m.say(false, "now %s (%s)", m.level(m.eng.Control(m.focus).Concurrency()), keyName)
	}
}

// streamCapWhy says why the load keys cannot add more users.
func (m *root) streamCapWhy() string {
	why := fmt.Sprintf("tpsmon holds at most %d streams in one process", m.eng.MaxStreams())
	if m.eng.MaxStreams() < engine.MaxUsers {
		why = fmt.Sprintf("the open-file limit (ulimit -n) lets this process hold %d streams", m.eng.MaxStreams())
	}
	if m.eng.Len() > 1 {
		why += ", all endpoints together"
	}
	return why
}

func (m *root) togglePause() {
	targets := m.loadTargets()
	pause := false
	for _, i := range targets {
		if !m.eng.Control(i).Paused() {
			pause = true
		}
	}
	stopped := false
	for _, i := range targets {
		if pause {
			stopped = m.eng.Pause(i) || stopped
		} else {
			m.eng.Resume(i)
			m.resumed(i)
		}
	}
	what := ""
	if m.eng.Len() > 1 {
		what = " " + m.eng.Info(targets[0]).Name
		if len(targets) > 1 {
			what = fmt.Sprintf(" all %d endpoints", len(targets))
		}
	}
	switch {
	case stopped:
		// a paused pool sends nothing: the ramp would walk through its levels unloaded
		m.say(false, "paused%s, auto-ramp stopped: in-flight requests finish, no new ones (p resumes)", what)
	case pause:
		m.say(false, "paused%s: in-flight requests finish, no new ones (p resumes)", what)
	default:
		m.say(false, "resumed%s", what)
	}
}

func (m *root) onFocus() {
	m.bucketDirty, m.dataDirty = true, true
	if !m.all {
		m.say(false, "load keys act on %s", m.eng.Info(m.focus).Name)
	}
}
