package ui

import (
	"strings"
	"testing"
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
