package model

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"
	"time"
)

// binomTail is the exact P(B <= k) and P(B >= k) of B ~ Binomial(n, p), computed with
// rationals (p given as num/den), independently of the library the code uses.
func binomTail(n, k int, num, den int64) (le, ge float64) {
	p, q := big.NewRat(num, den), big.NewRat(den-num, den)
	sumLE, sumGE := new(big.Rat), new(big.Rat)
	for i := 0; i <= n; i++ {
		c := new(big.Rat).SetInt(new(big.Int).Binomial(int64(n), int64(i)))
		t := new(big.Rat).Mul(c, ratPow(p, i))
		t.Mul(t, ratPow(q, n-i))
		if i <= k {
			sumLE.Add(sumLE, t)
		}
		if i >= k {
			sumGE.Add(sumGE, t)
		}
	}
	le, _ = sumLE.Float64()
	ge, _ = sumGE.Float64()
	return le, ge
}

func ratPow(r *big.Rat, e int) *big.Rat {
	out := big.NewRat(1, 1)
	for range e {
		out.Mul(out, r)
	}
	return out
}

// TestQuantileRanksKnown: the ranks of published tables and of the figures the docs quote.
func TestQuantileRanksKnown(t *testing.T) {
	for _, tc := range []struct {
		n    int
		p    float64
		l, u int
	}{
		{5, 0.5, 0, 6},     // too few for a median on either side
		{6, 0.5, 1, 6},     // the smallest and largest of 6: 1 - 2/64 = 96.9%
		{10, 0.5, 2, 9},    // 97.9%
		{20, 0.5, 6, 15},   // 95.9%
		{100, 0.5, 40, 61}, // the textbook 95% ranks of a median of 100
		{58, 0.95, 52, 59}, // no upper bound for a p95 below 72 samples
		{71, 0.95, 64, 72},
		{72, 0.95, 64, 72}, // from 72 on the largest sample bounds it (0.95^72 = 2.49%)
	} {
		l, u := QuantileRanks(tc.n, tc.p)
		if l != tc.l || u != tc.u {
			t.Errorf("QuantileRanks(%d, %v) = %d, %d; want %d, %d", tc.n, tc.p, l, u, tc.l, tc.u)
		}
	}
	// The first n whose p95 upper bound lies below the largest sample.
	first := 0
	for n := 72; n < 400 && first == 0; n++ {
		if _, u := QuantileRanks(n, 0.95); u < n {
			first = n
		}
	}
	if first != 110 {
		t.Errorf("a p95's upper bound first falls below the largest sample at n = %d, want 110", first)
	}
}

// TestQuantileRanksExact checks every rank pair against exact binomial sums: coverage at
// least 95%, each tail at most 2.5% (5% when the other side is unbounded), and no rank
// that could move inwards without breaking its tail's bound.
func TestQuantileRanksExact(t *testing.T) {
	for _, p := range []struct{ num, den int64 }{{1, 2}, {9, 10}, {19, 20}, {99, 100}} {
		pf := float64(p.num) / float64(p.den)
		for n := 1; n <= 130; n += 1 + n/20 {
			l, u := QuantileRanks(n, pf)
			tailLo, tailHi := 0.025, 0.025
			if l == 0 {
				tailHi = 0.05
			}
			if u == n+1 {
				tailLo = 0.05
			}
			if l == 0 && u == n+1 {
				tailLo, tailHi = 0.025, 0.025
			}
			below, above := 0.0, 0.0 // P(B <= l-1), P(B >= u)
			if l > 0 {
				below, _ = binomTail(n, l-1, p.num, p.den)
			}
			if u <= n {
				_, above = binomTail(n, u, p.num, p.den)
			}
			if below > tailLo+1e-12 || above > tailHi+1e-12 || 1-below-above < Confidence-1e-12 {
				t.Errorf("n %d p %v: ranks %d, %d leave %.4f below and %.4f above", n, pf, l, u, below, above)
			}
			if l < n {
				if b, _ := binomTail(n, l, p.num, p.den); b <= tailLo {
					t.Errorf("n %d p %v: lower rank %d could be %d (tail %.4f)", n, pf, l, l+1, b)
				}
			}
			if u > 1 {
				if _, a := binomTail(n, u-1, p.num, p.den); a <= tailHi {
					t.Errorf("n %d p %v: upper rank %d could be %d (tail %.4f)", n, pf, u, u-1, a)
				}
			}
		}
	}
}

// TestQuantileCIExactValues: below 2048 recording units the histogram is exact, so the
// interval's ends are the order statistics themselves.
func TestQuantileCIExactValues(t *testing.T) {
	h := NewLatencyHist()
	for i := 100; i >= 1; i-- { // 1 us .. 100 us, in any order
		h.RecordDuration(time.Duration(i) * time.Microsecond)
	}
	iv, ok := h.QuantileCI(0.5)
	if !ok || iv.Lo != 0.040 || iv.Hi != 0.061 { // ms: the 40th and 61st of 1..100 us
		t.Errorf("median CI of 1..100 us = %+v, want [0.040, 0.061] ms", iv)
	}
	iv, _ = h.QuantileCI(0.95)
	l, u := QuantileRanks(100, 0.95)
	if iv.Lo != float64(l)/1000 || iv.Hi != float64(u)/1000 {
		t.Errorf("p95 CI of 1..100 us = %+v, want ranks %d, %d", iv, l, u)
	}
	if _, ok := NewRateHist().QuantileCI(0.5); ok {
		t.Error("an empty histogram has an interval")
	}
}

