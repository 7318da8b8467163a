package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/output/timeseries"
)

// TestReplayEndsOnTheRunsDiagnosis: at the end of a recording, replay says the run's
// diagnosis as its judgement said it (the End line: the same findings and words as
// bench's Markdown), not its last second's. A flaky server's run ended with the
// Markdown naming two problems while replay said "6 requests failed and no cause was
// named": the last second's diagnosis held nothing, and the last minute had failures.
func TestReplayEndsOnTheRunsDiagnosis(t *testing.T) {
	line := func(s float64) timeseries.Line {
		at := t0.Add(time.Duration(s * float64(time.Second)))
		l := timeseries.Line{Schema: timeseries.Schema, Time: at.Format(time.RFC3339Nano), ElapsedS: s, WidthS: 1,
			Endpoint: "flaky", TargetUsers: 4, Active: 4, Requests: 50 * int(s), Succeeded: 50*int(s) - 3*int(s),
			ErrorsTotal: map[model.ErrorKind]int{model.ErrTruncated: 3 * int(s)}}
		if s == 1 {
			l.Recorded = timeseries.RecordedKeys
		}
		return l
	}
	told := []timeseries.Told{
		{Kind: model.DiagStall, Severity: model.SevWarning, Words: "answers pause mid-stream: 19% of requests (5 of 26) paused, typically for 2.02 s",
			Evidence: []string{"the longest 2.03 s"}, Held: "from 1 s to 2 s"},
		{Kind: model.DiagServerErrors, Severity: model.SevProblem, Words: "streams cut mid-way: 6% of requests", Held: "at 2 s"},
	}
	end := timeseries.Line{Schema: timeseries.Schema, Time: line(2).Time, ElapsedS: 2, Endpoint: "flaky", End: true, RunDiagnosis: told}
	m, err := newReplay(ReplayOptions{Series: &timeseries.Series{Lines: []timeseries.Line{line(1), line(2), end}}, Name: "run.jsonl"}, true)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	m.Update(tickMsg(t0))
	m.Update(tickMsg(t0.Add(1500 * time.Millisecond)))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "diagnosis: 3 requests failed and no cause was named") {
		t.Errorf("at 1.5 s the live diagnosis is the recorded second's:\n%s", out)
	}
	m.Update(tickMsg(t0.Add(3 * time.Second)))
	out := ansi.Strip(m.View().Content)
	if !strings.Contains(out, "diagnosis: answers pause mid-stream: 19% of requests (5 of 26) paused, typically for 2.02 s (+1 more: d)") ||
		strings.Contains(out, "no cause was named") {
		t.Errorf("at the end replay does not say the run's diagnosis:\n%s", out)
	}
	m.Update(press("d"))
	out = ansi.Strip(m.View().Content)
	for _, w := range []string{"diagnosis of flaky, the run's", "! answers pause mid-stream: 19% of requests (5 of 26) paused, typically for 2.02 s (from 1 s to 2 s)",
		"the longest 2.03 s", "✗ streams cut mid-way: 6% of requests (at 2 s)"} {
		if !strings.Contains(out, w) {
			t.Errorf("d at the end lacks %q:\n%s", w, out)
		}
	}
	m.Update(press("home")) // back at the start, the run is not over
	if out = ansi.Strip(m.View().Content); strings.Contains(out, "the run's") {
		t.Errorf("back at the start, d still says the run's diagnosis:\n%s", out)
	}
}
