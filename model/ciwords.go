package model

import (
	"fmt"
	"strconv"
	"strings"
)

// DecisionWords says how sure a saved endpoint's capacity is, for the line after the
// capacity's words: ", decided at 95% (24 users fails: per-user p50 28.88 < 30 tok/s)",
// "; not decided at 95%: TTFT p95 of 22 users undecided", with a note on the shares the
// rule does not wait for ("errors not decided: 0 of 151 requests, under 3.4% at 95%").
// "" when nothing is measured, or the levels carry no intervals (a report written
// before them).
func (e *ReportEndpoint) DecisionWords(slo SLO) string {
	if !AnyMeasured(e.Levels) || !e.hasIntervals() {
		return ""
	}
	name := levelName(e)
	c := e.Capacity
	var s string
	var above *ReportLevel
	for i := range e.Levels {
		if l := &e.Levels[i]; l.Concurrency > c.Users && judgeReport(l).measured() && len(l.Undecided) == 0 {
			above = l
			break
		}
	}
	if c.Decided {
		s = ", decided at 95%"
		if above != nil {
			if why := slo.ReportFailures(above); len(why) > 0 {
				s += " (" + name(above.Concurrency) + " fails: " + why[0] + ")"
			}
		}
	} else {
		s = "; not decided at 95%: " + e.undecidedWhy(slo, above, name)
	}
	if u := e.Unproven(slo); len(u) > 0 {
		s += "; " + e.unprovenWords(u)
	}
	return s
}

// hasIntervals reports whether some level carries an interval.
func (e *ReportEndpoint) hasIntervals() bool {
	for i := range e.Levels {
		if e.Levels[i].CI95 != (LevelCI{}) {
			return true
		}
	}
	return false
}

// undecidedWhy says why the capacity is not decided: its level's criteria still
// undecided, an undecided level above it, or the level above not failing at 95%.
func (e *ReportEndpoint) undecidedWhy(slo SLO, above *ReportLevel, name func(int) string) string {
	c := e.Capacity
	for i := range e.Levels {
		l := &e.Levels[i]
		switch {
		case l.Concurrency == c.Users && c.Users > 0:
			if open := undecidedTerms(slo.ReportCalls(l)); len(open) > 0 {
				return TermsWords(open) + " of " + name(l.Concurrency) + " undecided"
			}
		case l.Concurrency > c.Users && len(l.Undecided) > 0:
			return name(l.Concurrency) + " stayed undecided (" + TermsWords(l.Undecided) + ")"
		}
	}
	if above != nil {
		return "the failure of " + name(above.Concurrency) + " is not decided"
	}
	if c.Users == 0 {
		return "the lowest level's failure is not decided"
	}
	return "the capacity's level is not decided"
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

// unprovenWords says what the capacity's level shows of its shares the rule did not wait
// for: "errors not decided: 0 of 151 requests, under 3.4% at 95%".
func (e *ReportEndpoint) unprovenWords(terms []string) string {
	var l *ReportLevel
	for i := range e.Levels {
		if e.Levels[i].Concurrency == e.Capacity.Users {
			l = &e.Levels[i]
		}
	}
	var parts []string
	for _, t := range terms {
		switch {
		case t == TermErrorRate && l != nil && l.CI95.ErrorRate != nil:
			failed := 0
			for k, n := range l.Errors {
				if ErrorKind(k).Charged() {
					failed += n
				}
			}
			parts = append(parts, fmt.Sprintf("errors not decided: %d of %d requests, under %s at 95%%",
				failed, l.Requests, FormatPercent(l.CI95.ErrorRate.Hi)))
		case t == TermGoodput && l != nil && l.CI95.Goodput != nil:
			parts = append(parts, fmt.Sprintf("goodput not decided: %d of %d requests, over %s at 95%%",
				l.Goodput.Met, l.Goodput.Judged, FormatPercent(l.CI95.Goodput.Lo)))
		default:
			parts = append(parts, TermWords(t)+" not decided")
		}
	}
	return strings.Join(parts, "; ")
}

// pm is a figure with its 95% interval as ±, one decimal: "30.6 ± 0.1"; the figure alone
// when the interval is missing, unbounded on a side, or narrower than the decimal.
func pm(v float64, iv *Interval) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if iv == nil || !iv.Bounded() || iv.Lo <= 0 {
		return s
	}
	d := strconv.FormatFloat(max(v-iv.Lo, iv.Hi-v), 'f', 1, 64)
	if d == "0.0" {
		return s
	}
	return s + " ± " + d
}

// levelMarks are what a level row adds to its steady requests: " (short)",
// " (undecided: TTFT p95)".
func levelMarks(l *ReportLevel) string {
	s := ""
	if l.Short {
		s += " (short)"
	}
	if len(l.Undecided) > 0 {
		s += " (undecided: " + TermsWords(l.Undecided) + ")"
	}
	return s
}

// writeLevelNotes writes the notes under a level table: what short, undecided and
// refined mean, when a level is so marked.
func writeLevelNotes(b *strings.Builder, e *ReportEndpoint) {
	var short, undecided bool
	var refined []string
	for i := range e.Levels {
		l := &e.Levels[i]
		short = short || l.Short
		undecided = undecided || len(l.Undecided) > 0
		if l.Refined {
			refined = append(refined, strconv.Itoa(l.Concurrency))
		}
	}
	if short {
		b.WriteString("short: the level reached its maximum hold before its floor of steady requests, its hold or its curve's precision (±5%) were met; its figures rest on too few requests and it decides nothing.\n")
	}
	if undecided {
		b.WriteString("undecided: the level reached its maximum hold with a criterion still undecided at 95% (its interval reaching both sides of the target); it decides no capacity.\n")
	}
	if len(refined) > 0 {
		fmt.Fprintf(b, "refined: %s were added between the ramp's levels to find the capacity.\n", strings.Join(refined, ", "))
	}
	if e.hasIntervals() {
		b.WriteString("±: the 95% confidence interval's half-width (distribution-free for per-user p50, a ratio estimate for aggregate tok/s).\n")
	}
}
