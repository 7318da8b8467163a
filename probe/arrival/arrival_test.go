package arrival

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

// drive runs a dispatcher on a virtual clock that is never late: it waits exactly what
// Pace says and returns the arrival times of n arrivals.
func drive(p Pacer, elapsed time.Duration, hits uint64, n int) ([]time.Duration, time.Duration) {
	out := make([]time.Duration, 0, n)
	for range n {
		wait, stop := p.Pace(elapsed, hits)
		if stop || wait == Never {
			break
		}
		elapsed += wait
		out = append(out, elapsed)
		hits++
	}
	return out, elapsed
}

// rateOf is the achieved rate of arrivals at times ts: (n-1) gaps over the span.
func rateOf(ts []time.Duration) float64 {
	return float64(len(ts)-1) / (ts[len(ts)-1] - ts[0]).Seconds()
}

// cv is the coefficient of variation of the gaps between ts.
func cv(ts []time.Duration) float64 {
	var sum, sq float64
	n := float64(len(ts) - 1)
	for i := 1; i < len(ts); i++ {
		g := (ts[i] - ts[i-1]).Seconds()
		sum += g
		sq += g * g
	}
	mean := sum / n
	return math.Sqrt(sq/n-mean*mean) / mean
}

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*want }

func TestRateAndSpacing(t *testing.T) {
	for _, tc := range []struct {
		kind       Kind
		rate       float64
		cvLo, cvHi float64
		rateTol    float64
		seed       uint64
	}{
		{Poisson, 10, 0.9, 1.1, 0.03, 1},
		{Poisson, 250, 0.9, 1.1, 0.03, 7},
		{Constant, 10, 0, 0.001, 0.0001, 1},
		{Constant, 3, 0, 0.001, 0.0001, 1},
	} {
		ts, _ := drive(New(tc.kind, tc.rate, tc.seed), 0, 0, 2000)
		if len(ts) != 2000 {
			t.Fatalf("%v: %d arrivals, want 2000", tc.kind, len(ts))
		}
		if got := rateOf(ts); !within(got, tc.rate, tc.rateTol) {
			t.Errorf("%v at %g/s: achieved %.3f/s over 2,000 arrivals", tc.kind, tc.rate, got)
		}
		if got := cv(ts); got < tc.cvLo || got > tc.cvHi {
			t.Errorf("%v at %g/s: inter-arrival CV %.3f, want in [%g, %g]", tc.kind, tc.rate, got, tc.cvLo, tc.cvHi)
		}
	}
}

// TestPoissonRateAcrossSeeds checks that the 3% is not one lucky seed: over 20,000
// arrivals (a standard error of 0.7%) every seed lands within 3%.
func TestPoissonRateAcrossSeeds(t *testing.T) {
	for seed := range uint64(20) {
		ts, _ := drive(New(Poisson, 8, seed), 0, 0, 20000)
		if got := rateOf(ts); !within(got, 8, 0.03) {
			t.Errorf("seed %d: achieved %.3f/s, want 8 within 3%%", seed, got)
		}
	}
}

func TestSeededAndReproducible(t *testing.T) {
	a, _ := drive(New(Poisson, 5, 42), 0, 0, 50)
	b, _ := drive(New(Poisson, 5, 42), 0, 0, 50)
	c, _ := drive(New(Poisson, 5, 43), 0, 0, 50)
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, arrival %d at %v and %v", i, a[i], b[i])
		}
		same = same && a[i] == c[i]
	}
	if same {
		t.Errorf("seeds 42 and 43 gave the same arrivals")
	}
}

func TestRateChangeMidway(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		n    int
		tol  float64
	}{{Constant, 1000, 0.001}, {Poisson, 8000, 0.03}} {
		s := New(tc.kind, 10, 3)
		first, elapsed := drive(s, 0, 0, tc.n)
		if err := s.SetRate(40, elapsed); err != nil {
			t.Fatal(err)
		}
		if s.Rate() != 40 {
			t.Fatalf("Rate() = %g after SetRate(40)", s.Rate())
		}
		second, _ := drive(s, elapsed, uint64(tc.n), tc.n)
		if got := rateOf(first); !within(got, 10, tc.tol) {
			t.Errorf("%v before the change: %.3f/s, want 10", tc.kind, got)
		}
		if got := rateOf(second); !within(got, 40, tc.tol) {
			t.Errorf("%v after the change: %.3f/s, want 40", tc.kind, got)
		}
		if second[0] < elapsed {
			t.Errorf("%v: the first arrival after the change is due at %v, before the change at %v", tc.kind, second[0], elapsed)
		}
	}
}

