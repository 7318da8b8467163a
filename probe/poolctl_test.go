package probe

import (
	"testing"

	"go.uber.org/goleak"
)

// TestPoolSetLevelLabels: a shard holds its share of a level and records it under the
// whole level's users; a new label opens a new segment even when the share stays the
// same, and a share of 0 records nothing.
func TestPoolSetLevelLabels(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p, rec, _ := startGated(t, g)
	p.SetLevel(1, 4) // shard 0/4 of a level of 4 users
	a := g.next(t)
	g.none(t)
	if p.Concurrency() != 1 {
		t.Fatalf("Concurrency() = %d, want the share 1", p.Concurrency())
	}
	a.finish(t)
	b := g.next(t)
	p.SetLevel(1, 5) // the next level (5 users) gives this shard 1 user again
	b.finish(t)
	c := g.next(t)
	p.SetLevel(0, 3) // a level whose share is 0: no segment
	c.finish(t)
	p.Stop()
	evs := rec.wait(t)
	checkEventOrder(t, evs)

	segs := lastSegmentStates(evs)
	if len(segs) != 2 || segs[1].Concurrency != 4 || segs[2].Concurrency != 5 {
		t.Fatalf("segments %+v, want segment 1 at 4 users and segment 2 at 5", segs)
	}
	var got [][2]int
	for _, s := range sampleEvents(evs) {
		got = append(got, [2]int{s.Segment, s.Concurrency})
	}
	want := [][2]int{{1, 4}, {1, 4}, {2, 5}}
	if len(got) != len(want) {
		t.Fatalf("samples (segment, users) %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d: (segment, users) %v, want %v", i, got[i], want[i])
		}
	}
}

// TestPoolSetConcurrencyIsItsOwnLabel: SetConcurrency(n) records under n and repeats
// open no segment.
func TestPoolSetConcurrencyIsItsOwnLabel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p, rec, _ := startGated(t, g)
	p.SetConcurrency(2)
	p.SetConcurrency(2)
	p.SetLevel(2, 0)
	a, b := g.next(t), g.next(t)
	p.Stop()
	a.finish(t)
	b.finish(t)
	segs := lastSegmentStates(rec.wait(t))
	if len(segs) != 1 || segs[1].Concurrency != 2 {
		t.Fatalf("segments %+v, want one at 2 users", segs)
	}
}
