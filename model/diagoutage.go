package model

import (
	"fmt"
	"math"
	"time"
)

// DiagnoseOutage: the server cannot be reached, requests failing in a row (at least 3
// over at least 2 s, none answered since): "the server is down: connections refused
// for 8 s, 12 requests in a row (its last answer at 20 s)"; when it never answered,
// "tpsmon cannot reach the server: ...". With no load asked since (Idle) for 2 s, it
// says what it last saw, not that the server is down now, the news first (a line cut
// at the screen's width keeps it): "the server was down when last tried at 21 s:
// 12 requests in a row failed (connections refused) from 19 s (its last answer at 19 s)",
// with "; its /metrics answers again" after the time when a scrape read it since.
func DiagnoseOutage(in DiagInput) (Finding, bool) {
	o := in.Outage
	if o == nil || !o.holds(in.Now) {
		return Finding{}, false
	}
	if in.Idle && !o.Last.IsZero() && in.Now.Sub(o.Last) >= outageSpan {
		return lastTried(&in, o), true
	}
	f := Finding{Rule: DiagDown, Severity: SevProblem, Evidence: []string{
		fmt.Sprintf("%s failed to reach the server in a row since %s", Plural(o.Failed, "request"), runAt(in.Start, o.From))}}
	if o.Msg != "" {
		f.Evidence = append(f.Evidence, "last error: "+o.Msg)
	}
	span := runSpan(in.Now.Sub(o.From))
	if o.Answered {
		f.Text = fmt.Sprintf("the server is down: %s for %s, %s in a row (its last answer at %s)",
			o.Cause, span, Plural(o.Failed, "request"), runAt(in.Start, o.LastOK))
	} else {
		f.Text = fmt.Sprintf("tpsmon cannot reach the server: %s for %s, %s in a row", o.Cause, span, Plural(o.Failed, "request"))
	}
	return f, true
}

// lastTried is DiagnoseOutage's finding while no load is asked: what the requests last
// met, and whether the server's /metrics answered since.
func lastTried(in *DiagInput, o *Outage) Finding {
	who := "the server was down when last tried"
	if !o.Answered {
		who = "tpsmon could not reach the server when last tried"
	}
	f := Finding{Rule: DiagDown, Severity: SevProblem, Evidence: []string{
		fmt.Sprintf("%s failed to reach the server in a row from %s to %s; no load asked since", Plural(o.Failed, "request"),
			runAt(in.Start, o.From), runAt(in.Start, o.Last))}}
	if o.Msg != "" {
		f.Evidence = append(f.Evidence, "last error: "+o.Msg)
	}
	f.Text = who + " at " + runAt(in.Start, o.Last)
	if n := len(in.Server); n > 0 && in.Server[n-1].Time.After(o.Last) {
		f.Text += "; its /metrics answers again"
		f.Severity = SevWarning
	}
	f.Text += fmt.Sprintf(": %s in a row failed (%s) from %s", Plural(o.Failed, "request"), o.Cause, runAt(in.Start, o.From))
	if o.Answered {
		f.Text += " (its last answer at " + runAt(in.Start, o.LastOK) + ")"
	}
	return f
}

// DiagnoseBack: for 30 s after an outage ended, and only while most answers since
// succeed: "the server is back after 10 s down: requests succeed again since 31 s
// (connections refused from 21 s, 15 requests failed)"; without its length when nothing
// failed over its last part ("the server is back: requests succeed again since 45 s
// (connections refused from 19 s to 20 s, 9 requests failed)"). Never after a single
// error: only an outage ends with the server back.
func DiagnoseBack(in DiagInput) (Finding, bool) {
	if len(in.Ended) == 0 || in.Outage != nil && in.Outage.holds(in.Now) {
		return Finding{}, false
	}
	o := in.Ended[len(in.Ended)-1]
	if in.Now.Sub(o.To) >= backHold || in.Answers == 0 || 2*in.OKs < in.Answers {
		return Finding{}, false
	}
	f := Finding{Rule: DiagBack, Severity: SevInfo,
		Text: fmt.Sprintf("the server is back after %s down: requests succeed again since %s (%s from %s, %s failed)",
			outageLasted(in.Start, o), runAt(in.Start, o.To), o.Cause, runAt(in.Start, o.From), Plural(o.Failed, "request")),
		Evidence: []string{fmt.Sprintf("%d of %d answers since %s succeeded", in.OKs, in.Answers, runAt(in.Start, o.To))}}
	if o.untried() {
		f.Text = fmt.Sprintf("the server is back: requests succeed again since %s (%s from %s to %s, %s failed)",
			runAt(in.Start, o.To), o.Cause, runAt(in.Start, o.From), runAt(in.Start, o.Last), Plural(o.Failed, "request"))
	}
	return f, true
}

