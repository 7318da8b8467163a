package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/probe"
)

// rampErrorRate stops the auto-ramp when more than this fraction of the requests that
// ended during the current ramp step failed (counted once minRampRequests ended).
const (
	rampErrorRate   = 0.05
	minRampRequests = 10
)

// rampState is the auto-ramp in progress: one probe.Walk per endpoint it drives, so that
// each level is held for the plan's hold from the moment it is steady.
type rampState struct {
	on        bool
	targets   []int               // endpoints the ramp drives
	walks     map[int]*probe.Walk // by endpoint
	stepStart map[int]time.Time   // when each endpoint's current level began
}

// startRamp starts the auto-ramp on the load targets at its first level (resuming
// paused pools).
func (m *root) startRamp() {
	r := rampState{on: true, targets: m.loadTargets(), walks: map[int]*probe.Walk{}, stepStart: map[int]time.Time{}}
	for _, i := range r.targets {
		w := m.rampPlan.Walk(m.now)
		r.walks[i], r.stepStart[i] = w, m.now
		if m.eps[i].ctl.Paused() {
			m.eps[i].ctl.Resume()
		}
		_, c := w.Level()
		m.eps[i].ctl.SetConcurrency(c)
	}
	m.ramp = r
	levels := make([]string, len(m.rampPlan.Levels))
	for i, l := range m.rampPlan.Levels {
		levels[i] = fmt.Sprint(l)
	}
	m.say(false, "auto-ramp started: %s users, each held %s once steady", strings.Join(levels, ","), m.rampPlan.Hold)
}

// drives reports whether the ramp drives any of the endpoints eps.
func (r *rampState) drives(eps []int) bool {
	for _, i := range eps {
		if r.walks[i] != nil {
			return true
		}
	}
	return false
}

// observeRamp hands a segment state of endpoint i to its walk.
func (m *root) observeRamp(i int, ev *probe.Event) {
	if w := m.ramp.walks[i]; m.ramp.on && w != nil {
		w.Observe(ev.Segment)
	}
}

// stepRamp moves the auto-ramp's endpoints to the level due now, and stops it at the end
// or when too many requests fail.
func (m *root) stepRamp() {
	r := &m.ramp
	if !r.on {
		return
	}
	if m.bucketDirty {
		for _, i := range r.targets {
			rate, n := m.stepErrorRate(i)
			if n >= minRampRequests && rate > rampErrorRate {
				r.on = false
				m.say(true, "auto-ramp stopped at %s: %.1f%% of requests failed on %s (over %.0f%%)",
					users(m.eps[i].ctl.Concurrency()), 100*rate, m.eps[i].info.Name, 100*rampErrorRate)
				return
			}
		}
	}
	walking := 0
	for _, i := range r.targets {
		c, changed, done := r.walks[i].Next(m.now)
		if changed {
			r.stepStart[i] = m.now
			m.eps[i].ctl.SetConcurrency(c)
		}
		if !done {
			walking++
		}
	}
	if walking == 0 {
		r.on = false
		m.say(false, "auto-ramp finished: all %d levels held; holding %s", len(m.rampPlan.Levels),
			users(m.eps[r.targets[0]].ctl.Concurrency()))
	}
}

// stepErrorRate is the failed fraction of the requests of endpoint i that ended since its
// current ramp level began, and how many ended.
func (m *root) stepErrorRate(i int) (float64, int) {
	since := m.ramp.stepStart[i]
	n := int(m.now.Sub(since)/time.Second) + 1
	var finished, failed int
	for _, b := range m.eps[i].tr.Buckets(n) {
		if !b.Start.Before(since) {
			finished += b.Finished
			failed += b.Errors
		}
	}
	if finished == 0 {
		return 0, 0
	}
	return float64(failed) / float64(finished), finished
}

// rampText is the ramp state of the focused endpoint for the header: its step, or the
// endpoint the ramp drives when it does not drive this one ("" when off).
func (m *root) rampText() string {
	w := m.ramp.walks[m.focus]
	if m.ramp.on && w == nil && len(m.ramp.targets) > 0 {
		return "running on " + m.eps[m.ramp.targets[0]].info.Name
	}
	if !m.ramp.on || w == nil || w.Done() {
		return ""
	}
	idx, c := w.Level()
	warming, left := w.Left(m.now)
	if warming {
		return fmt.Sprintf("%d/%d at %s, warming up", idx+1, len(m.rampPlan.Levels), users(c))
	}
	return fmt.Sprintf("%d/%d at %s, %ds left", idx+1, len(m.rampPlan.Levels), users(c),
		int(left.Round(time.Second)/time.Second))
}

// users is "1 user" or "n users".
func users(n int) string {
	if n == 1 {
		return "1 user"
	}
	return fmt.Sprintf("%d users", n)
}
