package arrival

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeClock moves only when the test says so. The dispatcher is its only sleeper: each
// After replaces the pending timer and tells the test (parks) that it is waiting.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	at    time.Time
	ch    chan time.Time
	parks chan string
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Unix(1000, 0), parks: make(chan string)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	ch := make(chan time.Time, 1)
	c.at, c.ch = c.now.Add(d), ch
	c.mu.Unlock()
	c.parks <- "timer"
	return ch
}

// set moves the clock to t (never back).
func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	if t.After(c.now) {
		c.now = t
	}
	c.mu.Unlock()
}

// fire moves the clock to the pending timer and fires it.
func (c *fakeClock) fire() {
	c.mu.Lock()
	if c.at.After(c.now) {
		c.now = c.at
	}
	ch, now := c.ch, c.now
	c.mu.Unlock()
	ch <- now
}

// flight is a request the harness started; it ends at end.
type flight struct {
	end  time.Time
	done func()
}

// harness runs a Dispatcher on a fake clock. Requests last `hold` each; when the
// dispatcher waits (for a timer or for a place under the cap) the harness ends the
// requests due to end first, in order, then fires the timer.
type harness struct {
	t        *testing.T
	clk      *fakeClock
	d        *Dispatcher
	hold     time.Duration
	arrivals []Arrival
	flights  []flight
	onPark   func(h *harness) // called at each park before the harness moves on
}

func newHarness(t *testing.T, s Plan, maxConc int, hold time.Duration) *harness {
	clk := newFakeClock()
	d := NewDispatcher(s, maxConc, clk)
	d.onFull = func() { clk.parks <- "full" }
	return &harness{t: t, clk: clk, d: d, hold: hold}
}

// run dispatches until the schedule stops, or until n arrivals.
func (h *harness) run(n int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	errc := make(chan error, 1)
	go func() {
		errc <- h.d.Run(ctx, func(a Arrival, done func()) {
			mu.Lock()
			h.arrivals = append(h.arrivals, a)
			h.flights = append(h.flights, flight{end: h.clk.Now().Add(h.hold), done: done})
			mu.Unlock()
		})
	}()
	for {
		select {
		case err := <-errc:
			if err != nil && !errors.Is(err, context.Canceled) {
				h.t.Fatalf("Run: %v", err)
			}
			return
		case why := <-h.clk.parks:
			mu.Lock()
			got := len(h.arrivals)
			mu.Unlock()
			if n > 0 && got >= n {
				cancel()
				stop := make(chan struct{})
				go func() { // let a dispatcher about to park see the cancel
					for {
						select {
						case <-h.clk.parks:
						case <-stop:
							return
						}
					}
				}()
				<-errc
				close(stop)
				return
			}
			if h.onPark != nil {
				h.onPark(h)
			}
			mu.Lock()
			h.step(why)
			mu.Unlock()
		}
	}
}

// step ends requests up to the pending timer (why == "timer") or the first one to end
// (why == "full"), then lets the dispatcher go on.
func (h *harness) step(why string) {
	for len(h.flights) > 0 {
		first := 0
		for i, f := range h.flights {
			if f.end.Before(h.flights[first].end) {
				first = i
			}
		}
		f := h.flights[first]
		h.clk.mu.Lock()
		later := why == "timer" && f.end.After(h.clk.at)
		h.clk.mu.Unlock()
		if later {
			break
		}
		h.clk.set(f.end)
		h.flights = append(h.flights[:first], h.flights[first+1:]...)
		f.done()
		if why == "full" {
			return
		}
	}
	if why == "timer" {
		h.clk.fire()
	}
}

func TestDispatcherAchievesTheRate(t *testing.T) {
	for _, kind := range []Kind{Poisson, Constant} {
		h := newHarness(t, New(kind, 10, 5).WithLimit(2000), 0, 3*time.Second)
		h.run(0)
		if len(h.arrivals) != 2000 {
			t.Fatalf("%v: %d arrivals, want 2000", kind, len(h.arrivals))
		}
		ts := make([]time.Duration, len(h.arrivals))
		for i, a := range h.arrivals {
			ts[i] = a.Left
			if a.Wait != 0 || a.Capped {
				t.Fatalf("%v: arrival %d waited %v without a cap", kind, i, a.Wait)
			}
		}
		if got := rateOf(ts); !within(got, 10, 0.03) {
			t.Errorf("%v: dispatched %.3f/s, want 10 within 3%%", kind, got)
		}
	}
}

// TestDispatcherCapWaitsAndMeasures: 10 arrivals a second, 2 in flight at most, each
// request lasting 1 s: the cap sets the pace (2/s) and each arrival's wait grows.
func TestDispatcherCapWaitsAndMeasures(t *testing.T) {
	h := newHarness(t, New(Constant, 10, 0).WithLimit(7), 2, time.Second)
	h.run(0)
	want := []struct {
		wait   time.Duration
		capped bool
	}{
		{0, false}, {0, false}, // due 0 and 100 ms, left at once
		{800 * time.Millisecond, true},  // due 200 ms, left at 1 s when the first ended
		{800 * time.Millisecond, true},  // due 300 ms, left at 1.1 s
		{1600 * time.Millisecond, true}, // due 400 ms, left at 2 s
		{1600 * time.Millisecond, true},
		{2400 * time.Millisecond, true},
	}
	if len(h.arrivals) != len(want) {
		t.Fatalf("%d arrivals, want %d", len(h.arrivals), len(want))
	}
	for i, a := range h.arrivals {
		if a.Wait != want[i].wait || a.Capped != want[i].capped || a.Due != time.Duration(i)*100*time.Millisecond {
			t.Errorf("arrival %d: due %v wait %v capped %v; want due %v wait %v capped %v",
				i, a.Due, a.Wait, a.Capped, time.Duration(i)*100*time.Millisecond, want[i].wait, want[i].capped)
		}
		if a.Left != a.Due+a.Wait {
			t.Errorf("arrival %d: left %v != due %v + wait %v", i, a.Left, a.Due, a.Wait)
		}
	}
	if n := h.d.InFlight(); n != 2 {
		t.Errorf("%d in flight at the end, want 2 (the cap)", n)
	}
}

func TestDispatcherRateChangeWhileRunning(t *testing.T) {
	h := newHarness(t, New(Constant, 10, 0), 0, 50*time.Millisecond)
	changed := false
	h.onPark = func(h *harness) {
		if !changed && len(h.arrivals) == 100 {
			changed = true
			if err := h.d.SetRate(40); err != nil {
				t.Error(err)
			}
		}
	}
	h.run(300)
	ts := make([]time.Duration, len(h.arrivals))
	for i, a := range h.arrivals {
		ts[i] = a.Left
	}
	if got := rateOf(ts[:100]); !within(got, 10, 0.001) {
		t.Errorf("before the change %.3f/s, want 10", got)
	}
	if got := rateOf(ts[101:300]); !within(got, 40, 0.001) {
		t.Errorf("after the change %.3f/s, want 40", got)
	}
	if err := h.d.SetRate(-1); err == nil {
		t.Errorf("SetRate(-1) accepted")
	}
}

func TestDispatcherStopsOnCancel(t *testing.T) {
	d := NewDispatcher(New(Poisson, 0, 1), 1, nil) // rate 0: waits for ever
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx, func(Arrival, func()) {}) }()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}
