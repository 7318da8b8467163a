package model

import (
	"encoding/json"
	"errors"
	"math"
	"math/bits"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the two-sided confidence of every interval tpsmon reports.
const Confidence = 0.95

// LookConfidence is the two-sided confidence of the intervals the sequential level rule
// reads at each of its looks (after every request). A rule that looked at 95% intervals
// after every request would, by looking often enough, find one that excludes a target
// the figure sits on: in 1,000 simulated levels whose per-user median sat exactly on its
// target, 95% looks after each of up to 200 requests decided it (either way) in 289;
// 99% looks in 73, and in 81 over up to 300 requests (each way about half of it). So
// each look reads 99% intervals, and a decision the rule makes is wrong in about 5% of
// levels at worst, as "decided at 95%" says.
const LookConfidence = 0.99

// zOf is the standard normal quantile of a two-sided interval at confidence c.
func zOf(c float64) float64 { return distuv.UnitNormal.Quantile(1 - (1-c)/2) }

// Interval is a 95% confidence interval [Lo, Hi] of a figure. Every figure tpsmon
// reports is 0 or more, so a side the data cannot bound is Lo 0 below and Hi +Inf
// above (a p95 of fewer than 72 samples has no upper bound: see QuantileRanks).
type Interval struct {
	Lo float64 `json:"-"` // written as [lo, hi] by MarshalJSON
	Hi float64 `json:"-"`
}

// Bounded reports whether the data bound the figure from above.
func (iv Interval) Bounded() bool { return !math.IsInf(iv.Hi, 1) }

// Contains reports whether v lies in the interval.
func (iv Interval) Contains(v float64) bool { return v >= iv.Lo && v <= iv.Hi }

// Within reports whether the interval lies within ±frac of v (v > 0): the figure is
// known to that precision.
func (iv Interval) Within(v, frac float64) bool {
	return v > 0 && iv.Lo >= v*(1-frac) && iv.Hi <= v*(1+frac)
}

// HalfWidth is the larger distance from v to an end of the interval, as a share of v
// (+Inf when unbounded or v is 0).
func (iv Interval) HalfWidth(v float64) float64 {
	if v <= 0 || !iv.Bounded() {
		return math.Inf(1)
	}
	return max(v-iv.Lo, iv.Hi-v) / v
}

// MarshalJSON writes [lo, hi], hi null when unbounded.
func (iv Interval) MarshalJSON() ([]byte, error) {
	hi := any(nil)
	if iv.Bounded() {
		hi = iv.Hi
	}
	return json.Marshal([]any{iv.Lo, hi})
}

// UnmarshalJSON reads [lo, hi], hi null meaning unbounded.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var v []*float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if len(v) != 2 || v[0] == nil {
		return errors.New("an interval is [lo, hi] with lo a number and hi a number or null")
	}
	iv.Lo, iv.Hi = *v[0], math.Inf(1)
	if v[1] != nil {
		iv.Hi = *v[1]
	}
	if iv.Hi < iv.Lo {
		return errors.New("an interval's hi is below its lo")
	}
	return nil
}

// rounded is iv with its ends rounded outwards to dec decimals (lo down, hi up), so that
// rounding for reading never narrows it.
func (iv Interval) rounded(dec int) Interval {
	p := math.Pow(10, float64(dec))
	out := Interval{Lo: math.Floor(iv.Lo*p+1e-9) / p, Hi: iv.Hi}
	if iv.Bounded() {
		out.Hi = math.Ceil(iv.Hi*p-1e-9) / p
	}
	return out
}

// QuantileRanks returns the ranks (1-based, in increasing order) of the order statistics
// that bound the p-quantile (0 < p < 1) of a distribution at 95% confidence, given n
// independent samples: x(l) <= q_p <= x(u) with probability at least 95% whatever the
// distribution. With B the number of samples below q_p, B ~ Binomial(n, p) and the
// coverage is P(l <= B < u). Each tail gets at most 2.5%; when one side cannot be bounded
// (l 0: no lower bound; u n+1: no upper bound), the other side gets the whole 5%.
// Examples: the median of 6 samples lies between the smallest and the largest (96.9%);
// of 20, between the 6th and the 15th (95.9%); a p95 has an upper bound (the largest
// sample) from 72 samples on, below the largest from 110 on.
func QuantileRanks(n int, p float64) (l, u int) { return quantileRanksAt(n, p, Confidence) }

// quantileRanksAt is QuantileRanks at another two-sided confidence.
func quantileRanksAt(n int, p, confidence float64) (l, u int) {
	if n <= 0 || !(p > 0 && p < 1) {
		return 0, n + 1
	}
	key := rankKey{n, p, confidence}
	ranksMu.Lock()
	r, ok := ranksCache[key]
	ranksMu.Unlock()
	if ok {
		return r[0], r[1]
	}
	b := distuv.Binomial{N: float64(n), P: p}
	tail := (1 - confidence) / 2
	l, u = lowerRank(b, n, tail), upperRank(b, n, tail)
	switch {
	case l == 0 && u == n+1:
	case l == 0:
		u = upperRank(b, n, 2*tail)
	case u == n+1:
		l = lowerRank(b, n, 2*tail)
	}
	ranksMu.Lock()
	if len(ranksCache) >= 4096 {
		clear(ranksCache)
	}
	ranksCache[key] = [2]int{l, u}
	ranksMu.Unlock()
	return l, u
}

