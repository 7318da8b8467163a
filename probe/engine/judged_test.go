package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
)

// TestSelfWithSimOnlyInProcess: tpsmon's own CPU holds the simulator's only when the
// built-in simulator runs in tpsmon's process. A `tpsmon sim` in another terminal is
// simulated too, but the screen said "tpsmon+sim CPU" for it and turned the CPU rule
// off although its CPU is not tpsmon's.
func TestSelfWithSimOnlyInProcess(t *testing.T) {
	sim := []Part{{Endpoint: client.Endpoint{Name: "sim", Simulated: true}, Control: &fakeCtl{}}}
	for _, tc := range []struct {
		inProcess, want bool
	}{{false, false}, {true, true}} {
		e, err := New(Config{InProcessSim: tc.inProcess}, sim)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Self().WithSim; got != tc.want {
			t.Errorf("simulated endpoint, in process %v: WithSim %v, want %v", tc.inProcess, got, tc.want)
		}
	}
}

// TestReportAfterCutHasNoOpenLevel: a snapshot taken while a level is being measured
// says so (open), but the summary written when the screen quits (after Cut) does not:
// a level the run left unfinished is then "too few", never "being measured" (5 of the
// sequential rule's floor of 8 steady requests).
func TestReportAfterCutHasNoOpenLevel(t *testing.T) {
	r := newRig(t, Config{}, 1)
	r.steady(0, 2, at(0))
	r.done(0, 2, 5, 0, 100*time.Millisecond, at(time.Second))
	if l := r.e.Report(false).Endpoints[0].Levels[0]; !l.Open {
		t.Fatalf("the level being measured is not open in a snapshot: %+v", l)
	}
	r.e.Cut()
	rep := r.e.Report(true)
	if l := rep.Endpoints[0].Levels[0]; l.Open {
		t.Errorf("after Cut the level is still open: %+v", l)
	}
	if v := model.Judge(rep).Endpoints[0].Verdict.Text; !strings.Contains(v, "2 users too few: left after 5 of 8 steady requests") {
		t.Errorf("verdict %q", v)
	}
}
