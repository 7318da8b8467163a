package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// within checks the stated precision of a Hist percentile: not below the exact
// nearest-rank value, at most 1/1024 above it plus one recording unit.
func within(got, exact, unit float64) bool {
	return got >= exact-1e-9 && got <= exact*(1+1.0/1024)+unit+1e-9
}

func TestHistLatencyPercentiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		gen  func() time.Duration
		n    int
	}{
		{"lognormal around 300 ms", func() time.Duration {
			return time.Duration(math.Exp(r.NormFloat64()*0.8+math.Log(300)) * float64(time.Millisecond))
		}, 5000},
		{"uniform 0-2 ms (exact region)", func() time.Duration { return time.Duration(r.IntN(2_000_000)) }, 999},
		{"few values", func() time.Duration { return time.Duration(1+r.IntN(10)) * time.Second }, 3},
		{"one value", func() time.Duration { return 1234567 * time.Microsecond }, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := NewLatencyHist()
			vals := make([]float64, tc.n) // ms, at the 1 us recording unit
			var sum float64
			for i := range vals {
				d := tc.gen()
				h.RecordDuration(d)
				vals[i] = float64(d.Round(time.Microsecond)) / 1e6
				sum += vals[i]
			}
			slices.Sort(vals)
			got := h.Dist()
			if got.Count != tc.n || got.Clamped != 0 {
				t.Fatalf("Count %d Clamped %d, want %d 0", got.Count, got.Clamped, tc.n)
			}
			if math.Abs(got.Min-vals[0]) > 1e-9 || math.Abs(got.Max-vals[tc.n-1]) > 1e-9 {
				t.Errorf("Min/Max = %v/%v, want %v/%v", got.Min, got.Max, vals[0], vals[tc.n-1])
			}
			if mean := sum / float64(tc.n); math.Abs(got.Mean-mean) > 1e-6*mean {
				t.Errorf("Mean = %v, want %v", got.Mean, mean)
			}
			for _, p := range []struct {
				p   float64
				got float64
			}{{10, got.P10}, {50, got.P50}, {90, got.P90}, {95, got.P95}, {99, got.P99}} {
				exact := nearestRank(vals, p.p)
				if !within(p.got, exact, 0.001) {
					t.Errorf("p%v = %v, exact %v: outside the stated precision", p.p, p.got, exact)
				}
				if p.got > got.Max {
					t.Errorf("p%v = %v above Max %v", p.p, p.got, got.Max)
				}
			}
		})
	}
}

func TestHistRatePercentiles(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := NewRateHist()
	vals := make([]float64, 2000)
	for i := range vals {
		v := 5 + r.Float64()*95 // 5..100 tok/s
		h.RecordRate(v)
		vals[i] = math.Round(v*1000) / 1000
	}
	slices.Sort(vals)
	d := h.Dist()
	for _, p := range []struct{ p, got float64 }{{10, d.P10}, {50, d.P50}, {90, d.P90}, {95, d.P95}, {99, d.P99}} {
		if exact := nearestRank(vals, p.p); !within(p.got, exact, 0.001) {
			t.Errorf("p%v = %v, exact %v", p.p, p.got, exact)
		}
	}
	if d.Min != vals[0] || d.Max != vals[len(vals)-1] {
		t.Errorf("Min/Max %v/%v, want %v/%v", d.Min, d.Max, vals[0], vals[len(vals)-1])
	}
}

func TestHistClampsAndCounts(t *testing.T) {
	h := NewLatencyHist()
	h.RecordDuration(-time.Second)
	h.RecordDuration(2 * time.Hour)
	h.RecordDuration(time.Second)
	d := h.Dist()
	if d.Count != 3 || d.Clamped != 2 {
		t.Fatalf("Count %d Clamped %d, want 3 2", d.Count, d.Clamped)
	}
	if d.Min != 0 || d.Max != float64(LatencyMax/time.Millisecond) {
		t.Errorf("Min %v Max %v, want 0 and 1 h in ms", d.Min, d.Max)
	}

	r := NewRateHist()
	r.RecordRate(math.NaN())
	r.RecordRate(-1)
	r.RecordRate(5e6)
	r.RecordRate(42.5)
	rd := r.Dist()
	if rd.Count != 4 || rd.Clamped != 3 || rd.Max != RateMax || rd.Min != 0 {
		t.Errorf("rate dist %+v", rd)
	}
	if rd.P50 < 0 || rd.P50 > 42.5*1.001 {
		t.Errorf("rate p50 %v", rd.P50)
	}

	h.Reset()
	if d := h.Dist(); d != (Dist{}) || h.Count() != 0 || h.Clamped() != 0 {
		t.Errorf("after Reset: %+v", d)
	}
}

func TestHistEmptyAndSingle(t *testing.T) {
	if d := NewLatencyHist().Dist(); d != (Dist{}) {
		t.Errorf("empty Dist = %+v", d)
	}
	h := NewLatencyHist()
	h.RecordDuration(2 * time.Second) // HDR's bucket is wider than 1 us here: capped at Max
	want := Dist{Count: 1, Mean: 2000, Min: 2000, P10: 2000, P50: 2000, P90: 2000, P95: 2000, P99: 2000, Max: 2000}
	if d := h.Dist(); d != want {
		t.Errorf("single value Dist = %+v, want %+v", d, want)
	}
}
