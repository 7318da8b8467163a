package arrival

import (
	"testing"
	"time"
)

// A trace's arrivals leave at their own moments, whatever the answers take, and stop
// after the last; a rate change does not move them.
func TestDispatcherReplaysTimes(t *testing.T) {
	ms := time.Millisecond
	at := []time.Duration{0, 0, 50 * ms, time.Second, time.Second + 5*ms, 3 * time.Second}
	plan := NewTimes(at)
	if got := plan.Rate(); got != 2 {
		t.Errorf("mean rate %v/s, want 6 arrivals over 3 s = 2/s", got)
	}
	h := newHarness(t, plan, 0, 10*time.Second)
	h.onPark = func(h *harness) { _ = h.d.SetRate(100) }
	h.run(0)
	if len(h.arrivals) != len(at) {
		t.Fatalf("%d arrivals, want %d", len(h.arrivals), len(at))
	}
	for i, a := range h.arrivals {
		if a.Index != uint64(i) || a.Due != at[i] || a.Left != at[i] || a.Wait != 0 {
			t.Errorf("arrival %d = %+v, want due and left at %v", i, a, at[i])
		}
	}
}

// Under a cap the trace's arrivals wait, and the wait says how late each left.
func TestDispatcherTimesUnderACapAreLate(t *testing.T) {
	at := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond}
	h := newHarness(t, NewTimes(at), 1, time.Second)
	h.run(0)
	want := []time.Duration{0, 900 * time.Millisecond, 1800 * time.Millisecond}
	for i, a := range h.arrivals {
		if a.Wait != want[i] || a.Capped != (i > 0) {
			t.Errorf("arrival %d waited %v (capped %v), want %v", i, a.Wait, a.Capped, want[i])
		}
	}
}

func TestTimesPace(t *testing.T) {
	p := NewTimes([]time.Duration{time.Second, 2 * time.Second})
	if w, stop := p.Pace(300*time.Millisecond, 0); w != 700*time.Millisecond || stop {
		t.Errorf("Pace(0.3 s, 0) = %v, %v", w, stop)
	}
	if w, stop := p.Pace(3*time.Second, 1); w != 0 || stop {
		t.Errorf("a late arrival waits %v (stop %v), want 0", w, stop)
	}
	if _, stop := p.Pace(3*time.Second, 2); !stop {
		t.Error("no stop after the last arrival")
	}
	if err := p.SetRate(-1, 0); err == nil {
		t.Error("SetRate(-1) accepted")
	}
}
