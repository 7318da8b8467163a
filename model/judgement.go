package model

import (
	"strings"
)

// Judgement is what tpsmon says about a run, computed once from its saved form (a
// Report: its settings, criteria and levels) so that every surface says the same: the
// live screen (which builds a ReportEndpoint from its book), bench's Markdown, the
// reports, replay and compare render it and never word a verdict of their own.
type Judgement struct {
	Criteria    string // the criteria in words (SLO.String)
	Interrupted bool
	Endpoints   []EndpointJudgement
}

// EndpointJudgement is one endpoint's judgement: each level's state and failures, the
// claims (capacity, saturation) drawn from the levels measured in full only, the verdict
// that says both in one sentence, the other statements and the diagnosis.
type EndpointJudgement struct {
	Name       string
	Rate       bool // the levels are arrival rates (requests/s), not users
	Levels     []LevelJudgement
	Capacity   CapacityClaim
	Saturation SaturationClaim
	// Verdict is capacity and saturation in one sentence: the sentence every surface
	// shows (Short on a narrow screen).
	Verdict Statement
	// Notes are the other statements, most telling first: levels listed but not judged,
	// reasoning (TTFO), stalls, errors by kind, goodput, the server's cross-check, the
	// prompt's length, how the ramp ended.
	Notes []Statement
	// Diagnosis holds the run's findings (ReportEndpoint.Diagnosis) as statements
	// (DiagnosisStatements): that nothing wrong was seen when the run was diagnosed and
	// none held.
	Diagnosis []Statement
	// TTFO says the first answer token came later than the first token at some level
	// (a reasoning model thinks first): every table shows TTFO beside TTFT.
	TTFO bool
	// Intervals says the levels carry their 95% intervals: the tables show them as ±
	// (Interval words) and the verdict says how sure the capacity is.
	Intervals bool
	// Trace, for a run that replayed a trace (its levels are the trace's windows), is
	// whether the endpoint held the trace's load: the claim in place of a capacity and a
	// saturation, which are then not measured. nil otherwise.
	Trace *TraceClaim
}

// Statement is one thing tpsmon says, with its weight and the figures behind it.
type Statement struct {
	Kind     string   // what it is about: a Say* name, or a diagnosis finding's kind
	Severity Severity // SevProblem, SevWarning or SevInfo
	Text     string   // the sentence, with its numbers
	Medium   string   // the sentence with fewer of its reasons, for a screen too narrow for Text ("": Short)
	Short    string   // the sentence for a narrow screen (Text when "")
	Evidence []string // figures behind the sentence that it does not hold itself
	Held     string   // when it held, for a diagnosis finding: "at 20 s", "from 21 s to 31 s" ("": not tracked)
}

// MediumText is Medium, or ShortText when there is no medium form.
func (s Statement) MediumText() string {
	if s.Medium != "" {
		return s.Medium
	}
	return s.ShortText()
}

// ShortText is Short, or Text when there is no shorter form.
func (s Statement) ShortText() string {
	if s.Short != "" {
		return s.Short
	}
	return s.Text
}

// The kinds of statements a judgement makes (a diagnosis statement has its finding's kind).
const (
	SayVerdict  = "verdict"
	SayLevels   = "levels"
	SayTTFO     = "ttfo"
	SayStalls   = "stalls"
	SayErrors   = "errors"
	SayGoodput  = "goodput"
	SayServer   = "server"
	SayLengths  = "lengths"
	SayRamp     = "ramp"
	SayFailures = "failures"
	SayRefined  = "refined"
	SayLate     = "late"
)

// LevelJudgement is one level as the judgement reads it.
type LevelJudgement struct {
	Level      int
	Name       string // "8 users", "1 request/s", "window 2 (60-120 s of the trace)"
	State      LevelState
	StateWords string   // the state with its figures; "" when measured in full
	Meets      bool     // it meets every criterion (its figures as saved)
	Failures   []string // each criterion it fails, with its figure and the limit
	// Refined says the capacity's bisection added the level (it is not on the ramp's
	// list); Undecided names the criteria (SLO terms) an undecided level stayed
	// undecided on.
	Refined   bool
	Undecided []string
	// SteadyTime says the level had a steady window (one not measured was then left
	// before a steady request ended, not in its warm-up).
	SteadyTime bool
}