// TestQuantileCIWidensBuckets: above 2048 units a bucket holds several values; the
// interval takes the whole bucket, so it holds the exact order statistics.
func TestQuantileCIWidensBuckets(t *testing.T) {
	h := NewRateHist()
	var vals []float64
	for i := range 200 {
		v := 90 + float64(i)*0.0137 // 90 .. 92.7 tok/s: buckets of 0.064 tok/s
		vals = append(vals, v)
		h.RecordRate(v)
	}
	l, u := QuantileRanks(200, 0.5)
	iv, _ := h.QuantileCI(0.5)
	if !(iv.Lo <= vals[l-1] && iv.Hi >= vals[u-1]) || iv.Lo < vals[l-1]-0.064 || iv.Hi > vals[u-1]+0.064 {
		t.Errorf("median CI %+v does not hold [%v, %v] within one bucket", iv, vals[l-1], vals[u-1])
	}
	// hdrWidth is the library's: a single value's highest equivalent is its bucket's top.
	for _, v := range []int64{1, 2047, 2048, 2049, 4095, 4096, 90909, 1 << 20, 999_999_999} {
		g := NewRateHist()
		g.record(v)
		low := v &^ (hdrWidth(v) - 1)
		if top := g.h.ValueAtPercentile(100); top != low+hdrWidth(v)-1 {
			t.Errorf("value %d: bucket top %d, hdrWidth says %d", v, top, low+hdrWidth(v)-1)
		}
	}
}

func TestRateCI(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{5, 100, 0.0215, 0.1118},  // published Wilson 95% interval
		{0, 380, 0, 0.0100},       // 0 errors in 380 requests: below 1%
		{0, 20, 0, 0.1611},        // 0 in 20: only below 16%
		{20, 20, 0.8389, 1},       // all of 20
		{1, 100, 0.0018, 0.0545},  // published
		{50, 100, 0.4038, 0.5962}, // published
	} {
		iv, ok := RateCI(tc.k, tc.n)
		if !ok || math.Abs(iv.Lo-tc.lo) > 6e-5 || math.Abs(iv.Hi-tc.hi) > 6e-5 {
			t.Errorf("RateCI(%d, %d) = %+v, want [%v, %v]", tc.k, tc.n, iv, tc.lo, tc.hi)
		}
	}
	if _, ok := RateCI(0, 0); ok {
		t.Error("a rate of nothing has an interval")
	}
}

func TestAggSums(t *testing.T) {
	var a AggSums
	for _, r := range [][2]float64{{10, 1}, {20, 2}, {30, 4}} {
		a.Add(r[0], r[1])
	}
	a.Add(0, 1)  // no token: not a sample of the ratio
	a.Add(5, -1) // no life
	// By hand: r = 60/7; residuals 1.4286, 2.8571, -4.2857; s2 = 14.2857; se of the mean
	// residual sqrt(s2/3) = 2.1822; mean x 20; t(2, 97.5%) = 4.3027: 0.46946.
	rel, ok := a.RelHalfWidth()
	if !ok || a.N != 3 || math.Abs(rel-0.46946) > 1e-4 {
		t.Errorf("relative half-width %v (n %d), want 0.46946", rel, a.N)
	}
	iv, _ := a.CI(100)
	if math.Abs(iv.Lo-53.054) > 0.01 || math.Abs(iv.Hi-146.946) > 0.01 {
		t.Errorf("CI around 100 = %+v", iv)
	}
	// Requests that all read at one rate: the ratio is exact.
	var b AggSums
	for i := 1; i <= 6; i++ {
		b.Add(float64(10*i), float64(i)/9)
	}
	if rel, _ := b.RelHalfWidth(); rel > 1e-6 {
		t.Errorf("one rate: relative half-width %v, want 0", rel)
	}
	var c AggSums
	c.Merge(a)
	c.Merge(b)
	if c.N != 9 || c.X != a.X+b.X {
		t.Errorf("merged %+v", c)
	}
	if _, ok := (AggSums{N: 1, X: 3, Y: 1}).RelHalfWidth(); ok {
		t.Error("one request gives an interval")
	}
}

func TestIntervalJSON(t *testing.T) {
	b, _ := json.Marshal(LevelCI{UserTPSP50: &Interval{1.5, 2}, TTFTP95: &Interval{3, math.Inf(1)}})
	want := `{"user_tps_p50":[1.5,2],"ttft_p50_ms":null,"ttft_p95_ms":[3,null],"aggregate_tps":null,"error_rate":null}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back LevelCI
	if err := json.Unmarshal(b, &back); err != nil || *back.UserTPSP50 != (Interval{1.5, 2}) || back.TTFTP95.Bounded() || back.TTFTP50 != nil {
		t.Errorf("read back %+v, %v", back, err)
	}
	for _, bad := range []string{`[1]`, `[null, 2]`, `[3, 2]`, `"x"`} {
		var iv Interval
		if err := json.Unmarshal([]byte(bad), &iv); err == nil {
			t.Errorf("%s read as %+v", bad, iv)
		}
	}
	if r := (Interval{1.234, 5.671}).rounded(2); r != (Interval{1.23, 5.68}) {
		t.Errorf("rounded outwards: %+v", r)
	}
}
