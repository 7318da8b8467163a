package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// Shards: a load too large for one machine is split over N processes (Config.Shard),
// each holding its share of every level's users (model.ReportShard.Users: as evenly as
// possible, the remainder to the lowest indexes; a share may be 0). Each records its
// levels under the whole level's users, so that model.Merge adds the shards' results
// up level by level. The shards cannot see each other: they start at one wall-clock
// moment (Config.StartAt) and change level on a fixed schedule (Ramp.Fixed), each
// level lasting exactly Hold; the level rule, the maximum hold and the stop rules
// cannot be applied across machines (the stop rules only warn).

// The run settings of a shard a *client.FieldError can name.
const (
	FieldShard   = "shard"
	FieldStartAt = "start_at"
)

// LateAfter is how late after Config.StartAt a run may start before Run calls it late
// (a timer's wake-up is not late).
const LateAfter = 100 * time.Millisecond

// leveler is a Control that can record a share of a level under the whole level's
// users (*probe.Pool).
type leveler interface{ SetLevel(n, label int) }

// validateShard refuses a shard that does not exist, and a shard without a start time.
func (c *Config) validateShard() error {
	s := c.Shard
	if s == nil {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fieldErr(FieldShard, fmt.Sprintf("%d/%d", s.Index, s.Count),
			"want INDEX/COUNT with COUNT at least 1 and INDEX from 0 to COUNT-1")
	}
	if c.StartAt.IsZero() {
		return fieldErr(FieldShard, fmt.Sprintf("%d/%d", s.Index, s.Count),
			"a shard needs a start time: every shard must change level at the same moments")
	}
	return nil
}

// share is this run's users at a level of users (all of them when it is no shard).
func (c *Config) share(users int) int {
	if c.Shard == nil {
		return users
	}
	return c.Shard.Users(users)
}

// need is the steady requests this run's share of a level of users needs. By the
// sequential rule: MinFloor, or Config.MinRequests when larger. On a fixed schedule:
// MinSteady(users), in proportion to the share (0 for a share of 0).
func (e *Engine) need(users int) int {
	if e.cfg.Trace != nil {
		return MinSteady(1) // a trace's window number is no number of users
	}
	if !e.cfg.Ramp.Fixed {
		return max(MinFloor, e.cfg.MinRequests)
	}
	share := e.cfg.share(users)
	if share == users || users <= 0 {
		return MinSteady(users)
	}
	return (MinSteady(users)*share + users - 1) / users
}

// hold sets endpoint ep to this run's share of a level of users, recorded under users.
func (e *Engine) hold(ep *endpoint, users int) {
	share := e.cfg.share(users)
	if l, ok := ep.ctl.(leveler); ok && share != users {
		l.SetLevel(share, users)
		return
	}
	ep.ctl.SetConcurrency(share)
}

// shardFindings leaves out, on a shard, the diagnosis that the server serves more than
// this process receives: the other shards' load is that other traffic.
func (e *Engine) shardFindings(fs []model.Finding) []model.Finding {
	if e.cfg.Shard == nil || e.cfg.Shard.Count < 2 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f model.Finding) bool { return f.Rule == model.DiagOtherTraffic })
}

// nextChange is the earliest moment a walk on a fixed schedule changes level.
func (e *Engine) nextChange() (at time.Time, ok bool) {
	for _, ep := range e.eps {
		if ep.walk == nil {
			continue
		}
		if t, fixed := ep.walk.Ends(); fixed && (!ok || t.Before(at)) {
			at, ok = t, true
		}
	}
	return at, ok
}

// begin waits for Config.StartAt (when set) and returns the moment the ramp starts
// (with a monotonic reading: StartAt itself when on time, in the past when late) and
// how late this run is (0 when less than LateAfter). It sets the report's wall clock
// to that moment, and its started_at to the end of the wait. A start time more than one hold ago is refused: the first level is
// over. ok is false when ctx ended the wait.
func (e *Engine) begin(ctx context.Context) (start time.Time, late time.Duration, ok bool, err error) {
	now := time.Now()
	if e.cfg.StartAt.IsZero() {
		e.wall = model.WallClock{At: now, Wall: now.Round(0)}
		return now, 0, true, nil
	}
	start = now.Add(e.cfg.StartAt.Sub(now)) // StartAt on this process's monotonic clock
	e.wall = model.WallClock{At: start, Wall: e.cfg.StartAt}
	if wait := start.Sub(now); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return start, 0, false, nil
		}
	}
	e.started = e.cfg.Now() // the report's started_at: the load starts now, not when New ran
	late = time.Since(start)
	if late > e.cfg.Ramp.Hold {
		return start, late, false, fieldErr(FieldStartAt, e.cfg.StartAt.UTC().Format(time.RFC3339),
			fmt.Sprintf("it was %s ago, more than one hold (%s): the first level is over; give every shard the same start time in the future",
				late.Round(100*time.Millisecond), e.cfg.Ramp.Hold))
	}
	if late < LateAfter {
		late = 0
	}
	return start, late, true, nil
}
