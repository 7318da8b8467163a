package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/probe/output/timeseries"
	"github.com/tpsmon/tpsmon/themes"
)

// MaxReplaySpeed is replay's fastest speed: an hour's recording in about a minute.
const MaxReplaySpeed = 64

// seekStep is how far ← and → move the playback.
const seekStep = 60.0 // seconds of the recording

// advance moves the playback on to now and shows the lines it passed.
func (m *replayRoot) advance(now time.Time) {
	if !m.last.IsZero() && !m.paused && !m.done {
		m.pos += now.Sub(m.last).Seconds() * float64(m.speed)
	}
	m.last = now
	if m.catchUp() {
		m.refresh()
	}
}

// catchUp shows every line up to the playback position and reports whether the focused
// endpoint's screen changed.
func (m *replayRoot) catchUp() bool {
	changed := false
	for m.next < len(m.lines) && m.lines[m.next].ElapsedS <= m.pos {
		l := &m.lines[m.next]
		m.eps[l.Index].apply(l)
		if n := len(l.Said); n > 0 { // the status line says the newest, as it did live
			m.said, m.saidBad, m.saidShort = l.Said[n-1].Text, l.Said[n-1].Warning, l.Said[n-1].Shorter
			changed = true
		}
		changed = changed || l.Index == m.focus
		m.next++
	}
	if m.next == len(m.lines) && !m.done {
		m.done = true
		changed = true
	}
	return changed
}

// end is the recording's length: the last line's elapsed seconds.
func (m *replayRoot) end() float64 { return m.lines[len(m.lines)-1].ElapsedS }

// seek moves the playback to t seconds of the recording (within it) and shows the
// screen as it was then: a seek back plays the lines again from the start, at once.
func (m *replayRoot) seek(t float64) {
	t = max(0, min(t, m.end()))
	if t < m.pos || m.done {
		m.reset()
	}
	m.pos = t
	m.catchUp()
	m.refresh()
}

// reset goes back to the start of the recording.
func (m *replayRoot) reset() {
	m.next, m.pos, m.done = 0, 0, false
	m.said, m.saidBad, m.saidShort = m.opening, false, nil
	m.newEndpoints()
}

// newEndpoints starts every endpoint afresh, named from its first line (the screen
// names it before its first second is shown, as the live screen does).
func (m *replayRoot) newEndpoints() {
	for i := range m.eps {
		m.eps[i] = newReplayEndpoint()
	}
	for i := len(m.lines) - 1; i >= 0; i-- {
		l, ep := &m.lines[i], m.eps[m.lines[i].Index]
		ep.name, ep.model, ep.simulated = l.Endpoint, l.Model, l.Simulated
		if l.Host != "" {
			ep.host = l.Host
		}
	}
}

// levelStarts is when each endpoint's levels started: its first line, and each line
// whose target (users, or a rate) differs from the line before.
func levelStarts(lines []timeseries.Line, endpoints int) [][]float64 {
	starts := make([][]float64, endpoints)
	prev := make([]*timeseries.Line, endpoints)
	for i := range lines {
		l := &lines[i]
		if p := prev[l.Index]; p == nil || p.TargetUsers != l.TargetUsers || (p.TargetRate == nil) != (l.TargetRate == nil) {
			starts[l.Index] = append(starts[l.Index], l.ElapsedS)
		}
		prev[l.Index] = l
	}
	return starts
}

// nextLevel is the start of the focused endpoint's next level (the end when none). The
// first level is where the recording starts: no jump leads there.
func (m *replayRoot) nextLevel() float64 {
	for i, s := range m.starts[m.focus] {
		if i > 0 && s > m.pos+1e-9 {
			return s
		}
	}
	return m.end()
}

// prevLevel is the start of the level being shown, or of the one before when the level
// started less than a second ago (as a player's "previous" does).
func (m *replayRoot) prevLevel() float64 {
	at := 0.0
	for _, s := range m.starts[m.focus] {
		if s < min(m.pos, m.end())-1 {
			at = s
		}
	}
	return at
}

// recordedKeys is the set of keys the recording says it records (Line.Recorded): a
// recording by an older tpsmon lacks some.
func recordedKeys(lines []timeseries.Line) map[string]bool {
	recorded := map[string]bool{}
	for i := range lines {
		for _, k := range lines[i].Recorded {
			recorded[k] = true
		}
	}
	return recorded
}

// lacking says what a recording made by an older tpsmon lacks, for replay's first
// message ("" when it lacks nothing).
func lacking(lines []timeseries.Line, recorded map[string]bool) string {
	slo := false
	for i := range lines {
		slo = slo || lines[i].SLO != nil
	}
	var miss []string
	if !recorded["said"] {
		miss = append(miss, "no stop reasons") // nor anything else the status line said
	}
	if !recorded["diagnosis"] {
		miss = append(miss, "no diagnosis")
	}
	if !slo {
		miss = append(miss, "verdicts by the default criteria")
	}
	if len(miss) == 0 {
		return ""
	}
	return " · an older recording: " + strings.Join(miss, ", ")
}

// playback is the header's word on the replay: the position, of the length, and the
// speed, the pause or the end.
func (m *replayRoot) playback() string {
	at := min(m.pos, m.end())
	s := fmt.Sprintf("replay %s of %s", fmtClock(secs(at)), fmtClock(secs(m.end())))
	switch {
	case m.done:
		return s + ", the end"
	case m.paused:
		return s + ", paused"
	case m.speed > 1:
		return s + fmt.Sprintf(", ×%d", m.speed)
	}
	return s + ", real time"
}

func secs(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Truncate(time.Second)
}

// setSpeed sets the speed (a power of two from 1 to MaxReplaySpeed).
func (m *replayRoot) setSpeed(n int) {
	m.speed = max(1, min(n, MaxReplaySpeed))
	m.keys.setSpeed(m.speed)
}

// handleKey handles a key: playback, seeking, the view.
func (m *replayRoot) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Quit):
		m.quitting, m.frameDirty = true, true
		return tea.Quit
	case key.Matches(msg, k.Pause), key.Matches(msg, k.Play):
		m.paused = !m.paused
		k.setPaused(m.paused)
	case key.Matches(msg, k.RealTime):
		m.setSpeed(1)
	case key.Matches(msg, k.Faster):
		m.setSpeed(m.speed * 2)
	case key.Matches(msg, k.Slower):
		m.setSpeed(m.speed / 2)
	case key.Matches(msg, k.Back):
		m.seek(min(m.pos, m.end()) - seekStep)
	case key.Matches(msg, k.Forward):
		m.seek(m.pos + seekStep)
	case key.Matches(msg, k.PrevLevel):
		m.seek(m.prevLevel())
	case key.Matches(msg, k.NextLevel):
		m.seek(m.nextLevel())
	case key.Matches(msg, k.Restart):
		m.seek(0)
	case key.Matches(msg, k.End):
		m.seek(m.end())
	case key.Matches(msg, k.Next):
		m.focus = (m.focus + 1) % len(m.eps)
	case key.Matches(msg, k.Prev):
		m.focus = (m.focus + len(m.eps) - 1) % len(m.eps)
	case key.Matches(msg, k.Diag):
		m.showDiag = !m.showDiag
	case key.Matches(msg, k.Theme):
		m.themeIdx = (m.themeIdx + 1) % len(themes.Names())
		m.applyTheme()
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.relayout()
		return nil
	default:
		return nil
	}
	m.refresh()
	return nil
}
