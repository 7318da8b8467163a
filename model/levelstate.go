package model

import (
	"strconv"
)

// LevelState is how a level was measured, which decides what tpsmon may claim from it
// (measurement contract, "Judgement"): only a level measured in full sets a capacity or
// a saturation; the others are listed and marked.
type LevelState int

// The level states, from the most sure.
const (
	// LevelFull: its level rule was met (the steady requests it needs, LevelNeed) and
	// the maximum hold did not come first, or came with every criterion decided. It may
	// decide capacity and saturation.
	LevelFull LevelState = iota
	// LevelStopped: a stop rule of the ramp ended it before its rule was met, because it
	// clearly fails (errors clearly over 5%, or TTFT p95 over twice its limit). It bounds
	// the capacity from above; its figures rest on fewer requests, so it never decides
	// a saturation.
	LevelStopped
	// LevelUndecided: its floor and hold were met, but the maximum hold came with a
	// criterion still undecided at 95% (ReportLevel.Undecided names them): it neither
	// sets nor bounds a capacity, and decides no saturation.
	LevelUndecided
	// LevelShort: the maximum hold came before the steady requests it needs.
	LevelShort
	// LevelFew: the load left it before its rule was met (a key on the live screen, an
	// interruption): too few steady requests to judge.
	LevelFew
	// LevelOpen: it is being measured now.
	LevelOpen
	// LevelNotMeasured: the load left it during its warm-up: no steady request
	// delivered a token and none failed.
	LevelNotMeasured
)

// Decides reports whether a level in this state may set a capacity or a saturation.
func (s LevelState) Decides() bool { return s == LevelFull }

// Bounds reports whether a level in this state that fails the criteria bounds the
// capacity from above (makes a capacity below it exact).
func (s LevelState) Bounds() bool { return s == LevelFull || s == LevelStopped }

// Mark is the state as a table marks a level's steady requests: "" when measured in
// full, else "short", "stopped", "undecided", "too few", "open" or "warm-up only"
// (LevelJudgement.Mark names an undecided level's criteria too).
func (s LevelState) Mark() string {
	switch s {
	case LevelStopped:
		return "stopped"
	case LevelUndecided:
		return "undecided"
	case LevelShort:
		return "short"
	case LevelFew:
		return "too few"
	case LevelOpen:
		return "open"
	case LevelNotMeasured:
		return "warm-up only"
	}
	return ""
}

// LevelNeed is how many steady requests a level of n users (in rate mode, n
// requests/s) needs to be measured in full: the floor the sequential level rule held
// every level for (MinRequests: MinFloor, or --min-requests), for a run that records
// it; max(20, 2 x users) for a fixed schedule and for a file written before the
// sequential rule (their levels were held for that many). A window of a trace needs 20
// (its number is no load).
func (s *ReportSettings) LevelNeed(n int) int {
	if s.TraceRun() {
		return MinSteady(1)
	}
	if s.MinRequests > 0 {
		return s.MinRequests
	}
	return MinSteady(n)
}

// MinFloor is the sequential level rule's least floor of steady requests: 8, the fewest
// whose median has an interval at the rule's confidence (the smallest and the largest
// of 8 requests hold the median with probability 1 - 2/256 = 99.2%). --min-requests
// raises it.
const MinFloor = 8

// LevelState reads how level l of a run with these settings was measured: the one
// reading of a level's state, that every surface and every claim uses. walking says an
// auto-ramp still walks the endpoint: its open level is then still being measured,
// whatever it has already. A file that does not count steady requests (written before
// they were counted) is judged on its requests instead.
func (s *ReportSettings) LevelState(l *ReportLevel, walking bool) LevelState {
	steady, _ := s.steadyOf(l)
	few := steady < s.LevelNeed(l.Concurrency)
	short := l.Short
	if s.TraceRun() { // a window ends on its schedule, its requests counted whenever they end
		short = l.Short && few
	}
	switch {
	case few && l.Stopped:
		return LevelStopped
	case l.Open && (walking || few):
		return LevelOpen
	case short:
		return LevelShort
	case len(l.Undecided) > 0:
		return LevelUndecided
	case !judgeReport(l).measured():
		return LevelNotMeasured
	case few:
		return LevelFew
	}
	return LevelFull
}

// LevelStateWords says level l's state with its figures, e.g. "short: 12 of 32 steady
// requests when the maximum hold (120 s) ended it", "undecided: TTFT p95 still
// undecided at 95% when the maximum hold (120 s) ended it"; "" when it was measured in
// full.
func (s *ReportSettings) LevelStateWords(l *ReportLevel, st LevelState) string {
	n, steady := s.steadyOf(l)
	need := s.LevelNeed(l.Concurrency)
	of := strconv.Itoa(n) + " of " + strconv.Itoa(need) + " steady requests"
	if !steady {
		of = strconv.Itoa(n) + " of " + strconv.Itoa(need) + " requests"
	}
	if n >= need && s.HoldS > 0 && l.DurationS < s.HoldS {
		of = seconds(l.DurationS) + " of its " + seconds(s.HoldS) + " hold" // the floor was met, not the hold
	}
	ended := " when the maximum hold ended it"
	if s.MaxHoldS > 0 {
		ended = " when the maximum hold (" + seconds(s.MaxHoldS) + ") ended it"
	}
	switch st {
	case LevelStopped:
		return "stopped by a stop rule after " + of
	case LevelUndecided:
		return "undecided: " + TermsWords(l.Undecided) + " still undecided at 95%" + ended
	case LevelShort:
		if s.TraceRun() {
			return "short: " + of + " in the window"
		}
		return "short: " + of + ended
	case LevelFew:
		return "too few: left after " + of
	case LevelOpen:
		return "being measured: " + of + " so far"
	case LevelNotMeasured:
		if l.DurationS > 0 {
			return "no steady answer: " + judgeReport(l).notMeasuredWords()
		}
		return "warm-up only: the load moved on before a steady request delivered a token (and none failed)"
	}
	return ""
}

// steadyOf is the steady requests level l counts toward its level rule: those that
// ended within it, as the rule counted them when it ended the level (its cool-down, in
// flight then, is in no distribution: a level left with 5 answers and 4 in flight has 5
// of 8, not 9). A trace's window counts its requests whenever they ended. steady is
// false for a file written before steady requests were counted (its level has a TTFT
// and no steady request), whose requests stand in for them.
func (s *ReportSettings) steadyOf(l *ReportLevel) (n int, steady bool) {
	if l.Steady == 0 && l.TTFTMs != (LatencyJSON{}) {
		return l.Requests, false
	}
	if s.TraceRun() {
		return l.Steady, true
	}
	return l.Steady - l.Cooldown, true
}
