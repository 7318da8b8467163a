package engine

import (
	"slices"

	"github.com/tpsmon/tpsmon/model"
)

// modeSwitch is a switch of mode: rate mode (rate) or users mode is in force from at,
// in seconds since the run's clock started (the time of the diagnosis' findings).
type modeSwitch struct {
	at   float64
	rate bool
}

// noteSwitch records a switch to rate mode (on) or users mode at the latest Step.
func (e *Engine) noteSwitch(on bool) {
	at := 0.0
	if !e.t0.IsZero() {
		at = max(e.stepAt.Sub(e.t0).Seconds(), 0)
	}
	e.switches = append(e.switches, modeSwitch{at: at, rate: on})
}

// findingsOf is endpoint i's findings that held while the mode of rate (rate mode, or
// users mode) was in force: a report of one mode's levels says what went wrong while
// they were measured, not while the other mode's were. Every finding when the run never
// switched.
func (e *Engine) findingsOf(i int, rate bool) []model.Finding {
	fs := e.Findings(i)
	if len(e.switches) == 0 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f model.Finding) bool { return !e.heldIn(f, rate) })
}

// heldIn reports whether finding f held at some time the mode of rate was in force.
func (e *Engine) heldIn(f model.Finding, rate bool) bool {
	from, mode := 0.0, e.cfg.OpenLoop != nil // the mode the run started in
	for _, s := range e.switches {
		if mode == rate && f.FirstS <= s.at && f.LastS >= from {
			return true
		}
		from, mode = s.at, s.rate
	}
	return mode == rate && f.LastS >= from
}
