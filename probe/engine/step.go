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
	LevelStarted   NoticeKind = iota // the ramp moved an endpoint to its next level
	LevelShort                       // a level reached the maximum hold before its floor, hold or curve were met
	LevelUndecided                   // a level reached the maximum hold with a criterion undecided at 95%
	LevelImprecise                   // a level reached the maximum hold with a curve figure not known to ±5%
	RampFinished                     // every level held; the endpoint settled
	RampStopped                      // a stop rule ended the ramp; the endpoint settled
	RampWarned                       // a stop rule tripped under FullRamp: the ramp goes on
	MaxDuration                      // the run's maximum duration is over: the ramp ended, the load stopped
	ServerNote                       // the server's metrics were found, or answer again (Text)
	ServerTrouble                    // the server's metrics are not available, or the server is down (Text)
	Diagnosed                        // a finding first holds, or holds again after a minute without (Text, Severity)
	ScreenSaid                       // the live screen's status line said Text of its own (Say); never returned by Step
)

// Notice is something Step did, for the screen's status line and bench's progress.
type Notice struct {
	Kind     NoticeKind
	Endpoint int
	Name     string
	Users    int // the level started, ended short or undecided, or that the ramp ended at
	Level    LevelProgress
	End      LevelEnd // LevelShort, LevelUndecided: how it ended
	Stop     Stop     // RampStopped, RampWarned
	Settled  int      // RampFinished, RampStopped: the users held now
	Capacity bool     // Settled is the endpoint's capacity
	Levels   int      // RampFinished: levels held
	Refined  int      // RampFinished, RampStopped: levels the capacity's refinement added
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
	// Shorter are a ScreenSaid notice's shorter forms (longest first), each whole, for a
	// status line too narrow for Text.
	Shorter []string
}

// Bad reports whether the notice is a warning.
func (n Notice) Bad() bool {
	return n.Kind == LevelShort || n.Kind == LevelUndecided || n.Kind == LevelImprecise || n.Kind == RampStopped || n.Kind == RampWarned ||
		n.Kind == MaxDuration || n.Kind == ServerTrouble || n.Kind == Diagnosed && n.Severity != model.SevInfo && n.Severity != "" ||
		n.Kind == ScreenSaid && n.Warning
}

