package ui

import (
	"fmt"
	"strings"
	"time"
)

// rampErrorRate stops the auto-ramp when more than this fraction of the requests that
// ended during the current ramp step failed (counted once minRampRequests ended).
const (
	rampErrorRate   = 0.05
	minRampRequests = 10
)

// rampState is the auto-ramp in progress.
type rampState struct {
	on        bool
	start     time.Time // the ramp's t=0
	index     int       // current step in Ramp.Levels
	stepStart time.Time
	targets   []int // endpoints the ramp drives
}

// startRamp starts the auto-ramp on the load targets at its first level (resuming
// paused pools).
func (m *root) startRamp() {
	m.ramp = rampState{on: true, start: m.now, stepStart: m.now, index: -1, targets: m.loadTargets()}
	for _, i := range m.ramp.targets {
		if m.eps[i].ctl.Paused() {
			m.eps[i].ctl.Resume()
		}
	}
	levels := make([]string, len(m.rampPlan.Levels))
	for i, l := range m.rampPlan.Levels {
		levels[i] = fmt.Sprint(l)
	}
	m.say(false, "auto-ramp started: %s users, %s each", strings.Join(levels, ","), m.rampPlan.Hold)
	m.stepRamp()
}

// stepRamp moves the auto-ramp to the level due now, and stops it at the end or when
// too many requests fail.
func (m *root) stepRamp() {
	r := &m.ramp
	if !r.on {
		return
	}
	c, idx, done := m.rampPlan.At(m.now.Sub(r.start))
	if done {
		r.on = false
		m.say(false, "auto-ramp finished: all %d levels held; holding %d users", len(m.rampPlan.Levels),
			m.eps[r.targets[0]].ctl.Concurrency())
		return
	}
	if m.bucketDirty && r.index >= 0 {
		for _, i := range r.targets {
			rate, n := m.stepErrorRate(i)
			if n >= minRampRequests && rate > rampErrorRate {
				r.on = false
				m.say(true, "auto-ramp stopped at %d users: %.1f%% of requests failed on %s (over %.0f%%)",
					m.eps[i].ctl.Concurrency(), 100*rate, m.eps[i].info.Name, 100*rampErrorRate)
				return
			}
		}
	}
	if idx != r.index {
		r.index, r.stepStart = idx, m.now
		for _, i := range r.targets {
			m.eps[i].ctl.SetConcurrency(c)
		}
	}
}

// stepErrorRate is the failed fraction of the requests of endpoint i that ended since the
// current ramp step began, and how many ended.
func (m *root) stepErrorRate(i int) (float64, int) {
	n := int(m.now.Sub(m.ramp.stepStart)/time.Second) + 1
	var finished, failed int
	for _, b := range m.eps[i].tr.Buckets(n) {
		if !b.Start.Before(m.ramp.stepStart) {
			finished += b.Finished
			failed += b.Errors
		}
	}
	if finished == 0 {
		return 0, 0
	}
	return float64(failed) / float64(finished), finished
}

// rampText is the ramp state for the header ("" when off).
func (m *root) rampText() string {
	r := m.ramp
	if !r.on || r.index < 0 || r.index >= len(m.rampPlan.Levels) {
		return ""
	}
	left := m.rampPlan.Hold*time.Duration(r.index+1) - m.now.Sub(r.start)
	return fmt.Sprintf("%d/%d at %d users, %ds left", r.index+1, len(m.rampPlan.Levels),
		m.rampPlan.Levels[r.index], int(max(left, 0).Round(time.Second)/time.Second))
}
