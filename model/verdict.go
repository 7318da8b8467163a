package model

import "strings"

// verdict is capacity, how sure it is, and saturation in one sentence, e.g. "capacity 22
// users, decided at 95% (23 users fails: per-user p50 29.8 tok/s < 30 tok/s); saturates
// at 32 users (740 tok/s; doubling to 64 users adds less than 10%)". The decision's
// reasons are left out of the medium and short forms.
func (j *EndpointJudgement) verdict() Statement {
	c, s := j.capacityWords(), j.saturationWords()
	sev := SevInfo
	switch j.Capacity.Kind {
	case CapNone:
		sev = SevProblem
	case CapNotMeasured:
		sev = SevWarning
	}
	d := j.Capacity.Decision
	return Statement{Kind: SayVerdict, Severity: sev, Text: c.Text + d.words(false) + "; " + s.Text,
		Medium: c.Text + d.words(true) + "; " + s.ShortText(), Short: c.ShortText() + d.words(true) + "; " + s.ShortText()}
}

// capacityWords says the capacity: "capacity 16 users", "capacity at least 16 users
// (limit not reached: the ramp goes on)", "capacity none: no level measured in full meets
// the criteria (1 user: TTFT p95 3.10 s > 2 s)", "capacity not measured (...)".
func (j *EndpointJudgement) capacityWords() Statement {
	c := j.Capacity
	name := j.LevelName(c.Level)
	switch c.Kind {
	case CapExact:
		return Statement{Text: "capacity " + name}
	case CapAtLeast:
		return Statement{Text: "capacity at least " + name + " (limit not reached: " + c.Why + ")", Short: "capacity at least " + name}
	case CapNone:
		return Statement{Text: "capacity none: no level measured in full meets the criteria (" + c.Why + ")", Short: "capacity none (" + c.Why + ")"}
	}
	return Statement{Text: "capacity not measured (" + c.Why + ")", Short: "capacity not measured"}
}

// saturationWords says the saturation: "saturates at 16 users (740 tok/s: 32 users add
// less than 10%)", "saturation not reached (...)", "saturation not measured (...)".
func (j *EndpointJudgement) saturationWords() Statement {
	s := j.Saturation
	load := LoadName(j.Rate)
	skipped := ""
	if len(s.Skipped) > 0 {
		skipped = "; " + j.LevelNames(s.Skipped) + " not measured in full"
	}
	if len(s.Failed) > 0 {
		skipped += "; " + j.LevelNames(s.Failed) + ": every request failed"
	}
	switch s.Kind {
	case SatAt:
		at := "saturates at " + j.LevelName(s.Level) + " (" + TokPerS(s.AggregateTPS)
		return Statement{Text: at + "; doubling to " + j.LevelName(s.Next) + " adds less than 10%" + skipped + ")", Short: at + ")"}
	case SatNotReached:
		return Statement{Text: "saturation not reached (every doubling of " + load + " added at least 10% aggregate tok/s" + skipped + ")",
			Short: "saturation not reached"}
	}
	twice := "twice its " + strings.TrimPrefix(load, "the ")
	return Statement{Text: "saturation not measured (no level measured in full was followed by one with " + twice + skipped + ")",
		Short: "saturation not measured"}
}

// ReportLevels are levels as a report keeps them, without their histograms and steady
// windows: what the live screen judges, once a second, from its book.
func ReportLevels(levels []LevelStats) []ReportLevel {
	out := make([]ReportLevel, len(levels))
	for i := range levels {
		out[i] = levels[i].Report()
	}
	return out
}
