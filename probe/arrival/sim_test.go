package arrival_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/arrival"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// TestDispatcherAgainstTheSimulator: rate mode on the real clock against the simulator
// on 127.0.0.1: 20 requests/s for 3 s reach the server at that rate and every one
// succeeds.
func TestDispatcherAgainstTheSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("3 s on the real clock")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst, err := sim.Start(ctx, "", sim.Config{Model: "m", Slots: 64, StepMs: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	cl, err := client.New(client.Endpoint{BaseURL: inst.URL, Model: "m", MaxTokens: 16, IgnoreEOS: true}, 64)
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	d := arrival.NewDispatcher(arrival.New(arrival.Poisson, 20, 3).WithLimit(n), 64, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var arrivals []arrival.Arrival
	var samples []model.Sample
	if err := d.Run(ctx, func(a arrival.Arrival, done func()) {
		arrivals = append(arrivals, a)
		wg.Go(func() {
			defer done()
			s := cl.Stream(ctx, &probe.Progress{})
			mu.Lock()
			samples = append(samples, s)
			mu.Unlock()
		})
	}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if len(arrivals) != n || len(samples) != n {
		t.Fatalf("%d arrivals, %d samples, want %d", len(arrivals), len(samples), n)
	}
	for _, s := range samples {
		if !s.OK() {
			t.Fatalf("a request failed: %s %s", s.Err, s.ErrMsg)
		}
	}
	// The dispatcher's lateness (timers on a loaded machine) is client-side wait; the
	// planned times are the schedule's, so the offered rate is checked on them and the
	// achieved one on when requests really left.
	span := (arrivals[n-1].Left - arrivals[0].Left).Seconds()
	planned := (arrivals[n-1].Due - arrivals[0].Due).Seconds()
	if got := float64(n-1) / span; got < 0.8*float64(n-1)/planned || got > 1.25*float64(n-1)/planned {
		t.Errorf("achieved %.2f requests/s, offered %.2f", got, float64(n-1)/planned)
	}
	if st := inst.Server.Stats(); st.Requests != n || st.Completed != n {
		t.Errorf("the server saw %d requests, %d completed; want %d", st.Requests, st.Completed, n)
	}
}

// TestCapWaitStaysOutOfTTFT: 20 requests/s against answers of about 0.3 s with at most
// 2 in flight: arrivals wait on tpsmon's side for hundreds of milliseconds, and no TTFT
// holds that wait (the server has free slots: its TTFT is a few steps).
func TestCapWaitStaysOutOfTTFT(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds on the real clock")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst, err := sim.Start(ctx, "", sim.Config{Model: "m", Slots: 64, StepMs: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	cl, err := client.New(client.Endpoint{BaseURL: inst.URL, Model: "m", MaxTokens: 64, IgnoreEOS: true}, 4)
	if err != nil {
		t.Fatal(err)
	}
	const n = 14
	d := arrival.NewDispatcher(arrival.New(arrival.Constant, 20, 1).WithLimit(n), 2, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var arrivals []arrival.Arrival
	var samples []model.Sample
	if err := d.Run(ctx, func(a arrival.Arrival, done func()) {
		arrivals = append(arrivals, a)
		wg.Go(func() {
			defer done()
			s := cl.Stream(ctx, &probe.Progress{})
			mu.Lock()
			samples = append(samples, s)
			mu.Unlock()
		})
	}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	last := arrivals[n-1]
	if !last.Capped || last.Wait < time.Second {
		t.Errorf("the last arrival waited %v (capped %v): 14 answers of ~0.3 s, 2 at a time, cannot keep up with 20/s", last.Wait, last.Capped)
	}
	for _, s := range samples {
		ttft, ok := s.TTFT()
		if !s.OK() || !ok || ttft > 250*time.Millisecond {
			t.Errorf("TTFT %v (ok %v, err %q): the client-side wait leaked into it", ttft, ok, s.Err)
		}
	}
}
