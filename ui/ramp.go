package ui

import (
	"fmt"
	"strings"
	"time"
)

// startRamp starts the auto-ramp on the load targets (the engine walks it).
func (m *root) startRamp() {
	m.eng.StartRamp(m.loadTargets(), m.now)
	r := m.eng.Ramp()
	levels := make([]string, len(r.Levels))
	for i, l := range r.Levels {
		levels[i] = fmt.Sprint(l)
	}
	unit, per := "users", "users"
	if m.eng.RateMode() {
		unit, per = "requests/s", "rate"
	}
	m.say(false, "auto-ramp started: %s %s, each held %s and max(20, 2 x %s) requests once steady (at most %s)",
		strings.Join(levels, ","), unit, r.Hold, per, r.MaxHoldOr())
}

// rampText is the ramp state of the focused endpoint for the header: its level and
// progress, or the endpoint the ramp drives when it does not drive this one ("" when off).
func (m *root) rampText() string {
	p, ok := m.eng.Status(m.focus, m.now)
	if !ok {
		for i := range m.eng.Len() {
			if m.eng.Walking(i) {
				return "running on " + m.eng.Info(i).Name
			}
		}
		return ""
	}
	s := fmt.Sprintf("%d/%d at %s, %d/%d requests", p.Index+1, p.Levels, m.level(p.Users), p.Steady, p.Need)
	switch {
	case p.Warming:
		return s + ", warming up"
	case p.Left > 0:
		return s + fmt.Sprintf(", %ds left", int((p.Left+time.Second-1)/time.Second))
	}
	return s + ", up to " + p.MaxLeft.Round(time.Second).String() // held: waiting for requests
}

// levelProgress is how the focused endpoint's ramp level stands at now, for the level
// table's progress line (zero when the ramp does not drive it).
func (m *root) levelProgress() levelProgress {
	p, ok := m.eng.Status(m.focus, m.now)
	if !ok {
		return levelProgress{}
	}
	// whole seconds rounded up, as the header counts them
	left := (p.Left + time.Second - 1) / time.Second * time.Second
	return levelProgress{Users: p.Users, Steady: p.Steady, Need: p.Need, Warming: p.Warming, Left: left, MaxLeft: p.MaxLeft}
}
