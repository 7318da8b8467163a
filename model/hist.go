package model

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Recording units and ranges of the histograms.
const (
	// LatencyMax is the largest latency a Hist records; longer ones are clamped to it.
	LatencyMax = time.Hour
	// RateMax is the largest rate (tokens/s) a Hist records; higher ones are clamped to it.
	RateMax = 1e6

	latencyUnit = time.Microsecond                     // latencies are recorded in whole microseconds
	latencyHi   = int64(LatencyMax / time.Microsecond) // 3.6e9 us
	rateUnits   = 1000                                 // rates are recorded in milli-tokens/s
	rateHi      = int64(RateMax * rateUnits)           // 1e9 milli-tokens/s
	sigDigits   = 3
)

// distPercentiles are the percentiles a Dist reports, in its field order. It is
// read-only: the histogram copies it.
var distPercentiles = []float64{10, 50, 90, 95, 99}

// Hist is a latency or rate distribution on an HDR histogram
// (github.com/HdrHistogram/hdrhistogram-go, sparse "packed" storage) with 3
// significant digits. Latencies are recorded in whole microseconds from 1 us to
// 1 h; rates in milli-tokens/s from 0.001 to 1,000,000 tok/s. A value outside the
// range is clamped to it (never dropped) and counted in Clamped.
//
// Precision: Count is exact; Mean, Min and Max are exact up to the recording unit
// (1 us, 0.001 tok/s). A percentile p is the nearest-rank value (the k-th smallest
// of n values, k = round(p/100 * n), at least 1) to within 1 part in 1024 above it
// (about +0.1%), never below it and never above Max: below 2048 units (2.048 ms,
// 2.048 tok/s) it is exact to the unit.
//
// Memory grows with the number of distinct value buckets in use, not with the
// number of values: at most about 23,000 buckets, a few hundred in practice.
type Hist struct {
	h       *hdrhistogram.PackedHistogram
	div     float64 // recorded units per Dist unit (ms or tok/s)
	hi      int64   // highest recorded value, in recorded units
	n       int64
	sum     float64 // of recorded values, in recorded units
	min     int64
	max     int64
	clamped int64
}

// NewLatencyHist returns a Hist for latencies; its Dist is in milliseconds.
func NewLatencyHist() *Hist {
	return &Hist{h: hdrhistogram.NewPacked(1, latencyHi, sigDigits), div: float64(time.Millisecond / latencyUnit), hi: latencyHi}
}

// NewRateHist returns a Hist for rates; its Dist is in tokens/s.
func NewRateHist() *Hist {
	return &Hist{h: hdrhistogram.NewPacked(1, rateHi, sigDigits), div: rateUnits, hi: rateHi}
}

// RecordDuration records a latency, rounded to the nearest microsecond.
func (h *Hist) RecordDuration(d time.Duration) {
	if d < 0 {
		h.clamped++
		h.record(0)
		return
	}
	if d > LatencyMax {
		h.clamped++
		h.record(h.hi)
		return
	}
	h.record(int64((d + latencyUnit/2) / latencyUnit))
}

// RecordRate records a rate in tokens/s, rounded to the nearest 0.001 tok/s.
// NaN and negative rates are clamped to 0.
func (h *Hist) RecordRate(tps float64) {
	switch {
	case math.IsNaN(tps) || tps < 0:
		h.clamped++
		h.record(0)
	case tps > RateMax:
		h.clamped++
		h.record(h.hi)
	default:
		h.record(int64(math.Round(tps * rateUnits)))
	}
}

func (h *Hist) record(v int64) {
	if v > h.hi { // rounding at the very top of the range
		v = h.hi
	}
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.n++
	h.sum += float64(v)
	// v is within [0, hi] and the count cannot overflow: RecordValue cannot fail.
	_ = h.h.RecordValue(v)
}

// Count is the number of values recorded.
func (h *Hist) Count() int { return int(h.n) }

// Clamped is the number of values that were out of range and clamped.
func (h *Hist) Clamped() int { return int(h.clamped) }

// Reset forgets every value.
func (h *Hist) Reset() {
	h.h.Reset()
	h.n, h.sum, h.min, h.max, h.clamped = 0, 0, 0, 0, 0
}

// Dist summarises the values recorded (see Hist for the precision).
func (h *Hist) Dist() Dist {
	if h.n == 0 {
		return Dist{}
	}
	ps := h.h.ValueAtPercentilesSlice(distPercentiles)
	for i, v := range ps {
		ps[i] = min(max(v, h.min), h.max)
	}
	s := h.div
	return Dist{
		Count:   int(h.n),
		Mean:    h.sum / float64(h.n) / s,
		Min:     float64(h.min) / s,
		P10:     float64(ps[0]) / s,
		P50:     float64(ps[1]) / s,
		P90:     float64(ps[2]) / s,
		P95:     float64(ps[3]) / s,
		P99:     float64(ps[4]) / s,
		Max:     float64(h.max) / s,
		Clamped: int(h.clamped),
	}
}
