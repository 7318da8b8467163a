package ui

import (
	"fmt"
	"sort"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// errorKinds returns "kind n" pairs, most frequent first (ties by name).
func errorKinds(errs map[model.ErrorKind]int) []string {
	kinds := make([]model.ErrorKind, 0, len(errs))
	for k, n := range errs {
		if n > 0 && k != model.ErrCanceled {
			kinds = append(kinds, k)
		}
	}
	sort.Slice(kinds, func(i, j int) bool {
		if errs[kinds[i]] != errs[kinds[j]] {
			return errs[kinds[i]] > errs[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = fmt.Sprintf("%s %d", k, errs[k])
	}
	return out
}

// recentSpan is how far back the status ranks errors by kind.
const recentSpan = time.Minute

// errorWindow keeps snapshots of an endpoint's error totals, one per second, to give the
// errors of the last minute (totals now minus totals then). A few kinds, 61 snapshots:
// cheap next to a frame.
type errorWindow struct {
	at    []time.Time
	snaps []map[model.ErrorKind]int
	full  bool // a snapshot was dropped: the oldest kept is about recentSpan old
}

// Add records the totals at now (a copy), at most one snapshot per second.
func (w *errorWindow) Add(now time.Time, totals map[model.ErrorKind]int) {
	if n := len(w.at); n > 0 {
		for k, v := range w.snaps[n-1] {
			if totals[k] < v { // the totals were reset (`c`)
				w.Reset()
				break
			}
		}
	}
	if n := len(w.at); n > 0 && now.Sub(w.at[n-1]) < time.Second {
		return
	}
	cp := make(map[model.ErrorKind]int, len(totals))
	for k, v := range totals {
		cp[k] = v
	}
	w.at = append(w.at, now)
	w.snaps = append(w.snaps, cp)
	drop := 0
	for drop < len(w.at)-1 && now.Sub(w.at[drop+1]) >= recentSpan {
		drop++
	}
	w.at, w.snaps = w.at[drop:], w.snaps[drop:]
	w.full = w.full || drop > 0
}

// sumKinds is the errors of every kind together.
func sumKinds(errs map[model.ErrorKind]int) int {
	n := 0
	for _, v := range errs {
		n += v
	}
	return n
}

// Recent is totals minus the snapshot of about recentSpan ago: the errors by kind of
// the last minute. In the first minute (of the run, or since the totals were reset),
// totals.
func (w *errorWindow) Recent(totals map[model.ErrorKind]int) map[model.ErrorKind]int {
	out := make(map[model.ErrorKind]int, len(totals))
	var base map[model.ErrorKind]int
	if w.full && len(w.snaps) > 0 {
		base = w.snaps[0]
	}
	for k, v := range totals {
		if d := v - base[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// Reset forgets every snapshot (the totals were reset).
func (w *errorWindow) Reset() { w.at, w.snaps, w.full = nil, nil, false }
