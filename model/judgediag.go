package model

import (
	"fmt"
	"time"
)

// SayHealthy is the kind of the statement a diagnosis makes when no finding held and
// no request failed; SayUnnamed when requests failed but too few at a time for a rule
// to name a cause (never "nothing wrong" beside failures).
const (
	SayHealthy = "nothing-wrong"
	SayUnnamed = "failures-unnamed"
)

// DiagnosisStatements is what the judgement says of a diagnosis: each finding as a
// statement with its evidence and when it held ("from 21 s to 31 s"), in the order
// given (most telling first); with none, once some of requests ended, that nothing
// wrong was seen ("nothing wrong seen (570 requests)"), or, when failed of them failed
// (the run's failures, or the live screen's of the last minute), that no cause was
// named for them ("3 requests failed and no cause was named: too few at a time to tell
// why"). diagnosed says the diagnosis
// watched the run: a file that does not say so (an older tpsmon's) says nothing of it.
// Every surface (the screen's diagnosis line and its d view, bench's Markdown, the
// reports, replay) says the diagnosis with these statements.
func DiagnosisStatements(fs []Finding, requests, failed int, diagnosed bool) []Statement {
	if len(fs) == 0 {
		if !diagnosed || requests == 0 {
			return nil
		}
		if failed > 0 {
			return []Statement{{Kind: SayUnnamed, Severity: SevWarning,
				Text: Plural(failed, "request") + " failed and no cause was named: too few at a time to tell why"}}
		}
		return []Statement{{Kind: SayHealthy, Severity: SevInfo, Text: NothingWrong + " (" + Plural(requests, "request") + ")"}}
	}
	out := make([]Statement, 0, len(fs))
	for _, f := range fs {
		sev := f.Severity
		if sev == "" {
			sev = SevInfo
		}
		out = append(out, Statement{Kind: f.Rule, Severity: sev, Text: f.Text, Evidence: f.Evidence, Held: heldWords(f)})
	}
	return out
}

// heldWords says when a finding held: "at 20 s", "from 21 s to 31 s"; "" when it was
// not tracked (both times 0).
func heldWords(f Finding) string {
	if f.FirstS == 0 && f.LastS == 0 {
		return ""
	}
	first, last := RunTime(f.FirstS), RunTime(f.LastS)
	if first == last {
		return "at " + first
	}
	return "from " + first + " to " + last
}

// RunTime says a time of the run, given in seconds since its start, in whole seconds:
// "8 s", "2 min 5 s", "3 min".
func RunTime(s float64) string { return runSpan(time.Duration(s * float64(time.Second))) }

// runSpan is a span of run time in whole seconds: "8 s", "2 min 5 s", "3 min".
func runSpan(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 120 {
		return fmt.Sprintf("%d s", s)
	}
	if s%60 == 0 {
		return fmt.Sprintf("%d min", s/60)
	}
	return fmt.Sprintf("%d min %d s", s/60, s%60)
}

// requestsOf is how many requests ended over e's levels, and how many of them failed.
func (e *ReportEndpoint) requestsOf() (n, failed int) {
	for i := range e.Levels {
		n += e.Levels[i].Requests
		for _, k := range e.Levels[i].Errors {
			failed += k
		}
	}
	return n, failed
}
