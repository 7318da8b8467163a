package engine

import (
	"math"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// maxRefine bounds the levels one refinement adds (a bracket of 1..1,000,000 closes in 20).
const maxRefine = 24

// refineStep is where a walk whose levels are done goes next, from the endpoint's levels
// and their judgement j (model.JudgeEndpoint, as the report will say): the capacity's
// bisection, then its confirmation.
//
// It reads the capacity from the judgement, never on its own: N is the claim's level
// (exact or at least: the largest level measured in full that meets the criteria) and F
// its Above (an exact claim's lowest level above N that bounds it and fails: measured in
// full, the walk held it until its failure was decided, or ended by a stop rule). With
// refine, while F - N is more than 10% of N and more than 1, it holds a level between
// them, exploring: where the criterion F fails would cross its target, interpolated
// linearly between N's figure and F's (the per-user p50 falls and the TTFT p95 rises
// about linearly with the load between two close levels), at least one from either end;
// the midpoint when no figure interpolates, or when the last two probes fell on the same
// side (halve: halving then bounds the search, as regula falsi's Illinois variant does).
// Then it confirms N (holds it until every criterion is decided, see
// model.LevelCall.Waiting) unless the level rule already reads N as met. It is done (ok
// false) when there is no capacity (none, or not measured), when N is met, or when N's
// confirmation just ended (decided or not: an undecided N is not confirmed again).
func refineStep(levels []model.LevelStats, j model.EndpointJudgement, slo model.SLO, refine bool, last LevelEnd, halve bool) (users, lo, hi int, confirm, ok bool) {
	c := j.Capacity
	if c.Kind != model.CapExact && c.Kind != model.CapAtLeast {
		return 0, 0, 0, false, false
	}
	n, f := statsAt(levels, c.Level), statsAt(levels, c.Above)
	if n == nil {
		return 0, 0, 0, false, false
	}
	lo, hi = c.Level, c.Above
	if refine && f != nil && hi-lo > max(1, lo/10) && !errorsFailBelow(levels, &j, slo, lo) {
		next := lo + (hi-lo)/2
		if x, ok := crossing(n, f, slo); ok && !halve {
			next = min(max(x, lo+1), hi-1)
		}
		return next, lo, hi, false, true
	}
	// The confirmation is the level rule's: N is met when the rule, reading it at its
	// looks' confidence, would end it (which makes it met at 95% too).
	if (last.Confirm && last.Users == lo) || slo.Call(n).Met() {
		return 0, 0, 0, false, false
	}
	return lo, lo, hi, true, true
}

// errorsFailBelow reports whether a level below users, measured in full, fails the
// error-rate criterion at 95%. Errors seldom fall as the load rises: a level above it
// that meets the criteria has seen few requests without a failure, and bisecting above
// it measures more such levels (with 5% errors the walk bisected 9 and 10 users above 4
// users that failed at 8%, then found them all failing). Its confirmation decides it.
func errorsFailBelow(levels []model.LevelStats, j *model.EndpointJudgement, slo model.SLO, users int) bool {
	for i := range levels {
		l := &levels[i]
		if lj, ok := j.Level(l.Concurrency); !ok || l.Concurrency >= users || lj.State != model.LevelFull {
			continue
		}
		for _, c := range slo.Call(l).Calls {
			if c.Term == model.TermErrorRate && c.Decision == model.Fails {
				return true
			}
		}
	}
	return false
}

// statsAt is the level of n users among levels; nil when there is none (n 0).
func statsAt(levels []model.LevelStats, n int) *model.LevelStats {
	for i := range levels {
		if n > 0 && levels[i].Concurrency == n {
			return &levels[i]
		}
	}
	return nil
}

// judge is endpoint i's levels and their judgement with the run's level rule
// (model.JudgeEndpoint, as the report will say), the level a stop rule ended the climb
// at marked stopped.
func (e *Engine) judge(i int) ([]model.LevelStats, model.EndpointJudgement) {
	ep := e.eps[i]
	levels := ep.book.Levels()
	re := model.ReportEndpoint{Levels: model.ReportLevels(levels)}
	if ep.stop != nil {
		for k := range re.Levels {
			re.Levels[k].Stopped = re.Levels[k].Concurrency == ep.stop.Users
		}
	}
	s := e.Settings()
	return levels, model.JudgeEndpoint(&s, &re, false, false)
}

// refineNext extends endpoint i's walk, whose levels are done, with its next refinement
// step at now; false when there is none (the walk is over).
func (e *Engine) refineNext(i int, now time.Time) (Notice, bool) {
	ep := e.eps[i]
	w := ep.walk
	if e.cfg.Ramp.Fixed || ep.refined >= maxRefine {
		return Notice{}, false
	}
	levels, j := e.judge(i)
	users, lo, hi, confirm, ok := refineStep(levels, j, e.cfg.SLO, e.cfg.Refine || ep.byHand, w.LastEnd(), sameSide(j, ep.probes))
	if !ok {
		return Notice{}, false
	}
	ep.refined++
	if !confirm {
		ep.probes = append(ep.probes, users)
	}
	_, was := w.Level()
	w.Extend(users, lo, hi, confirm, now)
	if users != was {
		e.hold(ep, users)
		w.Rebase(steadyOf(ep.book, users))
	}
	if !e.onRamp(users) {
		ep.book.MarkRefined(users)
	}
	return Notice{Kind: LevelStarted, Endpoint: i, Name: ep.info.Name, Users: users, Level: w.Progress(now, LevelState{})}, true
}

// onRamp reports whether users is one of the ramp's own levels.
func (e *Engine) onRamp(users int) bool {
	for _, l := range e.cfg.Ramp.Levels {
		if l == users {
			return true
		}
	}
	return false
}

// StartRefine starts the capacity's refinement by hand at now (the screen's key) on the
// endpoints targets: from the levels each has measured so far, it bisects between the
// last level that meets the criteria and the failing one above it, then confirms the
// capacity's level, and settles as the ramp does. It returns a LevelStarted notice per
// endpoint it started on; none when no endpoint has a level that meets the criteria, or
// whose capacity is not already decided.
func (e *Engine) StartRefine(targets []int, now time.Time) []Notice {
	if e.cfg.Ramp.Fixed {
		return nil
	}
	e.clock(now)
	var out []Notice
	for _, i := range targets {
		ep := e.eps[i]
		if ep.ctl.Paused() {
			continue
		}
		prev := ep.walk
		ep.walk = &Walk{ramp: e.cfg.Ramp, began: now, done: true, need: e.need}
		ep.stop, ep.refined, ep.byHand, ep.probes = nil, 0, true, nil
		n, ok := e.refineNext(i, now)
		if !ok {
			ep.walk, ep.byHand = prev, false
			continue
		}
		ep.end = RampEnd{}
		out = append(out, n)
	}
	return out
}

// Refines reports whether the ramp bisects the capacity once its levels are held.
func (e *Engine) Refines() bool { return e.cfg.Refine && !e.cfg.Ramp.Fixed }

// Floor is the steady requests a level holds at least by the sequential rule (MinFloor,
// or Config.MinRequests when larger).
func (e *Engine) Floor() int { return max(MinFloor, e.cfg.MinRequests) }

// crossing is the load at which the first criterion f fails would cross its target,
// interpolated between n's figure (it meets) and f's; ok is false when the figures do
// not bracket the target. Per-user tok/s is interpolated as its inverse, the time per
// token, which grows about linearly with the load: a batched decode step costs a fixed
// part plus a part per sequence (the simulator's StepMs + StepMsPerSeq x sequences, and
// what vLLM and SGLang show below their batch limit), so the speed itself falls along a
// curve that a straight line between two levels puts too far out (16 users at 38 tok/s
// and 32 at 23.6 put 30 tok/s at 25 users in tok/s, at 23 in time per token; it lies
// between 22 and 23). TTFT and the error rate are interpolated as they are.
func crossing(n, f *model.LevelStats, slo model.SLO) (int, bool) {
	var a, b, target float64
	switch {
	case n.UserTPS.Count > 0 && f.UserTPS.Count > 0 && f.UserTPS.P50 < slo.UserTPSMin &&
		n.UserTPS.P50 > 0 && f.UserTPS.P50 > 0:
		a, b, target = 1/n.UserTPS.P50, 1/f.UserTPS.P50, 1/slo.UserTPSMin
	case n.TTFT.Count > 0 && f.TTFT.Count > 0 && f.TTFT.P95 > ms(slo.TTFTP95Max):
		a, b, target = n.TTFT.P95, f.TTFT.P95, ms(slo.TTFTP95Max)
	case f.ErrorRate > slo.ErrorRateMax:
		a, b, target = n.ErrorRate, f.ErrorRate, slo.ErrorRateMax
	default:
		return 0, false
	}
	if a == b || (a-target)*(b-target) > 0 {
		return 0, false
	}
	x := float64(n.Concurrency) + float64(f.Concurrency-n.Concurrency)*(a-target)/(a-b)
	return int(math.Round(x)), true
}

// sameSide reports whether the last two probes of a bisection fell on the same side of
// the capacity, as the judgement j reads them: both meet the criteria, or both fail them.
func sameSide(j model.EndpointJudgement, probes []int) bool {
	if len(probes) < 2 {
		return false
	}
	meets := func(users int) int {
		if l, ok := j.Level(users); ok {
			if l.Meets {
				return 1
			}
			return 0
		}
		return -1
	}
	a, b := meets(probes[len(probes)-1]), meets(probes[len(probes)-2])
	return a >= 0 && a == b
}