// String says what happened, in words for a person.
func (n Notice) String() string {
	switch n.Kind {
	case LevelStarted:
		return n.started()
	case LevelShort:
		if n.Level.Fixed {
			return fmt.Sprintf("%s: %s ended on the fixed schedule with %d/%d steady requests: marked short",
				n.Name, n.word(n.Users), n.Level.Steady, n.Level.Need)
		}
		if n.End.Confirm {
			return fmt.Sprintf("%s: confirming %s reached the maximum hold with %s: %s",
				n.Name, n.word(n.Users), model.And(n.End.Missing), n.End.confirmEnd())
		}
		return fmt.Sprintf("%s: %s reached the maximum hold with %s: marked short",
			n.Name, n.word(n.Users), model.And(n.End.Missing))
	case LevelUndecided:
		if n.End.Confirm {
			return fmt.Sprintf("%s: confirming %s reached the maximum hold with %s undecided at 95%%: %s",
				n.Name, n.word(n.Users), model.TermsWords(n.End.Undecided), n.End.confirmEnd())
		}
		return fmt.Sprintf("%s: %s reached the maximum hold with %s undecided at 95%%: marked undecided (it decides no capacity)",
			n.Name, n.word(n.Users), model.TermsWords(n.End.Undecided))
	case LevelImprecise:
		return fmt.Sprintf("%s: %s reached the maximum hold with %s not known to ±5%% (its requests vary too much): see its interval",
			n.Name, n.word(n.Users), model.And(n.End.Imprecise))
	case RampFinished:
		if n.Trace != nil { // a window is replayed on its schedule, never "held": the verdict's word
			return fmt.Sprintf("trace replay finished on %s: all %d windows replayed; %s", n.Name, n.Levels, n.settled())
		}
		if n.Refined > 0 {
			return fmt.Sprintf("auto-ramp finished on %s: all %d levels held, and %d to find the capacity; %s",
				n.Name, n.Levels, n.Refined, n.settled())
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

// started says which level the walk moved to.
func (n Notice) started() string {
	p := n.Level
	switch {
	case p.Confirm:
		return fmt.Sprintf("%s: confirming the capacity at %s: held until each criterion is decided at 95%%", n.Name, n.word(n.Users))
	case p.Refined && p.Hi > 0:
		return fmt.Sprintf("%s: refining the capacity: %s, between %s (meets the criteria) and %s (fails)",
			n.Name, n.word(n.Users), n.word(p.Lo), n.word(p.Hi))
	}
	return fmt.Sprintf("%s: level %d/%d, %s", n.Name, p.Index+1, p.Levels, n.word(n.Users))
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
	if st, hit := checkStop(l, c, e.cfg.SLO); hit && !w.Done() {
		if !e.cfg.FullRamp && !e.cfg.Ramp.Fixed { // a fixed schedule cannot stop early: other shards go on
			if ep.stop == nil {
				ep.stop = &st
			}
			w.Finish() // the level fails: on to the refinement, or the end
			return e.afterLevel(i, now, out)
		}
		if !ep.warned[c] {
			ep.warned[c] = true
			out = append(out, Notice{Kind: RampWarned, Endpoint: i, Name: ep.info.Name, Users: c, Stop: st})
		}
	}
	st := e.levelState(l, w)
	p := w.Progress(now, st)
	next, changed, done := w.Next(now, st)
	// A trace's window ends on its schedule while its requests go on: whether it is short
	// is known from the report's steady requests (traceLevels), not at its end.
	if (changed || done) && e.cfg.Trace == nil {
		out = e.sayEnd(i, p, out)
	}
	switch {
	case done:
		return e.afterLevel(i, now, out)
	case changed:
		e.hold(ep, next)
		w.Rebase(steadyOf(ep.book, next))
		out = append(out, Notice{Kind: LevelStarted, Endpoint: i, Name: ep.info.Name, Users: next, Level: w.Progress(now, LevelState{})})
	}
	return out
}

// levelState reads the current level's row l for walk w (the zero state without one).
func (e *Engine) levelState(l *model.LevelStats, w *Walk) LevelState {
	if l == nil || w.ramp.Fixed {
		return LevelState{Steady: steadyIn(l)}
	}
	st := LevelState{Steady: steadyCount(l), Call: e.cfg.SLO.Call(l), Rate: l.RequestRate}
	st.More, st.MoreOK = e.cfg.SLO.MoreRequests(l, model.Terms(st.Call.Waiting(w.confirm)), st.Call.Curve)
	return st
}

// sayEnd marks the level that just ended short or undecided (or decided again), and
// says so; p is how it stood.
func (e *Engine) sayEnd(i int, p LevelProgress, out []Notice) []Notice {
	ep := e.eps[i]
	end := ep.walk.LastEnd()
	switch {
	case end.Confirm && (end.Short || len(end.Undecided) > 0):
		end.Fails = e.failsAt(i, end.Users)
		// The level was measured in full before (the judgement named it the capacity so):
		// a confirmation that runs out leaves it so, and the criteria it left open say the
		// capacity is not decided at 95%. Marking it short or undecided would throw away
		// the hold that measured it (17 steady requests "short" of 8).
		kind := LevelShort
		if !end.Short {
			kind = LevelUndecided
		}
		return append(out, Notice{Kind: kind, Endpoint: i, Name: ep.info.Name, Users: end.Users, Level: p, End: end})
	case end.Short:
		ep.short[end.Users] = true
		ep.book.MarkShort(end.Users)
		return append(out, Notice{Kind: LevelShort, Endpoint: i, Name: ep.info.Name, Users: end.Users, Level: p, End: end})
	case len(end.Undecided) > 0:
		ep.book.MarkUndecided(end.Users, end.Undecided)
		return append(out, Notice{Kind: LevelUndecided, Endpoint: i, Name: ep.info.Name, Users: end.Users, Level: p, End: end})
	}
	ep.book.MarkUndecided(end.Users, nil) // a later visit decided it
	if len(end.Imprecise) > 0 {
		return append(out, Notice{Kind: LevelImprecise, Endpoint: i, Name: ep.info.Name, Users: end.Users, Level: p, End: end})
	}
	return out
}

// failsAt is what endpoint i's level at users fails of the criteria as measured, in
// words ("errors 1.67% > 1%"; none when it meets them), as the judgement will say it.
func (e *Engine) failsAt(i, users int) []string {
	l := statsAt(e.eps[i].book.Levels(), users)
	if l == nil {
		return nil
	}
	rl := l.Report()
	return e.cfg.SLO.ReportFailures(&rl)
}

// afterLevel goes on from endpoint i's walk whose levels are done: the capacity's
// refinement, or the end of its ramp.
func (e *Engine) afterLevel(i int, now time.Time, out []Notice) []Notice {
	ep := e.eps[i]
	if n, ok := e.refineNext(i, now); ok {
		return append(out, n)
	}
	_, c := ep.walk.Level()
	if ep.stop != nil {
		return append(out, e.endWalk(i, RampEnd{Kind: EndStopped, Users: ep.stop.Users, Stop: *ep.stop}))
	}
	return append(out, e.endWalk(i, RampEnd{Kind: EndFinished, Users: c}))
}

// endWalk ends endpoint i's ramp by itself (finished or stopped) and settles it.
func (e *Engine) endWalk(i int, end RampEnd) Notice {
	ep := e.eps[i]
	levels := len(e.cfg.Ramp.Levels)
	ep.walk, ep.end = nil, end
	n := Notice{Endpoint: i, Name: ep.info.Name, Users: end.Users, Stop: end.Stop, Levels: levels, Refined: ep.refined,
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