// OutageFindings are a run's outages as findings for its report: each ended one in the
// past tense ("the server was down for 10 s: connections refused from 21 s to 31 s, 15
// requests failed"; when nothing failed over its last part, Outage.untried: "the
// server was down from 19 s, back by 45 s: connections refused from 19 s to 20 s, 9
// requests failed"), the one going on at now as DiagnoseOutage says it, each seen from
// its first failure to its end.
func OutageFindings(start, now time.Time, ended []Outage, current *Outage) []Finding {
	var out []Finding
	at := func(t time.Time) float64 { return math.Round(max(t.Sub(start).Seconds(), 0)*10) / 10 }
	for _, o := range ended {
		who := "the server was down"
		if !o.Answered {
			who = "tpsmon could not reach the server"
		}
		f := Finding{Rule: DiagDown, Severity: SevProblem, FirstS: at(o.From), LastS: at(o.To),
			Text: fmt.Sprintf("%s for %s: %s from %s to %s, %s failed", who, outageLasted(start, o), o.Cause,
				runAt(start, o.From), runAt(start, o.To), Plural(o.Failed, "request"))}
		if o.untried() {
			f.Text = fmt.Sprintf("%s from %s, back by %s: %s from %s to %s, %s failed", who, runAt(start, o.From),
				runAt(start, o.To), o.Cause, runAt(start, o.From), runAt(start, o.Last), Plural(o.Failed, "request"))
		}
		if o.Msg != "" {
			f.Evidence = []string{"last error: " + o.Msg}
		}
		out = append(out, f)
	}
	if current != nil {
		if f, ok := DiagnoseOutage(DiagInput{Outage: current, Start: start, Now: now}); ok {
			f.FirstS, f.LastS = at(current.From), at(now)
			out = append(out, f)
		}
	}
	return out
}

// stoppedMin is the failures to reach the server in a row, at the run's end, that
// StoppedAtEnd says: never one.
const stoppedMin = 2

// StoppedAtEnd says what the run ended on when its last requests failed to reach the
// server in a row (o, the recorder's streak at now) too few or too briefly for an
// outage: a stop rule ends the ramp within a second of a server going down, as every
// user's next request is refused at once, before DiagnoseOutage can tell a blip from an
// outage (3 in a row over 2 s). "the server stopped answering as the run ended:
// the last 4 requests failed (connections refused) from 20 s (its last answer at 20 s); the
// run ended before tpsmon could tell for how long". At least 2 of them; never when o holds.
func StoppedAtEnd(start, now time.Time, o Outage) (Finding, bool) {
	if o.Failed < stoppedMin || o.holds(now) {
		return Finding{}, false
	}
	at := math.Round(max(o.From.Sub(start).Seconds(), 0)*10) / 10
	f := Finding{Rule: DiagStopped, Severity: SevProblem, FirstS: at, LastS: math.Round(max(now.Sub(start).Seconds(), 0)*10) / 10,
		Evidence: []string{fmt.Sprintf("%s in a row failed to reach the server from %s to the end; an outage is said after %d over %s",
			Plural(o.Failed, "request"), runAt(start, o.From), outageMin, runSpan(outageSpan))}}
	if o.Msg != "" {
		f.Evidence = append(f.Evidence, "last error: "+o.Msg)
	}
	last := fmt.Sprintf("the last %s failed (%s) from %s", Plural(o.Failed, "request"), o.Cause, runAt(start, o.From))
	if o.Answered {
		f.Text = fmt.Sprintf("the server stopped answering as the run ended: %s (its last answer at %s); the run ended before tpsmon could tell for how long",
			last, runAt(start, o.LastOK))
	} else {
		f.Text = "tpsmon could not reach the server as the run ended: " + last + "; the run ended before tpsmon could tell for how long"
	}
	return f, true
}

// outageLasted is how long outage o lasted, as the times it is said between read: from
// 5 s to 11 s is 6 s, whatever the fractions of a second before rounding.
func outageLasted(start time.Time, o Outage) string {
	if start.IsZero() || o.From.Before(start) {
		return runSpan(o.To.Sub(o.From))
	}
	return runSpan(o.To.Sub(start).Round(time.Second) - o.From.Sub(start).Round(time.Second))
}

// outageSpans are the spans of the outages in the input (the one going on up to now,
// also before it holds), widened a little: streams cut as a server goes down belong
// to its outage.
func outageSpans(in *DiagInput) [][2]time.Time {
	var out [][2]time.Time
	for _, o := range in.Ended {
		out = append(out, [2]time.Time{o.From.Add(-outageSpan), o.To})
	}
	if in.Outage != nil {
		out = append(out, [2]time.Time{in.Outage.From.Add(-outageSpan), in.Now})
	}
	return out
}

// inOutage reports whether t falls in one of spans.
func inOutage(spans [][2]time.Time, t time.Time) bool {
	for _, s := range spans {
		if !t.Before(s[0]) && !t.After(s[1]) {
			return true
		}
	}
	return false
}