// Mark is the level's state as a table marks it: State.Mark, with an undecided level's
// criteria ("undecided: TTFT p95"), and "no steady answer" for a level not measured that
// had steady time (not "warm-up only"); "" when measured in full.
func (l LevelJudgement) Mark() string {
	if l.State == LevelUndecided && len(l.Undecided) > 0 {
		return "undecided: " + TermsWords(l.Undecided)
	}
	if l.State == LevelNotMeasured && l.SteadyTime {
		return "no steady answer"
	}
	return l.State.Mark()
}

// Judge judges every endpoint of a report: a file read back, bench's result, a
// snapshot.
func Judge(r *Report) Judgement {
	j := Judgement{Criteria: r.Settings.SLO.SLO().String(), Interrupted: r.Interrupted}
	for i := range r.Endpoints {
		j.Endpoints = append(j.Endpoints, JudgeEndpoint(&r.Settings, &r.Endpoints[i], r.Interrupted, false))
	}
	return j
}

// JudgeEndpoint judges endpoint e of a run with settings s. interrupted says the run
// was cut short (a capacity found may be higher); walking that an auto-ramp still walks
// the endpoint (the live screen while its ramp goes on: the open level is not judged
// yet, and a capacity at the top is "at least").
func JudgeEndpoint(s *ReportSettings, e *ReportEndpoint, interrupted, walking bool) EndpointJudgement {
	slo := s.SLO.SLO()
	j := EndpointJudgement{Name: e.Name, Rate: s.Mode == "rate" || e.rateMode(), TTFO: e.ShowsTTFO()}
	if s.TraceRun() || e.TraceMode() {
		j.Rate, j.Trace = false, newTraceClaim(s, e)
	}
	for i := range e.Levels {
		l := &e.Levels[i]
		st := s.LevelState(l, walking)
		why := slo.failures(judgeReport(l))
		if st == LevelShort && !judgeReport(l).measured() {
			why = []string{"nothing measured: no steady request delivered a token before the maximum hold ended it"}
		}
		j.Levels = append(j.Levels, LevelJudgement{Level: l.Concurrency, Name: j.LevelName(l.Concurrency),
			State: st, StateWords: s.LevelStateWords(l, st), Meets: len(why) == 0, Failures: why,
			Refined: l.Refined, Undecided: l.Undecided, SteadyTime: l.DurationS > 0})
	}
	j.Intervals = hasIntervals(e.Levels)
	if j.Trace != nil { // no ramp: no capacity nor saturation, but the trace's load held or not
		j.Trace.judge(j.Levels)
		j.Capacity = CapacityClaim{Kind: CapNotMeasured, Why: "a trace replayed as recorded: no ramp"}
		j.Verdict = j.traceVerdict()
	} else {
		j.Capacity = judgeCapacity(j.Levels, interrupted, walking)
		j.Capacity.Decision = decideCapacity(j.Capacity, slo, j.Levels, e.Levels, walking)
		j.Saturation = judgeSaturation(j.Levels, e.Levels)
		j.Verdict = j.verdict()
	}
	j.Notes = j.notes(s, e)
	requests, failed := e.requestsOf()
	j.Diagnosis = DiagnosisStatements(e.Diagnosis, requests, failed, e.Diagnosed)
	return j
}

// LevelName names level n of the endpoint in its run's terms: users ("8 users"), an
// arrival rate ("8 requests/s"), or a window of the trace by its span ("window 2
// (60-120 s of the trace)").
func (j *EndpointJudgement) LevelName(n int) string {
	if j.Trace != nil {
		return j.Trace.windowName(n)
	}
	return LevelName(j.Rate, n)
}

// LevelNames names several levels at once: "16 and 32 users", "window 2 (...) and
// window 3 (...)".
func (j *EndpointJudgement) LevelNames(ns []int) string {
	if j.Trace == nil {
		return LevelNames(j.Rate, ns)
	}
	names := make([]string, len(ns))
	for i, n := range ns {
		names[i] = j.LevelName(n)
	}
	return Names(names)
}

