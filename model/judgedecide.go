package model

import (
	"fmt"
	"strings"
)

// CapacityDecision is how sure the judgement is of a capacity claim, from the levels' 95%
// intervals (measurement contract, "How sure"): Decided when the capacity's level meets
// every criterion at 95% (a share of requests whose figure meets its target excepted:
// see Call.Share) and the level above that bounds it fails one at 95%, with no level
// between that was not measured in full (or there is none above: "at least"); for
// "none", when the lowest level that bounds fails one at 95%.
type CapacityDecision struct {
	// Known says the levels carry intervals, so that the claim is decided or not; false
	// for a file written before intervals, and while the ramp still walks the endpoint.
	Known   bool
	Decided bool
	// By is the failure at 95% that bounds the capacity: "23 users fails: per-user p50
	// 29.8 tok/s < 30 tok/s" ("" for "at least").
	By string
	// Why says why it is not decided: "TTFT p95 of 22 users undecided", "23 users
	// stayed undecided on TTFT p95", "the failure of 32 users is not decided".
	Why string
	// Unproven says, for each share of requests of the capacity's level met by its
	// figure but not at 95% (the level rule does not wait for those), what it shows:
	// "errors 0 of 152 requests: within 1% as measured, under 2.47% at 95%".
	Unproven []string
}

// decideCapacity is how sure claim c over the judged levels js (the report's levels, in
// the same order) is. walking says the ramp goes on: nothing is said yet.
func decideCapacity(c CapacityClaim, slo SLO, js []LevelJudgement, levels []ReportLevel, walking bool) CapacityDecision {
	if walking || c.Kind == CapNotMeasured || !hasIntervals(levels) {
		return CapacityDecision{}
	}
	d := CapacityDecision{Known: true}
	from := 0
	if c.Kind != CapNone {
		n := -1
		for i := range js {
			if js[i].Level == c.Level {
				n = i
			}
		}
		if n < 0 {
			return CapacityDecision{}
		}
		calls := slo.ReportCalls(&levels[n])
		d.Unproven = unprovenWords(&levels[n], slo, unproven(calls))
		if !metAt(calls) {
			d.Why = js[n].Name + "'s criteria not decided"
			if open := undecidedTerms(calls); len(open) > 0 {
				d.Why = TermsWords(open) + " of " + js[n].Name + " undecided"
			}
			return d
		}
		from = n + 1
	}
	for i := from; i < len(js); i++ {
		l := js[i]
		switch {
		case l.State == LevelNotMeasured || !judgeReport(&levels[i]).measured():
			continue // nothing measured there (a short level that never turned over)
		case l.State.Bounds() && !l.Meets:
			calls := slo.ReportCalls(&levels[i])
			if why, ok := failureAt(l, calls); ok {
				d.Decided, d.By = true, l.Name+" fails: "+why
				if c.Kind == CapNone && c.Why == l.Name+": "+why {
					d.By = "" // "capacity none (1 user: ...)" says it already
				}
			} else {
				d.Why = "the failure of " + l.Name + " is not decided"
			}
			return d
		case l.State == LevelUndecided:
			d.Why = l.Name + " stayed undecided on " + TermsWords(l.Undecided)
			return d
		case !l.State.Decides():
			d.Why = l.Name + " is " + l.State.Mark()
			return d
		}
	}
	d.Decided = c.Kind == CapAtLeast // nothing measured above it
	if !d.Decided {
		d.Why = "no level fails the criteria at 95%"
	}
	return d
}

// failureAt is the first failure of level l that its 95% intervals decide (calls), in
// the order l.Failures names them; ok false when none is decided.
func failureAt(l LevelJudgement, calls []Call) (string, bool) {
	prefix := map[string]string{TermTTFT: "TTFT ", TermUserTPS: "per-user ", TermErrorRate: "errors ",
		TermTTFO: "TTFO ", TermGoodput: "goodput "}
	for _, f := range l.Failures {
		for _, c := range calls {
			if c.Decision == Fails && strings.HasPrefix(f, prefix[c.Term]) {
				return f, true
			}
		}
	}
	return "", false
}

// hasIntervals reports whether some level carries an interval (a file written since
// the levels' intervals were).
func hasIntervals(levels []ReportLevel) bool {
	for i := range levels {
		if levels[i].CI95 != (LevelCI{}) {
			return true
		}
	}
	return false
}

// undecidedTerms are the terms of the calls left undecided that are not shares whose
// figure meets its target.
func undecidedTerms(calls []Call) []string {
	var out []string
	for _, c := range calls {
		if c.Decision == Undecided && !(c.Share && c.Meets) {
			out = append(out, c.Term)
		}
	}
	return out
}

// unprovenWords says what level l shows of the shares (terms) its figure meets but its
// 95% interval does not, against the limits of slo: "errors 0 of 151 requests: under 1% as
// measured, under 3.4% at 95%" (it must not read as "not decided" beside a decided
// capacity: the level rule does not wait for a share, and the words say how far it is known).
func unprovenWords(l *ReportLevel, slo SLO, terms []string) []string {
	var out []string
	for _, t := range terms {
		switch {
		case t == TermErrorRate && l.CI95.ErrorRate != nil:
			failed, n := l.Charged()
			out = append(out, fmt.Sprintf("errors %d of %s: within %s as measured, under %s at 95%%",
				failed, Plural(n, "request"), FormatPercent(slo.ErrorRateMax), FormatPercent(l.CI95.ErrorRate.Hi)))
		case t == TermGoodput && l.CI95.Goodput != nil:
			out = append(out, fmt.Sprintf("goodput %d of %s met their targets: at least %s as measured, over %s at 95%%",
				l.Goodput.Met, Plural(l.Goodput.Judged, "request"), FormatPercent(slo.GoodputMin), FormatPercent(l.CI95.Goodput.Lo)))
		default:
			out = append(out, TermWords(t)+" meets its target as measured, not at 95%")
		}
	}
	return out
}

// words says the decision after the capacity's words: ", decided at 95% (23 users
// fails: per-user p50 29.8 tok/s < 30 tok/s; errors 0 of 152 requests: within 1% as
// measured, under 2.47% at 95%)", ", not decided at 95% (TTFT p95 of 22 users undecided)"; ""
// when nothing is known. brief leaves the reasons out.
func (d CapacityDecision) words(brief bool) string {
	if !d.Known {
		return ""
	}
	s, why := ", not decided at 95%", []string{d.Why}
	if d.Decided {
		s, why = ", decided at 95%", nil
		if d.By != "" {
			why = []string{d.By}
		}
	}
	why = append(why, d.Unproven...)
	if brief || len(why) == 0 {
		return s
	}
	return s + " (" + strings.Join(why, "; ") + ")"
}
