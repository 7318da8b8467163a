package model

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// stallNotable is the longest gap between two chunks worth a statement: a pause a
// reader notices.
const stallNotable = 1000.0 // ms

// goodputNotable is the goodput below which a level that meets the criteria is worth a
// statement: its p50 and p95 hide that many requests missed their own targets.
const goodputNotable = 0.9

// lengthNotable is the relative gap between the prompt asked for and the input tokens
// the server counted that is worth a word on why.
const lengthNotable = 0.05

// notes are the judgement's statements beside the verdict, most telling first.
func (j *EndpointJudgement) notes(s *ReportSettings, e *ReportEndpoint) []Statement {
	var out []Statement
	add := func(st Statement, ok bool) {
		if ok {
			out = append(out, st)
		}
	}
	add(j.rampNote(s, e))
	add(j.refinedNote())
	add(j.lateNote())
	out = append(out, j.levelNotes()...)
	add(j.errorsNote(e))
	add(j.ttfoNote(s, e))
	add(j.stallsNote(e))
	add(j.goodputNote(e))
	out = append(out, j.serverNotes(e)...)
	add(lengthsNote(s, e))
	rank := map[Severity]int{SevProblem: 0, SevWarning: 1, SevInfo: 2}
	slices.SortStableFunc(out, func(a, b Statement) int { return rank[a.Severity] - rank[b.Severity] })
	return out
}

// levelNotes list each level that meets the criteria but was not measured in full:
// listed, not judged (one that fails is listed with its failures, Failing).
func (j *EndpointJudgement) levelNotes() []Statement {
	var out []Statement
	for _, l := range j.Levels {
		if l.Meets && (l.State == LevelShort || l.State == LevelFew || l.State == LevelUndecided) {
			out = append(out, Statement{Kind: SayLevels, Severity: SevWarning,
				Text: l.Name + ": " + l.StateWords + "; listed, not judged"})
		}
	}
	return out
}

// refinedNote names the levels the capacity's bisection added between the ramp's:
// "capacity refined by bisection: 20 and 24 users added between the ramp's levels".
func (j *EndpointJudgement) refinedNote() (Statement, bool) {
	var refined []int
	for _, l := range j.Levels {
		if l.Refined {
			refined = append(refined, l.Level)
		}
	}
	if len(refined) == 0 {
		return Statement{}, false
	}
	return Statement{Kind: SayRefined, Severity: SevInfo,
		Text: "capacity refined by bisection: " + LevelNames(j.Rate, refined) + " added between the ramp's levels"}, true
}

// rampNote says how the ramp ended and which levels of it were not measured: "ramp
// stopped early by a stop rule at 16 users: errors 40% > 5% (10 requests) when it
// stopped; not measured: 32 and 64 users". A trace run's is its replay's: "trace replay finished: every window
// was replayed" (a window is replayed on its schedule, never "held": that word is the
// verdict's).
func (j *EndpointJudgement) rampNote(s *ReportSettings, e *ReportEndpoint) (Statement, bool) {
	end := e.RampEnd
	if end == "" {
		return Statement{}, false
	}
	ramp, level := "ramp", "level"
	if j.Trace != nil {
		ramp, level = "trace replay", "window"
	}
	st := Statement{Kind: SayRamp, Severity: SevInfo}
	switch end {
	case RampEndFinished:
		st.Text = ramp + " finished: every " + level + " was held"
		if j.Trace != nil {
			st.Text = ramp + " finished: every window was replayed"
		}
		var short, undecided []int
		for _, l := range j.Levels {
			switch l.State {
			case LevelShort:
				short = append(short, l.Level)
			case LevelUndecided:
				undecided = append(undecided, l.Level)
			}
		}
		switch {
		case len(short) > 0 && j.Trace != nil:
			st.Text += "; " + j.LevelNames(short) + " had fewer steady requests than a window needs (short)"
		case len(short) > 0:
			st.Text += "; the maximum hold came first at " + j.LevelNames(short) + " (short)"
		}
		if len(undecided) > 0 {
			st.Text += "; " + j.LevelNames(undecided) + " reached the maximum hold undecided"
		}
		return st, true
	case RampEndMaxDuration:
		st.Text, st.Severity = ramp+" cut by the run's maximum duration", SevWarning
	case RampEndInterrupted:
		st.Text, st.Severity = ramp+" interrupted (Ctrl-C or a signal) before its last "+level, SevWarning
	case RampEndManual:
		st.Text = ramp + " stopped by hand on the live screen (a key)"
	default:
		why, ok := strings.CutPrefix(end, RampEndStopped+": ")
		if !ok {
			st.Text = ramp + ": " + end
			return st, true
		}
		at := ""
		for i := range e.Levels {
			if e.Levels[i].Stopped {
				at = " at " + j.LevelName(e.Levels[i].Concurrency)
			}
		}
		// The rule's figures are the level's when it stopped: the requests then in
		// flight end in its row after it (27.27% of 11 requests then, 20% of 15 in the row).
		st.Text = ramp + " stopped early by a stop rule" + at + ": " + why + " when it stopped"
	}
	if left := unreached(s.Ramp, e.Levels); len(left) > 0 {
		st.Text += "; not measured: " + j.LevelNames(left)
	}
	return st, true
}

