package model

import "math"

// maxMore bounds the estimates of MoreRequests: beyond it a level will not decide in any
// reasonable hold.
const maxMore = 100_000

// moreQuantile is how many more samples the p-quantile of h needs before its interval
// lies on one side of target (atLeast: the figure must be at least target).
func moreQuantile(h *Hist, p, target float64, atLeast bool) (int, bool) {
	if h == nil || h.n == 0 {
		return 0, false
	}
	n := int(h.n)
	decides := func(m int) bool {
		iv := h.scaledCI(p, m, LookConfidence)
		if atLeast {
			return iv.Lo >= target || iv.Hi < target
		}
		return iv.Hi <= target || iv.Lo > target
	}
	return smallest(n, decides)
}

// moreShare is how many more requests a share of k in n needs before its Wilson interval
// lies on one side of target, at the same share.
func moreShare(k, n int, target float64, atLeast bool) (int, bool) {
	if n <= 0 {
		return 0, false
	}
	share := float64(k) / float64(n)
	decides := func(m int) bool {
		iv, _ := rateCIAt(int(math.Round(share*float64(m))), m, LookConfidence)
		if atLeast {
			return iv.Lo >= target || iv.Hi < target
		}
		return iv.Hi <= target || iv.Lo > target
	}
	return smallest(n, decides)
}

// smallest is the least m - n, m >= n, for which decides(m) holds (decides is taken as
// monotone), by doubling then bisection; ok is false beyond n + maxMore.
func smallest(n int, decides func(m int) bool) (int, bool) {
	if decides(n) {
		return 0, true
	}
	lo, hi := n, max(2*n, n+1)
	for !decides(hi) {
		if hi-n > maxMore {
			return 0, false
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if decides(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi - n, true
}

// scaledCI is the interval QuantileCI would give if the histogram held m samples
// distributed as the n it holds: the ranks for m, read at the same fractions of n.
func (h *Hist) scaledCI(p float64, m int, confidence float64) Interval {
	l, u := quantileRanksAt(m, p, confidence)
	n := h.n
	iv := Interval{Lo: 0, Hi: math.Inf(1)}
	if l > 0 {
		k := max(int64(math.Floor(float64(l)*float64(n)/float64(m))), 1)
		iv.Lo = float64(max(h.atRank(k), h.min)) / h.div
	}
	if u <= m {
		k := min(int64(math.Ceil(float64(u)*float64(n)/float64(m))), n)
		v := h.atRank(k)
		iv.Hi = float64(min(v+hdrWidth(v)-1, h.max)) / h.div
	}
	return iv
}
