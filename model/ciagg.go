package model

import "math"

// AggSums are the sums behind the interval of a level's aggregate tok/s, over its steady
// successful requests: x a request's output tokens, y its E2E latency in seconds. They
// add up across runs and shards (Merge).
//
// The estimator is the renewal-reward ratio: in a closed loop each user's stream is a
// sequence of requests, and the aggregate is the users (the mean in flight) times
// sum(x)/sum(y), tokens per second of a request's life. Its standard error comes from
// the delta method on the ratio of two means, which accounts for the spread of the
// requests' own rates and lengths; the interval is the measured aggregate times
// (1 ± t(n-1, 97.5%) x that relative error). It is conditional on the load the level
// held: in rate mode the randomness of the arrivals is not in it. Per-second batch means
// were the alternative: in a closed loop the seconds of one level are strongly
// correlated (the same long requests span many of them), so they need batches of
// several request lifetimes, i.e. minutes, before they say anything; the ratio needs a
// handful of requests and merges by adding sums.
type AggSums struct {
	N  int64   `json:"n"`
	X  float64 `json:"tokens"`
	Y  float64 `json:"e2e_s"`
	XX float64 `json:"tokens_sq"`
	YY float64 `json:"e2e_sq"`
	XY float64 `json:"tokens_e2e"`
}

// Add counts one request of tokens output tokens over e2e seconds.
func (a *AggSums) Add(tokens, e2e float64) {
	if tokens <= 0 || e2e <= 0 || math.IsNaN(tokens) || math.IsNaN(e2e) {
		return
	}
	a.N++
	a.X += tokens
	a.Y += e2e
	a.XX += tokens * tokens
	a.YY += e2e * e2e
	a.XY += tokens * e2e
}

// Merge adds o's sums.
func (a *AggSums) Merge(o AggSums) {
	a.N += o.N
	a.X += o.X
	a.Y += o.Y
	a.XX += o.XX
	a.YY += o.YY
	a.XY += o.XY
}

// RelHalfWidth is the half-width of the 95% interval of the aggregate, as a share of it;
// ok is false with fewer than 2 requests.
func (a AggSums) RelHalfWidth() (rel float64, ok bool) { return a.relHalfWidthAt(Confidence) }

// relHalfWidthAt is RelHalfWidth at another two-sided confidence.
func (a AggSums) relHalfWidthAt(confidence float64) (rel float64, ok bool) {
	if a.N < 2 || a.X <= 0 || a.Y <= 0 {
		return 0, false
	}
	n := float64(a.N)
	r := a.X / a.Y
	// s2 is the sample variance of the residuals x - r y.
	s2 := max((a.XX-2*r*a.XY+r*r*a.YY)/(n-1), 0)
	return tQuantile(int(a.N-1), confidence) * math.Sqrt(s2/n) / (a.X / n), true
}

// CI is the 95% interval of an aggregate of agg tok/s; ok is false when it cannot be
// told (fewer than 2 requests, or no aggregate).
func (a AggSums) CI(agg float64) (Interval, bool) { return a.ciAt(agg, Confidence) }

// ciAt is CI at another two-sided confidence.
func (a AggSums) ciAt(agg, confidence float64) (Interval, bool) {
	rel, ok := a.relHalfWidthAt(confidence)
	if !ok || agg <= 0 {
		return Interval{}, false
	}
	return Interval{Lo: max(agg*(1-rel), 0), Hi: agg * (1 + rel)}, true
}
