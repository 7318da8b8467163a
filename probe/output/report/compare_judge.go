package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// calls is what a comparison says of a pair of endpoints: the regressions (decided at
// 95%, or on points alone for want of intervals, or a level or figure NEW did not
// measure), the changes beyond the thresholds that the intervals do not decide (said,
// not called regressions), and whether some call rested on points alone. Each is a
// sentence worded by callWords, the same in compare's Markdown and in a report.
type calls struct {
	regs, undecided []string
	onPoints        bool
	// decided and points count the regressions decided at 95% and those judged on
	// points alone; the others are levels or figures NEW did not measure.
	decided, points int
}

// add records one call of a change worded what (its figures and change), from n
// and m requests (BASE's, NEW's); it returns the call.
func (c *calls) add(call model.ChangeCall, what string, n, m int) model.ChangeCall {
	c.say(call, what, cannotTell(n, m))
	return call
}

// say records the call of a change worded what; why is what an undecided change could
// not tell ("within what 42 and 38 requests can tell").
func (c *calls) say(call model.ChangeCall, what, why string) {
	s := callWords(call, what, why)
	switch call {
	case model.ChangeRegressed:
		c.regs = append(c.regs, s)
		c.decided++
	case model.ChangeOnPoints:
		c.regs, c.onPoints = append(c.regs, s), true
		c.points++
	case model.ChangeUndecided:
		c.undecided = append(c.undecided, s)
	}
}

// unmeasured records a regression no interval judges: a level or a figure BASE
// measured and NEW did not.
func (c *calls) unmeasured(what string) { c.regs = append(c.regs, what) }

// merge adds o's calls to c's.
func (c *calls) merge(o calls) {
	c.regs = append(c.regs, o.regs...)
	c.undecided = append(c.undecided, o.undecided...)
	c.onPoints = c.onPoints || o.onPoints
	c.decided += o.decided
	c.points += o.points
}

// callWords words the call of a change after its sentence what (its figures and its
// change: "new vs base at 4 users: TTFT p95 20.6 ms → 26.5 ms (+28.6%)"); why is what
// an undecided change could not tell. compare's lists and a report's comparison of its
// series say every change with it, so that they never disagree on what regressed:
// "...: a regression, decided at 95%", "...: a regression on the figures alone" (a run
// without intervals: noIntervals says which), "...: within what 42 and 38 requests can
// tell, not called a regression".
func callWords(call model.ChangeCall, what, why string) string {
	switch call {
	case model.ChangeRegressed:
		return what + ": a regression, decided at 95%"
	case model.ChangeOnPoints:
		return what + ": a regression on the figures alone"
	case model.ChangeUndecided:
		return what + ": " + why + ", not called a regression"
	}
	return what + ": within the thresholds"
}

// resultWords is the result of a comparison of NEW (named next) with BASE (named base):
// "NEW is worse than BASE" when some regression was called, else "no regression".
func resultWords(next, base string, c calls) string {
	if len(c.regs) > 0 {
		return next + " is worse than " + base
	}
	return "no regression"
}

// cannotTell is what an undecided change could not tell: "within what 42 and 38
// requests can tell".
func cannotTell(n, m int) string {
	return fmt.Sprintf("within what %d and %s can tell", n, model.Plural(m, "request"))
}

// undecidedCell is the change cell of a change the intervals do not decide.
func undecidedCell(ch string) string { return ch + " (not decided)" }

// figureOf is a level's figure v with its 95% interval ci for the change rule: no
// interval when its run carries none (intervals false), [0, +Inf) when the run does but
// could not bound this figure.
func figureOf(v float64, ci *model.Interval, intervals bool) model.Figure {
	switch {
	case !intervals:
		return model.Figure{V: v}
	case ci == nil:
		return model.Figure{V: v, CI: &model.Interval{Lo: 0, Hi: math.Inf(1)}}
	}
	return model.Figure{V: v, CI: ci}
}

// steadyOf is the number of requests a level's distributions rest on: its steady
// requests, or all of them in a file that does not count those.
func steadyOf(l model.ReportLevel) int {
	if l.Steady > 0 {
		return l.Steady
	}
	return l.Requests
}

