package report

import (
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// TestErrorsCellSaysTheCooldownsFailures: a level's errors cell counts every failure
// (the levels' errors add up to the run's) and says those of its cool-down, which its
// error rate leaves out: "1 (0%: truncated 1)" read as a contradiction.
func TestErrorsCellSaysTheCooldownsFailures(t *testing.T) {
	l := model.ReportLevel{Concurrency: 4, Requests: 13, Succeeded: 12, Cooldown: 1,
		Errors: map[string]int{"truncated": 1}, CoolErrors: map[string]int{"truncated": 1}}
	if got, want := errorsCell(&l), "1 (0%: truncated 1 (1 in its cool-down))"; got != want {
		t.Errorf("cell %q, want %q", got, want)
	}
	l.CoolErrors = nil
	l.ErrorRate = 1.0 / 13
	if got, want := errorsCell(&l), "1 (7.69%: truncated 1)"; got != want {
		t.Errorf("cell %q, want %q", got, want)
	}
}
