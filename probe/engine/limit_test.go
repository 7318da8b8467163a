package engine

import (
	"testing"

	"github.com/tpsmon/tpsmon/probe"
)

// TestSetUsersKeepsWithinMaxStreams: the users of all endpoints together never exceed
// what the process can hold (Config.MaxStreams), and never probe.StreamCap, the one cap.
func TestSetUsersKeepsWithinMaxStreams(t *testing.T) {
	if MaxUsers != probe.StreamCap {
		t.Fatalf("MaxUsers %d, probe.StreamCap %d: two caps", MaxUsers, probe.StreamCap)
	}
	r := newRig(t, Config{MaxStreams: 500}, 2)
	r.e.SetUsers(0, 300)
	r.e.SetUsers(1, 300)
	if r.ctls[0].conc != 300 || r.ctls[1].conc != 200 {
		t.Errorf("users %d + %d, want 300 + 200 (500 in all)", r.ctls[0].conc, r.ctls[1].conc)
	}
	if got := r.e.Room(0); got != 300 {
		t.Errorf("Room(0) = %d, want 300", got)
	}
	r = newRig(t, Config{}, 1)
	r.e.SetUsers(0, 2*probe.StreamCap)
	if r.ctls[0].conc != probe.StreamCap || r.e.MaxStreams() != probe.StreamCap {
		t.Errorf("users %d (max %d), want the cap %d", r.ctls[0].conc, r.e.MaxStreams(), probe.StreamCap)
	}
}
