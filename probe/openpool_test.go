package probe

import (
	"context"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe/arrival"
)

// TestOpenPoolPacesArrivals: in rate mode requests start at the asked rate whatever the
// answers take (each lasts 300 ms, longer than the 20 ms between arrivals), the level is
// keyed by the rate, and every Sample says it was an arrival.
func TestOpenPoolPacesArrivals(t *testing.T) {
	s := &timedStreamer{ttft: 50 * time.Millisecond, gaps: []time.Duration{25 * time.Millisecond}, chunks: []int{10}}
	p := NewPool(0, s, WithOpenLoop(arrival.Constant, 1, 0))
	log := logEvents(p.Run(context.Background()))
	p.SetConcurrency(50)
	time.Sleep(time.Second)
	p.Stop()
	samples := sampleEvents(log.wait(t))
	if n := len(samples); n < 45 || n > 55 {
		t.Fatalf("%d requests in 1 s at 50/s, want about 50", n)
	}
	for _, sm := range samples {
		if !sm.OpenLoop || sm.Concurrency != 50 || sm.Capped {
			t.Fatalf("sample: open loop %v, level %d, capped %v; want true, 50, false", sm.OpenLoop, sm.Concurrency, sm.Capped)
		}
	}
}

// TestOpenPoolCapWaits: with a cap of 2 streams of 200 ms each, arrivals at 50/s find
// the cap full: they wait on tpsmon's side, are flagged, and never more than 2 are in
// flight.
func TestOpenPoolCapWaits(t *testing.T) {
	s := &timedStreamer{ttft: 100 * time.Millisecond, gaps: []time.Duration{50 * time.Millisecond}, chunks: []int{3}}
	p := NewPool(0, s, WithOpenLoop(arrival.Constant, 1, 2))
	log := logEvents(p.Run(context.Background()))
	p.SetConcurrency(50)
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if a := p.Active(); a > 2 {
			t.Fatalf("%d requests in flight under a cap of 2", a)
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Stop()
	samples := sampleEvents(log.wait(t))
	capped, waited := 0, time.Duration(0)
	for _, sm := range samples {
		if sm.Capped {
			capped++
		}
		waited = max(waited, sm.ClientWait)
	}
	if capped == 0 || waited < 100*time.Millisecond {
		t.Fatalf("%d of %d arrivals capped, longest wait %v: want the cap to hold them back", capped, len(samples), waited)
	}
	// ~10 requests/s is all 2 streams of 200 ms can carry.
	if len(samples) > 14 {
		t.Fatalf("%d requests ended in 1 s under a cap of 2 x 200 ms", len(samples))
	}
}

// TestPoolSwitchesLoop: a pool switched from users to rate mode and back sends at a
// rate, then holds its users again; no request is canceled and the pool ends cleanly.
func TestPoolSwitchesLoop(t *testing.T) {
	s := &timedStreamer{ttft: 20 * time.Millisecond, gaps: []time.Duration{10 * time.Millisecond}, chunks: []int{5}}
	p := NewPool(0, s, WithArrivals(arrival.Constant, 1, 0))
	log := logEvents(p.Run(context.Background()))
	p.SetConcurrency(2)
	time.Sleep(300 * time.Millisecond)
	p.SetOpenLoop(true, 40)
	time.Sleep(500 * time.Millisecond)
	p.SetOpenLoop(false, 3)
	time.Sleep(300 * time.Millisecond)
	if a := p.Active(); a != 3 {
		t.Errorf("%d in flight after switching back to 3 users", a)
	}
	p.Stop()
	open, closed := 0, 0
	for _, sm := range sampleEvents(log.wait(t)) {
		if sm.Err != "" {
			t.Fatalf("a request failed: %v", sm.Err)
		}
		if sm.OpenLoop {
			open++
		} else {
			closed++
		}
	}
	if open < 15 || open > 25 || closed < 10 {
		t.Errorf("%d open-loop requests in 0.5 s at 40/s, %d closed-loop ones", open, closed)
	}
}
