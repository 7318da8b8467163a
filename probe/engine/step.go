package engine

import (
	"fmt"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// NoticeKind is what a Notice announces.
type NoticeKind int

// What Step announces.
const (
	LevelStarted  NoticeKind = iota // the ramp moved an endpoint to its next level
	LevelShort                      // a level reached the maximum hold before the level rule was met
	RampFinished                    // every level held; the endpoint settled
	RampStopped                     // a stop rule ended the ramp; the endpoint settled
	RampWarned                      // a stop rule tripped under FullRamp: the ramp goes on
	MaxDuration                     // the run's maximum duration is over: the ramp ended, the load stopped
	ServerNote                      // the server's metrics were found, or answer again (Text)
	ServerTrouble                   // the server's metrics are not available, or the server is down (Text)
	Diagnosed                       // a finding first holds, or holds again after a minute without (Text, Severity)
	ScreenSaid                      // the live screen's status line said Text of its own (Say); never returned by Step
)

// Notice is something Step did, for the screen's status line and bench's progress.
type Notice struct {
	Kind     NoticeKind
	Endpoint int
	Name     string
	Users    int // the level started, ended short, or that the ramp ended at
	Level    LevelProgress
	Stop     Stop // RampStopped, RampWarned
	Settled  int  // RampFinished, RampStopped: the users held now
	Capacity bool // Settled is the endpoint's capacity
	Levels   int  // RampFinished: levels held
	After    time.Duration
	Text     string // ServerNote, ServerTrouble, Diagnosed: the line to say
	Rate     bool   // rate mode: Users, Settled and the levels are arrival rates (requests/s)
	// Trace is the trace a trace run replays: Users and the levels are its windows.
	Trace *model.ReportTrace
	// Rule and Severity are a Diagnosed finding's kind and severity.
	Rule     string
	Severity model.Severity
	// Warning is a ScreenSaid notice said as a warning.
	Warning bool
}

// Bad reports whether the notice is a warning.
func (n Notice) Bad() bool {
	return n.Kind == LevelShort || n.Kind == RampStopped || n.Kind == RampWarned || n.Kind == MaxDuration ||
		n.Kind == ServerTrouble || n.Kind == Diagnosed && n.Severity != model.SevInfo && n.Severity != "" ||
		n.Kind == ScreenSaid && n.Warning
}

// String says what happened, in words for a person.
func (n Notice) String() string {
	switch n.Kind {
	case LevelStarted:
		return fmt.Sprintf("%s: level %d/%d, %s", n.Name, n.Level.Index+1, n.Level.Levels, n.word(n.Users))
	case LevelShort:
		if n.Level.Fixed {
			return fmt.Sprintf("%s: %s ended on the fixed schedule with %d/%d steady requests: marked short",
				n.Name, n.word(n.Users), n.Level.Steady, n.Level.Need)
		}
		return fmt.Sprintf("%s: %s reached the maximum hold with %d/%d steady requests: marked short",
			n.Name, n.word(n.Users), n.Level.Steady, n.Level.Need)
	case RampFinished:
		if n.Trace != nil { // a window is replayed on its schedule, never "held": the verdict's word
			return fmt.Sprintf("trace replay finished on %s: all %d windows replayed; %s", n.Name, n.Levels, n.settled())
		}
		return fmt.Sprintf("auto-ramp finished on %s: all %d levels held; %s", n.Name, n.Levels, n.settled())
	case RampStopped:
		return fmt.Sprintf("auto-ramp stopped at %s on %s: %s; %s", n.word(n.Users), n.Name, n.Stop, n.settled())
	case RampWarned:
		return fmt.Sprintf("%s: at %s %s (the ramp goes on: full ramp)", n.Name, n.word(n.Users), n.Stop)
	case MaxDuration:
		return fmt.Sprintf("the run's maximum duration (%s) is over: ramp ended, load stopped", n.After)
	case ServerNote, ServerTrouble:
		return n.Name + ": " + n.Text
	case Diagnosed:
		return n.Name + ": diagnosis: " + n.Text
	case ScreenSaid:
		return n.Text
	}
	return ""
}

func (n Notice) settled() string {
	switch {
	case n.Capacity && n.Settled == 0:
		return "no level meets the criteria: load stopped"
	case n.Capacity:
		return fmt.Sprintf("back to capacity, %s", n.word(n.Settled))
	case n.Settled == 0:
		return "load stopped"
	}
	return fmt.Sprintf("back to %s", n.word(n.Settled))
}

// word names a level of the notice: users, or requests/s in rate mode.
func (n Notice) word(v int) string {
	if n.Trace != nil {
		return n.Trace.WindowWords(v)
	}
	return LevelWord(n.Rate, v)
}

// LevelWord names a level: "1 user", "n users", or in rate mode "1 request/s", "n
// requests/s" (model.LevelName).
func LevelWord(rate bool, n int) string { return model.LevelName(rate, n) }

// EndKind is how an endpoint's ramp ended.
type EndKind int

// How a ramp ends.
const (
	NotEnded     EndKind = iota // still walking, or never started
	EndFinished                 // every level held
	EndStopped                  // a stop rule
	EndUser                     // the user stopped it (a key, a manual change, a pause)
	EndDuration                 // the run's maximum duration
	EndInterrupt                // Ctrl-C
)

// RampEnd is how an endpoint's latest ramp ended.
type RampEnd struct {
	Kind  EndKind
	Users int  // the level it ended at
	Stop  Stop // EndStopped: why
}

// Step moves the ramp on at now: it applies the stop rules and the level rule to every
// endpoint the ramp drives, sets their users, settles those whose ramp ended, and ends
// the run when its maximum duration is over. It returns what it did.
func (e *Engine) Step(now time.Time) []Notice {
	if e.trace != nil {
		e.trace("step", nil, now)
	}
	e.clock(now)
	if e.cfg.MaxDuration > 0 && !e.over && now.Sub(e.t0) >= e.cfg.MaxDuration {
		return e.announce(e.endByDuration()...)
	}
	out := e.stepServer(now)
	for i, ep := range e.eps {
		if ep.walk != nil && !e.holdsLastWindow(ep) {
			out = e.stepWalk(i, now, out)
		}
	}
	for k := range out {
		out[k].Rate, out[k].Trace = e.rate, e.cfg.Trace
	}
	return e.announce(out...)
}

// stepWalk applies the rules to endpoint i's walk at now.
func (e *Engine) stepWalk(i int, now time.Time, out []Notice) []Notice {
	ep := e.eps[i]
	w := ep.walk
	_, c := w.Level()
	l := row(ep.book, c)
	steady := 0
	if l != nil {
		steady = steadyCount(l)
	}
	if st, hit := checkStop(l, c, e.cfg.SLO); hit {
		if !e.cfg.FullRamp && !e.cfg.Ramp.Fixed { // a fixed schedule cannot stop early: other shards go on
			return append(out, e.endWalk(i, RampEnd{Kind: EndStopped, Users: c, Stop: st}))
		}
		if !ep.warned[c] {
			ep.warned[c] = true
			out = append(out, Notice{Kind: RampWarned, Endpoint: i, Name: ep.info.Name, Users: c, Stop: st})
		}
	}
	p := w.Progress(now, steady)
	next, changed, done := w.Next(now, steady)
	// A trace's window ends on its schedule while its requests go on: whether it is short
	// is known from the report's steady requests (traceLevels), not at its end.
	if end := w.LastEnd(); (changed || done) && end.Short && e.cfg.Trace == nil {
		ep.short[c] = true
		ep.book.MarkShort(c)
		out = append(out, Notice{Kind: LevelShort, Endpoint: i, Name: ep.info.Name, Users: c, Level: p})
	}
	switch {
	case done:
		out = append(out, e.endWalk(i, RampEnd{Kind: EndFinished, Users: c}))
	case changed:
		e.hold(ep, next)
		w.Rebase(steadyOf(ep.book, next))
		out = append(out, Notice{Kind: LevelStarted, Endpoint: i, Name: ep.info.Name, Users: next, Level: w.Progress(now, 0)})
	}
	return out
}

// endWalk ends endpoint i's ramp by itself (finished or stopped) and settles it.
func (e *Engine) endWalk(i int, end RampEnd) Notice {
	ep := e.eps[i]
	levels := len(e.cfg.Ramp.Levels)
	ep.walk, ep.end = nil, end
	n := Notice{Endpoint: i, Name: ep.info.Name, Users: end.Users, Stop: end.Stop, Levels: levels,
		Settled: e.cfg.Settle, Capacity: e.cfg.Settle == SettleCapacity}
	if n.Capacity {
		n.Settled = ep.book.Capacity()
	}
	e.hold(ep, n.Settled)
	n.Kind = RampFinished
	if end.Kind == EndStopped {
		n.Kind = RampStopped
	}
	return n
}

// endByDuration ends the run: every ramp ends, every pool stops (in-flight requests finish).
func (e *Engine) endByDuration() []Notice {
	e.over = true
	e.endRamps(EndDuration)
	for _, ep := range e.eps {
		ep.ctl.Stop()
	}
	return []Notice{{Kind: MaxDuration, Endpoint: -1, After: e.cfg.MaxDuration}}
}
