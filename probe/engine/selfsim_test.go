package engine

import (
	"testing"

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
