package model

import "math"

// maxMore bounds the estimates of MoreRequests: beyond it a level will not decide in any
// reasonable hold.
const maxMore = 100_000

// MoreRequests estimates how many more steady requests the level needs before each of
// the given criteria (SLO terms) is decided and its curve figures are known to
// ±CurvePrecision, if what it shows so far stays what it is: the largest of the
// estimates. ok is false when a criterion cannot be decided that way (its figure sits on
// its target, or nothing was measured) or needs more than maxMore.
//
// A percentile's interval is read from the level's own histogram at the ranks that n
// more samples would use; a share's Wilson interval at the same share of more
// requests; the curve's half-widths shrink as 1/sqrt(n).
func (s SLO) MoreRequests(l *LevelStats, terms []string, curve []string) (more int, ok bool) {
	n := l.UserTPS.Count
	for _, t := range terms {
		m, ok := s.moreFor(l, t)
		if !ok {
			return 0, false
		}
		more = max(more, m)
	}
	for _, c := range curve {
		var rel float64
		switch c {
		case "per-user p50":
			if iv := l.lookCI().UserTPSP50; iv != nil {
				rel = iv.HalfWidth(l.UserTPS.P50)
			}
		case "aggregate tok/s":
			if iv := l.lookCI().AggregateTPS; iv != nil {
				rel = iv.HalfWidth(l.AggregateTPS)
			}
		}
		need := 6 // the fewest samples whose median has a two-sided interval
		if rel > 0 && !math.IsInf(rel, 1) && n > 0 {
			need = int(math.Ceil(float64(n) * (rel / CurvePrecision) * (rel / CurvePrecision)))
		}
		more = max(more, min(need, maxMore+n)-n)
	}
	return max(more, 0), more <= maxMore
}

// moreFor is MoreRequests for one criterion.
func (s SLO) moreFor(l *LevelStats, term string) (int, bool) {
	switch term {
	case TermTTFT:
		return moreQuantile(l.ttftHist, 0.95, ms(s.TTFTP95Max), false)
	case TermTTFO:
		return moreQuantile(l.ttfoHist, 0.95, ms(s.TTFOP95Max), false)
	case TermUserTPS:
		return moreQuantile(l.userHist, 0.5, s.UserTPSMin, true)
	case TermErrorRate:
		k, n := l.Charged()
		return moreShare(k, n, s.ErrorRateMax, false)
	case TermGoodput:
		g := l.Traffic.Goodput
		return moreShare(g.Met, g.Judged, s.GoodputMin, true)
	}
	return 0, false
}

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

// lookCI is the intervals the level rule reads: at LookConfidence, or the 95% ones of a
// LevelStats built by hand.
func (l *LevelStats) lookCI() LevelCI {
	if l.look != nil {
		return *l.look
	}
	return l.CI
}
