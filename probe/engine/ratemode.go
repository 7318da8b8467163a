package engine

import "time"

// loopSwitcher is a Control that can switch between users and rate mode
// (*probe.Pool).
type loopSwitcher interface {
	SetOpenLoop(on bool, n int)
}

// RateMode reports whether the engine's levels are arrival rates (rate mode).
func (e *Engine) RateMode() bool { return e.rate }

// SetRateMode switches every endpoint to rate mode (on: n arrivals per second) or to
// users mode (n users) at now. A switch stops the ramp and starts a fresh curve (Reset):
// users levels and rate levels are not the same axis. The ramp then walks the mode's
// own levels (Config.RateLevels in rate mode). It reports false, and changes nothing,
// when an endpoint's control cannot switch.
func (e *Engine) SetRateMode(on bool, n int, now time.Time) bool {
	for _, ep := range e.eps {
		if _, ok := ep.ctl.(loopSwitcher); !ok {
			return false
		}
	}
	if on == e.rate {
		return true
	}
	e.StopRamp()
	if e.rate {
		e.rateLevels = e.cfg.Ramp.Levels
		e.cfg.Ramp.Levels = e.userLevels
	} else {
		e.userLevels = e.cfg.Ramp.Levels
		e.cfg.Ramp.Levels = e.rateLevels
	}
	e.rate = on
	for _, ep := range e.eps {
		ep.ctl.(loopSwitcher).SetOpenLoop(on, min(max(n, 0), MaxUsers))
	}
	e.Reset(now)
	return true
}

// initRate sets the engine's mode from its config: rate mode when OpenLoop is set.
// The levels of the other mode wait in userLevels or rateLevels.
func (e *Engine) initRate() {
	e.rate = e.cfg.OpenLoop != nil
	other := e.cfg.RateLevels
	if len(other) == 0 {
		other = DefaultRamp.Levels
	}
	if e.rate {
		e.userLevels = DefaultRamp.Levels
	} else {
		e.rateLevels = other
	}
}
