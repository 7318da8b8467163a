package model

// LevelCI holds the 95% confidence intervals of a level's figures (nil: not measured).
// Percentiles use order statistics (Hist.QuantileCI), the error rate and goodput the
// Wilson score interval (RateCI), the aggregate tok/s the ratio estimator (AggSums).
// results.json writes it as the level's ci95 object, each interval [lo, hi] with hi null
// when the data give no upper bound; TTFO and goodput only when they were measured.
type LevelCI struct {
	UserTPSP50   *Interval `json:"user_tps_p50"`
	TTFTP50      *Interval `json:"ttft_p50_ms"`
	TTFTP95      *Interval `json:"ttft_p95_ms"`
	AggregateTPS *Interval `json:"aggregate_tps"`
	ErrorRate    *Interval `json:"error_rate"`
	TTFOP95      *Interval `json:"ttfo_p95_ms,omitempty"`
	Goodput      *Interval `json:"goodput,omitempty"`
}

// some returns a pointer to iv when ok, nil otherwise.
func some(iv Interval, ok bool) *Interval {
	if !ok {
		return nil
	}
	return &iv
}

// ci computes the level's intervals at confidence c; agg is its aggregate tok/s.
func (l *level) ci(agg, c float64) LevelCI {
	charged, n := chargedCounts(l.judgedCounts())
	out := LevelCI{
		UserTPSP50:   some(l.user.quantileCIAt(0.5, c)),
		TTFTP50:      some(l.ttft.quantileCIAt(0.5, c)),
		TTFTP95:      some(l.ttft.quantileCIAt(0.95, c)),
		AggregateTPS: some(l.agg.ciAt(agg, c)),
		ErrorRate:    some(rateCIAt(charged, n, c)),
		TTFOP95:      some(l.ttfo.quantileCIAt(0.95, c)),
	}
	if l.traffic != nil {
		g := l.traffic.Goodput
		out.Goodput = some(rateCIAt(g.met, g.judged, c))
	}
	return out
}

// setCI sets a summary's intervals: the reported 95% ones, and the level rule's 99%.
func (l *level) setCI(ls *LevelStats) {
	ls.CI = l.ci(ls.AggregateTPS, Confidence)
	look := l.ci(ls.AggregateTPS, LookConfidence)
	ls.look = &look
	ls.ttftHist, ls.ttfoHist, ls.userHist = l.ttft, l.ttfo, l.user
}

// Rounded is the intervals rounded outwards for reading: latencies and rates to 0.01,
// the error rate and goodput to 4 decimals (as the figures they bound).
func (c LevelCI) Rounded() LevelCI {
	r := func(iv *Interval, dec int) *Interval {
		if iv == nil {
			return nil
		}
		x := iv.rounded(dec)
		return &x
	}
	return LevelCI{UserTPSP50: r(c.UserTPSP50, 2), TTFTP50: r(c.TTFTP50, 2), TTFTP95: r(c.TTFTP95, 2),
		AggregateTPS: r(c.AggregateTPS, 2), ErrorRate: r(c.ErrorRate, 4), TTFOP95: r(c.TTFOP95, 2), Goodput: r(c.Goodput, 4)}
}
