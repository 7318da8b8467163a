package model

import (
	"slices"
	"time"
)

// ttfoCap is how many recent answer times the live TTFO window keeps (the newest win).
const ttfoCap = 512

// ttfoWindow is the live time to first answer token (TTFO) of reasoning models: the
// TTFO of the successful requests that ended in the trailing window, and whether any
// request ever sent reasoning tokens before its answer (only then is TTFO worth showing
// beside TTFT). add is O(1) with no allocation; update sorts once per tick.
type ttfoWindow struct {
	window    time.Duration
	ends      [ttfoCap]time.Time
	vals      [ttfoCap]time.Duration
	n, head   int
	reasoning bool
	buf       []time.Duration
	p50, p95  time.Duration
	has       bool
}

// add records a finished request's TTFO when it has one.
func (w *ttfoWindow) add(s *Sample) {
	if !s.OK() {
		return
	}
	d, ok := s.TTFO()
	if !ok {
		return
	}
	if !s.First.IsZero() && s.First.Before(s.FirstAnswer) {
		w.reasoning = true
	}
	i := (w.head + w.n) % ttfoCap
	if w.n == ttfoCap {
		w.head = (w.head + 1) % ttfoCap
	} else {
		w.n++
	}
	w.ends[i], w.vals[i] = s.End, d
}

// update computes the percentiles over the requests that ended in (end - window, end].
func (w *ttfoWindow) update(end time.Time) {
	from := end.Add(-w.window)
	w.buf = w.buf[:0]
	for k := range w.n {
		i := (w.head + k) % ttfoCap
		if w.ends[i].After(from) && !w.ends[i].After(end) {
			w.buf = append(w.buf, w.vals[i])
		}
	}
	w.has = len(w.buf) > 0
	if !w.has {
		w.p50, w.p95 = 0, 0
		return
	}
	slices.Sort(w.buf)
	w.p50, w.p95 = nearestRank(w.buf, 50), nearestRank(w.buf, 95)
}

// reset forgets everything (Tracker.Reset).
func (w *ttfoWindow) reset() { *w = ttfoWindow{window: w.window, buf: w.buf[:0]} }