// capacityFall judges the fall of the capacity from BASE's to NEW's (NEW's capacity is
// known to lie below BASE's on their figures: see fellBelow) on the levels' 95%
// intervals: it is decided when BASE's capacity level meets every criterion at 95% (a
// share of requests whose figure meets its target excepted, as the capacity's own
// decision does) and NEW's level that bounds its capacity fails one at 95%. why names
// what is not decided, and in which run ("NEW: the failure of 4 users is not
// decided"). On points alone when either run carries no intervals.
func (p *endpointPair) capacityFall() (call model.ChangeCall, why string) {
	if !p.base.Judgement.Intervals || !p.next.Judgement.Intervals {
		return model.ChangeOnPoints, ""
	}
	slo := p.base.SLO()
	if bl, ok := levelAt(p.base.Endpoint.Levels, p.base.Judgement.Capacity.Level); ok {
		calls := slo.ReportCalls(&bl)
		if !(model.LevelCall{Calls: calls}).Met() {
			return model.ChangeUndecided, "BASE: " + openTerms(calls) + " of " + p.level(bl.Concurrency) + " undecided"
		}
	}
	nj := p.next.Judgement.Capacity
	if nj.Kind == model.CapNone {
		if !nj.Decision.Decided {
			return model.ChangeUndecided, "NEW: " + nj.Decision.Why
		}
		return model.ChangeRegressed, ""
	}
	nl, ok := levelAt(p.next.Endpoint.Levels, nj.Above)
	if !ok || !(model.LevelCall{Calls: slo.ReportCalls(&nl)}).Fails() {
		return model.ChangeUndecided, "NEW: the failure of " + p.level(nj.Above) + " is not decided"
	}
	return model.ChangeRegressed, ""
}

// traceFall judges, on the windows' 95% intervals, a trace's load BASE held and NEW did
// not hold on their figures (the trace verdicts are read from each window's figures): it
// is decided when every window BASE measured in full meets every criterion at 95% (a
// share of requests whose figure meets its target excepted, as for a capacity) and some
// window NEW measured in full fails one at 95%. why names what is not decided, and in
// which run ("NEW: the failure of window 3 (20-30 s of the trace) is not decided"). On
// points alone when either run carries no intervals.
func (p *endpointPair) traceFall() (call model.ChangeCall, why string) {
	if !p.base.Judgement.Intervals || !p.next.Judgement.Intervals {
		return model.ChangeOnPoints, ""
	}
	slo := p.base.SLO()
	for _, l := range p.base.Endpoint.Levels {
		if lj, ok := p.base.Judgement.Level(l.Concurrency); ok && lj.State.Decides() {
			if calls := slo.ReportCalls(&l); !(model.LevelCall{Calls: calls}).Met() {
				return model.ChangeUndecided, "BASE: " + openTerms(calls) + " of " + lj.Name + " undecided"
			}
		}
	}
	var failing []string
	for _, l := range p.next.Endpoint.Levels {
		lj, ok := p.next.Judgement.Level(l.Concurrency)
		if !ok || !lj.State.Decides() || lj.Meets {
			continue
		}
		if (model.LevelCall{Calls: slo.ReportCalls(&l)}).Fails() {
			return model.ChangeRegressed, ""
		}
		failing = append(failing, lj.Name)
	}
	return model.ChangeUndecided, "NEW: the failure of " + model.And(failing) + " is not decided"
}

// openTerms words the criteria of calls not decided to be met ("TTFT p95", "criteria"
// when none is named).
func openTerms(calls []model.Call) string {
	var terms []string
	for _, c := range calls {
		if c.Decision != model.Meets && !(c.Share && c.Meets) {
			terms = append(terms, c.Term)
		}
	}
	if len(terms) == 0 {
		return "criteria"
	}
	return model.TermsWords(terms)
}

// noIntervals is the note said once when some change was judged on points alone: which
// runs carry no intervals (BASE's when base, NEW's when next), named baseName and
// nextName ("BASE", "NEW" in compare; a report names its series). "" when both do.
func noIntervals(baseName, nextName string, base, next bool) string {
	var runs []string
	if base {
		runs = append(runs, baseName)
	}
	if next {
		runs = append(runs, nextName)
	}
	switch len(runs) {
	case 0:
		return ""
	case 1:
		return runs[0] + " has no intervals (written by an older tpsmon): changes judged on points alone"
	}
	return strings.Join(runs, " and ") + " have no intervals (written by older tpsmon versions): changes judged on points alone"
}