// unreached is the levels of the ramp above every level with requests.
func unreached(ramp []int, levels []ReportLevel) []int {
	top := 0
	for i := range levels {
		if levels[i].Requests > 0 {
			top = max(top, levels[i].Concurrency)
		}
	}
	var out []int
	for _, c := range ramp {
		if c > top && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// errorsNote counts the failures over every level by kind: "errors: 15 of 700 requests
// failed (http_500 12, truncated 3)"; a problem when more than the limit's share failed.
func (j *EndpointJudgement) errorsNote(e *ReportEndpoint) (Statement, bool) {
	kinds := map[string]int{}
	requests, failed := 0, 0
	for i := range e.Levels {
		l := &e.Levels[i]
		requests += l.Requests
		failed += l.Requests - l.Succeeded
		for k, n := range l.Errors {
			kinds[k] += n
		}
	}
	if failed <= 0 {
		return Statement{}, false
	}
	sev := SevWarning
	for _, l := range j.Levels {
		for _, f := range l.Failures {
			if strings.HasPrefix(f, "errors ") && l.State.Bounds() {
				sev = SevProblem
			}
		}
	}
	return Statement{Kind: SayErrors, Severity: sev,
		Text: "errors: " + strconv.Itoa(failed) + " of " + Plural(requests, "request") + " failed (" + kindWords(kinds) + ")"}, true
}

// kindWords is failures by kind in name order: "http_500 12, client 2 not charged".
func kindWords(kinds map[string]int) string {
	var parts []string
	for _, k := range sortedKinds(kinds) {
		if n := kinds[k]; n > 0 {
			p := k + " " + strconv.Itoa(n)
			if !ErrorKind(k).Charged() {
				p += " not charged"
			}
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// ttfoNote says, for a reasoning model, when the answer starts: "reasoning: the answer's
// first token (TTFO) p50 1.75 s, p95 2.10 s at 1 user; at 8 users 2.61 s, 3.02 s (TTFT
// p50 30.6 ms: the thinking starts at once)". A warning when TTFO p95 is over the TTFT
// limit at a level judged while the criteria do not judge TTFO.
func (j *EndpointJudgement) ttfoNote(s *ReportSettings, e *ReportEndpoint) (Statement, bool) {
	if !j.TTFO {
		return Statement{}, false
	}
	var with []*ReportLevel
	for i := range e.Levels {
		if e.Levels[i].TTFTMs != (LatencyJSON{}) {
			with = append(with, &e.Levels[i])
		}
	}
	if len(with) == 0 {
		return Statement{}, false
	}
	at := func(l *ReportLevel) string {
		if l.TTFOMs == (LatencyJSON{}) {
			return "no answer token at " + j.LevelName(l.Concurrency) + " (every answer was all reasoning)"
		}
		return "p50 " + Millis(l.TTFOMs.P50) + ", p95 " + Millis(l.TTFOMs.P95) + " at " + j.LevelName(l.Concurrency)
	}
	lo, hi := with[0], with[len(with)-1]
	text := "reasoning: the answer's first token (TTFO) " + at(lo)
	if hi != lo {
		text += "; " + at(hi)
	}
	text += " (TTFT p50 " + Millis(lo.TTFTMs.P50) + " at " + j.LevelName(lo.Concurrency) + ": the thinking streams first)"
	st := Statement{Kind: SayTTFO, Severity: SevInfo, Text: text}
	slo := s.SLO.SLO()
	if slo.TTFOP95Max <= 0 {
		for i, l := range e.Levels {
			if j.Levels[i].State.Decides() && l.TTFOMs.P95 > ms(slo.TTFTP95Max) {
				st.Severity = SevWarning
				st.Text += "; the criteria judge TTFT only: add ttfo_p95 to --slo to judge the wait for the answer"
				break
			}
		}
	}
	return st, true
}

// stallsNote says the longest pause between two chunks when a reader would notice it:
// "stalls: a stream paused 3.02 s between two chunks at 8 users (stall p95 1.20 s)".
func (j *EndpointJudgement) stallsNote(e *ReportEndpoint) (Statement, bool) {
	var worst *ReportLevel
	for i := range e.Levels {
		l := &e.Levels[i]
		if l.StallMs.Max >= stallNotable && (worst == nil || l.StallMs.Max > worst.StallMs.Max) {
			worst = l
		}
	}
	if worst == nil {
		return Statement{}, false
	}
	return Statement{Kind: SayStalls, Severity: SevWarning, Text: "stalls: a stream paused " + Millis(worst.StallMs.Max) +
		" between two chunks at " + j.LevelName(worst.Concurrency) + " (stall p95 " + Millis(worst.StallMs.P95) + ")"}, true
}

// goodputNote says when a level that meets the criteria hides requests that missed
// their own targets: "goodput at 8 users: 82% of requests met TTFT and their own tok/s
// targets (41 of 50), although the level meets the criteria".
func (j *EndpointJudgement) goodputNote(e *ReportEndpoint) (Statement, bool) {
	for i := len(e.Levels) - 1; i >= 0; i-- {
		l, lj := &e.Levels[i], j.Levels[i]
		g := l.Goodput
		if lj.State.Decides() && lj.Meets && g.Judged > 0 && g.Share < goodputNotable {
			return Statement{Kind: SayGoodput, Severity: SevWarning, Text: fmt.Sprintf(
				"goodput at %s: %s of requests met TTFT and their own tok/s targets (%d of %d), although the level meets the criteria",
				lj.Name, FormatPercent(g.Share), g.Met, g.Judged)}, true
		}
	}
	return Statement{}, false
}

// serverNotes are the cross-check of the server's generated tokens against the tokens
// tpsmon received, at each level where they are over 10% apart over a steady window of
// at least 5 of the server's scrapes (a level being measured or only warmed up says
// nothing yet).
func (j *EndpointJudgement) serverNotes(e *ReportEndpoint) []Statement {
	var out []Statement
	for i := range e.Levels {
		l := &e.Levels[i]
		r, ok := ServerGap(l.Server, l.AggregateTPS)
		st := j.Levels[i].State
		if !ok || l.DurationS <= 0 || l.Server.Scrapes < gapScrapes || st == LevelOpen || st == LevelNotMeasured {
			continue
		}
		why := "another client on the same server, a proxy, or tpsmon falling behind"
		if r < 1 {
			why = "its /metrics may cover one replica of several"
		}
		out = append(out, Statement{Kind: SayServer, Severity: SevWarning, Text: fmt.Sprintf(
			"cross-check at %s: the server generated %.2fx what tpsmon received (%s)", j.Levels[i].Name, r, why)})
	}
	return out
}

// lengthsNote says why the input tokens the server counted differ from the synthetic
// prompt's size: "prompt: about 128 tokens asked; the server counted 152 on average
// (usage.prompt_tokens: its own tokenizer, and the chat template around the message;
// tpsmon counts a word a token)".
func lengthsNote(s *ReportSettings, e *ReportEndpoint) (Statement, bool) {
	if s.PromptTokens <= 0 || s.Workload != "" {
		return Statement{}, false
	}
	sum, n := 0.0, 0
	for i := range e.Levels {
		in := e.Levels[i].Lengths.Input
		sum += in.Mean * float64(in.Count)
		n += in.Count
	}
	if n == 0 {
		return Statement{}, false
	}
	mean := sum / float64(n)
	asked := float64(s.PromptTokens)
	if math.Abs(mean-asked) <= lengthNotable*asked {
		return Statement{}, false
	}
	why := "its own tokenizer"
	if api := cmpOr(e.API, s.API); api != "completions" {
		why += ", and the chat template around the message"
	}
	return Statement{Kind: SayLengths, Severity: SevInfo, Text: fmt.Sprintf(
		"prompt: about %d tokens asked (tpsmon's synthetic prompt counts a word a token); the server counted %s on average (usage.prompt_tokens: %s)",
		s.PromptTokens, fmtNum(mean, 0), why)}, true
}

// cmpOr is the first of a and b that is not empty.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
