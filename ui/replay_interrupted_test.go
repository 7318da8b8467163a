package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/probe/output/timeseries"
)

// TestReplayJudgesAnInterruptedRun: a recording whose last lines say the run was
// interrupted is judged as results.json judges it: the ramp interrupted before its last
// level, and a capacity "at least" for that reason. Replay judged it as a run that had
// ended.
func TestReplayJudgesAnInterruptedRun(t *testing.T) {
	s, _ := recording(t, 25)
	judge := func(interrupted bool) (verdict, notes string) {
		ep := newReplayEndpoint()
		for i := range s.Lines {
			l := s.Lines[i]
			l.Interrupted = interrupted && i >= len(s.Lines)-2
			ep.apply(&l)
		}
		j := ep.judge()
		for _, n := range j.Notes {
			notes += n.Text + "\n"
		}
		return j.Verdict.Text, notes
	}
	v, notes := judge(true)
	if !strings.Contains(notes, "ramp interrupted (Ctrl-C or a signal)") {
		t.Errorf("an interrupted recording's judgement: %q, notes %q", v, notes)
	}
	if v, notes := judge(false); strings.Contains(v+notes, "interrupted") {
		t.Errorf("a recording that ended is judged interrupted: %q, notes %q", v, notes)
	}
}

// TestTableMarksLevelsNotMeasuredInFull: the level table marks every level the
// judgement does not read as measured in full, as bench's and the reports' tables do: a
// level the run left before a steady answer (interrupted 2 s into 8 users) read as a
// plain row beside the others, "—" and its aggregate, on the screen and in replay.
func TestTableMarksLevelsNotMeasuredInFull(t *testing.T) {
	s, _ := recording(t, 25)
	last := &s.Lines[len(s.Lines)-1]
	last.Levels = append(last.Levels, timeseries.Level{Users: 8, Requests: 2, Succeeded: 2, SteadyS: 2, AggregateTPS: 276})
	last.Interrupted = true
	m := newTestReplay(t, s)
	m.at(0)
	m.at(60 * time.Second)
	out := ansi.Strip(m.View().Content)
	if !strings.Contains(out, "- not measured in full: 8 users (no steady answer)") {
		t.Errorf("the table does not mark 8 users:\n%s", out)
	}
	row := slices.IndexFunc(strings.Split(out, "\n"), func(l string) bool {
		f := strings.Fields(l)
		return slices.Contains(f, "8") && slices.Contains(f, "276")
	})
	if row < 0 || !strings.Contains(strings.Split(out, "\n")[row], " 8      2- ") {
		t.Errorf("8 users' row is not marked:\n%s", out)
	}
}