func TestConstantRateChangeMovesOnlyThePendingArrival(t *testing.T) {
	s := New(Constant, 1, 0) // arrivals at 0s, 1s, 2s...
	if w, _ := s.Pace(0, 0); w != 0 {
		t.Fatalf("first constant arrival waits %v, want 0", w)
	}
	if w, _ := s.Pace(0, 1); w != time.Second {
		t.Fatalf("second arrival waits %v, want 1s", w)
	}
	// Slower at 0.5 s: the pending arrival moves to 0 + 4 s.
	_ = s.SetRate(0.25, 500*time.Millisecond)
	if d := s.Due(1); d != 4*time.Second {
		t.Errorf("after slowing, arrival 1 is due at %v, want 4s", d)
	}
	// Faster at 2 s: 0 + 0.1 s is past, so the pending arrival is due at once.
	_ = s.SetRate(10, 2*time.Second)
	if w, _ := s.Pace(2*time.Second, 1); w != 0 {
		t.Errorf("after speeding up, the late arrival waits %v, want 0", w)
	}
	if d := s.Due(2); d != 2100*time.Millisecond {
		t.Errorf("arrival 2 is due at %v, want 2.1s (one new gap after arrival 1)", d)
	}
}

func TestZeroRateWaitsForARate(t *testing.T) {
	s := New(Poisson, 0, 1)
	if w, stop := s.Pace(time.Second, 0); w != Never || stop {
		t.Fatalf("rate 0: wait %v stop %v, want Never, false", w, stop)
	}
	_ = s.SetRate(5, 3*time.Second)
	if d := s.Due(0); d < 3*time.Second || d == Never {
		t.Errorf("after SetRate(5) at 3s the first arrival is due at %v, want after 3s", d)
	}
	_ = s.SetRate(0, 4*time.Second)
	if w, _ := s.Pace(4*time.Second, 0); w != Never {
		t.Errorf("paused again: wait %v, want Never", w)
	}
	c := New(Constant, 0, 1)
	_ = c.SetRate(2, 7*time.Second)
	if d := c.Due(0); d != 7*time.Second {
		t.Errorf("constant from rate 0: first arrival at %v, want 7s (at once)", d)
	}
}

func TestLateDispatcherCatchesUpAndMeasuresItsWait(t *testing.T) {
	s := New(Constant, 10, 0) // due at 0, 100ms, 200ms...
	// The dispatcher was held up (the concurrency cap was full) until 450 ms.
	var waits []time.Duration
	for hits := uint64(0); hits < 5; hits++ {
		w, _ := s.Pace(450*time.Millisecond, hits)
		if w != 0 {
			t.Fatalf("arrival %d is late but waits %v", hits, w)
		}
		waits = append(waits, 450*time.Millisecond-s.Due(hits))
	}
	want := []time.Duration{450, 350, 250, 150, 50}
	for i, w := range waits {
		if w != want[i]*time.Millisecond {
			t.Errorf("arrival %d waited %v on the client side, want %vms", i, w, want[i])
		}
	}
	if w, _ := s.Pace(450*time.Millisecond, 5); w != 50*time.Millisecond {
		t.Errorf("arrival 5 waits %v, want 50ms", w)
	}
}

func TestLimitStops(t *testing.T) {
	ts, _ := drive(New(Constant, 100, 0).WithLimit(7), 0, 0, 100)
	if len(ts) != 7 {
		t.Errorf("%d arrivals with a limit of 7", len(ts))
	}
}

func TestShardsAddUp(t *testing.T) {
	if got := Split(12, 4); len(got) != 4 || got[0] != 3 || got[3] != 3 {
		t.Errorf("Split(12, 4) = %v", got)
	}
	if Split(12, 0) != nil {
		t.Errorf("Split over 0 shards is not nil")
	}
	for _, kind := range []Kind{Constant, Poisson} {
		var all []time.Duration
		for i := range 4 {
			ts, _ := drive(Shard(kind, 20, 9, i, 4), 0, 0, 2000)
			all = append(all, ts...)
		}
		merged := slices.Clone(all)
		slices.Sort(merged)
		if got := rateOf(merged[:8000]); !within(got, 20, 0.03) {
			t.Errorf("%v: 4 shards at 20/s together achieve %.3f/s", kind, got)
		}
		if kind == Constant {
			if c := cv(merged[:8000]); c > 0.001 {
				t.Errorf("constant shards do not interleave evenly: CV %.4f", c)
			}
		}
	}
	a, _ := drive(Shard(Poisson, 20, 9, 0, 2), 0, 0, 10)
	b, _ := drive(Shard(Poisson, 20, 9, 1, 2), 0, 0, 10)
	if a[0] == b[0] && a[1] == b[1] {
		t.Errorf("two Poisson shards drew the same arrivals")
	}
}

func TestParseKindAndRate(t *testing.T) {
	for in, want := range map[string]Kind{"": Poisson, "poisson": Poisson, "Constant": Constant} {
		if k, err := ParseKind(in); err != nil || k != want {
			t.Errorf("ParseKind(%q) = %v, %v", in, k, err)
		}
	}
	var ke *KindError
	if _, err := ParseKind("burst"); !errors.As(err, &ke) || ke.Name != "burst" {
		t.Errorf("ParseKind(burst) error %v", err)
	}
	var re *RateError
	for _, r := range []float64{-1, math.NaN(), math.Inf(1)} {
		if err := CheckRate(r); !errors.As(err, &re) {
			t.Errorf("CheckRate(%v) = %v", r, err)
		}
		if err := New(Constant, 1, 0).SetRate(r, 0); err == nil {
			t.Errorf("SetRate(%v) accepted", r)
		}
	}
	if err := CheckRate(0); err != nil {
		t.Errorf("CheckRate(0) = %v", err)
	}
}