type rankKey struct {
	n    int
	p, c float64
}

// The ranks of recent (n, p) pairs: the rule and the screen ask for the same ones often.
var (
	ranksMu    sync.Mutex
	ranksCache = map[rankKey][2]int{}
)

// lowerRank is the largest l in [0, n] with P(B <= l-1) <= a.
func lowerRank(b distuv.Binomial, n int, a float64) int {
	lo, hi := 0, n // P(B <= -1) = 0: l = 0 always qualifies
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if b.CDF(float64(mid-1)) <= a {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// upperRank is the smallest u in [1, n+1] with P(B >= u) <= a.
func upperRank(b distuv.Binomial, n int, a float64) int {
	lo, hi := 1, n+1 // P(B >= n+1) = 0: u = n+1 always qualifies
	for lo < hi {
		mid := (lo + hi) / 2
		if 1-b.CDF(float64(mid-1)) <= a {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// QuantileCI is the 95% interval of the p-quantile (0 < p < 1) of the values recorded
// (see QuantileRanks), in Dist units; ok is false when nothing was recorded. The order
// statistics are read from the histogram's buckets, widened to the whole bucket (the
// lower end to the lowest value the bucket holds, the upper end to its highest, within
// the exact Min and Max), so that the histogram's precision never narrows the interval.
func (h *Hist) QuantileCI(p float64) (iv Interval, ok bool) { return h.quantileCIAt(p, Confidence) }

// quantileCIAt is QuantileCI at another two-sided confidence.
func (h *Hist) quantileCIAt(p, confidence float64) (iv Interval, ok bool) {
	if h.n == 0 {
		return Interval{}, false
	}
	l, u := quantileRanksAt(int(h.n), p, confidence)
	iv = Interval{Lo: 0, Hi: math.Inf(1)}
	vl, vu := h.atRanks(int64(l), int64(u))
	if l > 0 {
		iv.Lo = float64(max(vl, h.min)) / h.div
	}
	if u <= int(h.n) {
		iv.Hi = float64(min(vu+hdrWidth(vu)-1, h.max)) / h.div
	}
	return iv, true
}

// atRanks is atRank of two ranks a <= b in one walk over the buckets.
func (h *Hist) atRanks(a, b int64) (va, vb int64) {
	var run int64
	gotA := a <= 0
	for v, c := range h.h.ForEachBucket {
		run += c
		if !gotA && run >= a {
			va, gotA = v, true
		}
		vb = v
		if run >= b {
			break
		}
	}
	return va, vb
}

// atRank is the lowest value of the bucket that holds the k-th smallest value (1-based).
func (h *Hist) atRank(k int64) int64 {
	var run, at int64
	for v, c := range h.h.ForEachBucket {
		run += c
		at = v
		if run >= k {
			break
		}
	}
	return at
}

// hdrWidth is the width of the histogram bucket whose lowest value is v: every Hist
// has 3 significant digits from 1 up (2048 sub-buckets): width 1 below 2048, then
// doubling with each power of two.
func hdrWidth(v int64) int64 {
	if v < 2048 {
		return 1
	}
	return 1 << (bits.Len64(uint64(v)) - 11)
}

// WilsonUpper is the upper end of the Wilson score interval of a proportion of k in n at
// z standard deviations; 1 when n is 0.
func WilsonUpper(k, n int, z float64) float64 {
	if n <= 0 {
		return 1
	}
	return 1 - WilsonLower(n-k, n, z)
}

// RateCI is the 95% Wilson score interval of a proportion of k in n; ok is false when n is 0.
func RateCI(k, n int) (Interval, bool) { return rateCIAt(k, n, Confidence) }

// rateCIAt is RateCI at another two-sided confidence.
func rateCIAt(k, n int, confidence float64) (Interval, bool) {
	if n <= 0 {
		return Interval{}, false
	}
	z := zOf(confidence)
	return Interval{Lo: WilsonLower(k, n, z), Hi: min(WilsonUpper(k, n, z), 1)}, true
}

// tQuantile is the quantile of Student's t with df degrees of freedom that bounds a
// two-sided interval at confidence c.
func tQuantile(df int, c float64) float64 {
	key := rankKey{df, 0, c}
	ranksMu.Lock()
	q, ok := tCache[key]
	ranksMu.Unlock()
	if ok {
		return q
	}
	q = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-c)/2)
	ranksMu.Lock()
	if len(tCache) >= 4096 {
		clear(tCache)
	}
	tCache[key] = q
	ranksMu.Unlock()
	return q
}

// tCache holds the t quantiles asked for (the inverse incomplete beta function behind
// them costs tens of microseconds; every level asks at every read).
var tCache = map[rankKey]float64{}