// LevelColumn is the heading of the level column of the endpoint's tables: "users",
// "rate req/s" or "window".
func (j *EndpointJudgement) LevelColumn() string { return LevelColumn(j.Rate, j.Trace != nil) }

// Meets reports whether the endpoint met the criteria at some load the run claims: a
// capacity was found (exact or at least), or a trace's load was held.
func (j *EndpointJudgement) Meets() bool {
	if j.Trace != nil {
		return j.Trace.Held()
	}
	k := j.Capacity.Kind
	return k == CapExact || k == CapAtLeast
}

// Judged reports whether the endpoint has a verdict to show: some level was measured
// (not only warmed up, and not only being measured).
func (j *EndpointJudgement) Judged() bool {
	for _, l := range j.Levels {
		if l.State != LevelNotMeasured && l.State != LevelOpen {
			return true
		}
	}
	return false
}

// Failing lists the levels that fail the criteria, each "8 users: errors 4.55% > 1%",
// with the state of a level that was not measured in full ("16 users (short: 12 of 32
// steady requests ...): errors 6% > 1%"). A trace's verdict already names each window
// measured in full that failed, with what failed: only the others are listed.
func (j *EndpointJudgement) Failing() []string {
	var out []string
	for _, l := range j.Levels {
		if l.Meets || l.State == LevelOpen || l.Failures[0] == noRequest || (j.Trace != nil && l.State.Decides()) {
			continue
		}
		name := l.Name
		if l.State != LevelFull && l.State != LevelNotMeasured {
			name += " (" + l.StateWords + ")"
		}
		out = append(out, name+": "+strings.Join(l.Failures, "; "))
	}
	return out
}

// Level is the judgement of the level at n, ok false when there is none.
func (j *EndpointJudgement) Level(n int) (LevelJudgement, bool) {
	for _, l := range j.Levels {
		if l.Level == n {
			return l, true
		}
	}
	return LevelJudgement{}, false
}

// SetClaims sets e's capacity and saturation (results.json's capacity and
// saturation_users) from its judgement, so that the file and every surface agree.
func (e *ReportEndpoint) SetClaims(s *ReportSettings, interrupted bool) {
	j := JudgeEndpoint(s, e, interrupted, false)
	e.Capacity = j.Capacity.Report()
	e.SaturationUsers = nil
	if j.Saturation.Kind == SatAt {
		u := j.Saturation.Level
		e.SaturationUsers = &u
	}
}

// ShowsTTFO reports whether TTFO is worth showing beside TTFT: some answer token came,
// and at some level the first answer token came later than the first token (reasoning
// streamed first), or never came.
// Without reasoning both are the same times and TTFO says nothing more.
func (e *ReportEndpoint) ShowsTTFO() bool {
	some, differ := false, false
	for i := range e.Levels {
		l := &e.Levels[i]
		some = some || l.TTFOMs != (LatencyJSON{})
		differ = differ || l.TTFTMs != (LatencyJSON{}) && l.TTFOMs != l.TTFTMs
	}
	return some && differ // no TTFO anywhere: a file written before TTFO was measured
}

// Line is the statement on one line of text, its weight first when it is not mere
// information: "problem: TTFT rises because requests queue on the server (14 waiting)".
func (s Statement) Line() string {
	if s.Severity == SevProblem || s.Severity == SevWarning {
		return string(s.Severity) + ": " + s.Text
	}
	return s.Text
}

// HeldLine is Line with when the statement held, for a diagnosis finding: "problem: the
// server was down for 10 s: ... (from 21 s to 31 s)".
func (s Statement) HeldLine() string {
	if s.Held == "" {
		return s.Line()
	}
	return s.Line() + " (" + s.Held + ")"
}

// rateMode reports whether an endpoint's levels are arrival rates (rate mode).
func (e *ReportEndpoint) rateMode() bool {
	for i := range e.Levels {
		if e.Levels[i].Rate != nil {
			return true
		}
	}
	return false
}
