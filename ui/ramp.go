package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// startRamp starts the auto-ramp on the load targets (the engine walks it).
func (m *root) startRamp() {
	m.eng.StartRamp(m.loadTargets(), m.now)
	r := m.eng.Ramp()
	levels := make([]string, len(r.Levels))
	for i, l := range r.Levels {
		levels[i] = fmt.Sprint(l)
	}
	unit := "users"
	if m.eng.RateMode() {
		unit = "requests/s"
	}
	then := "then refines the capacity"
	if !m.eng.Refines() {
		then = "then confirms the capacity"
	}
	list := strings.Join(levels, ",") + " " + unit
	m.sayForms(false,
		fmt.Sprintf("auto-ramp started: %s, each held until decided at 95%% (%s to %s); %s",
			list, model.Duration(r.Hold), model.Duration(r.MaxHoldOr()), then),
		fmt.Sprintf("auto-ramp started: %s, each held until decided at 95%%; %s", list, then),
		fmt.Sprintf("auto-ramp: %s, each until decided at 95%%", list))
}

// startRefine starts the capacity's refinement by hand on the load targets: the
// bisection between the last level that meets the criteria and the failing one above it.
func (m *root) startRefine() {
	if m.eng.Ramping() {
		m.say(true, "the auto-ramp is running: it refines the capacity itself once its levels are held")
		return
	}
	ns := m.eng.StartRefine(m.loadTargets(), m.now)
	if len(ns) == 0 {
		m.say(true, "%s", m.nothingToRefine())
		return
	}
	m.say(false, "%s", ns[0])
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
	s := fmt.Sprintf("%d/%d at %s", p.Index+1, p.Levels, m.level(p.Users))
	switch {
	case p.Confirm:
		s = "confirming " + m.level(p.Users)
	case p.Refined && p.Hi > 0:
		s = fmt.Sprintf("refining %s (%d..%d)", m.level(p.Users), p.Lo, p.Hi)
	}
	return s + ", " + model.Plural(p.Steady, "request") + ", " + p.Brief()
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
	return levelProgress{Users: p.Users, Steady: p.Steady, Need: p.Need, Warming: p.Warming, Left: left, MaxLeft: p.MaxLeft, Waits: p.Brief()}
}

// nothingToRefine says why b found nothing to do on the focused endpoint.
func (m *root) nothingToRefine() string {
	if m.capacity(m.focus) == 0 {
		return "nothing to refine: no level meets the criteria yet (r walks the ramp)"
	}
	return "nothing to refine: the capacity lies within 10% of a failing level and is decided at 95%"
}
