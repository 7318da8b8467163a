package model

import (
	"fmt"
	"slices"
	"time"
)

// WindowLayout is how a ReportWindow writes its times: RFC 3339 in UTC with
// milliseconds, e.g. "2026-11-23T14:05:09.123Z".
const WindowLayout = "2006-01-02T15:04:05.000Z07:00"

// ReportHists holds the HDR histograms behind a level's distributions, so that the
// results of several processes can be merged exactly (see Merge). Each has its
// recording unit (microseconds for latencies, milli-tokens/s for per-user tok/s).
type ReportHists struct {
	TTFT    HistJSON `json:"ttft"`
	TTFO    HistJSON `json:"ttfo"`
	TPOT    HistJSON `json:"tpot"`
	E2E     HistJSON `json:"e2e"`
	Stall   HistJSON `json:"stall"`
	UserTPS HistJSON `json:"user_tps"`
	// The lengths (unit tokens: whole tokens) and the pooled chunk
	// gaps of the steady successful requests. Absent from reports written before they
	// were added: Merge then shows no lengths nor chunk gaps for the level.
	InputTokens  *HistJSON `json:"input_tokens,omitempty"`
	OutputTokens *HistJSON `json:"output_tokens,omitempty"`
	ChunkGaps    *GapsJSON `json:"chunk_gap,omitempty"`
	// The TTFT of conversations' first and later turns (absent without conversations).
	TTFTFirstTurns *HistJSON `json:"ttft_first_turns,omitempty"`
	TTFTLaterTurns *HistJSON `json:"ttft_later_turns,omitempty"`
	// The arrivals' client-side wait (open loop: rate mode and traces; absent in users
	// mode, and from files written before it was added).
	ClientWait *HistJSON `json:"client_wait,omitempty"`
	// Aggregate holds the sums behind the aggregate tok/s's interval (absent from
	// reports written before intervals: Merge then gives the merged level none).
	Aggregate *AggSums `json:"aggregate,omitempty"`
}

// ReportWindow is one steady window of a level in wall-clock time (see WindowLayout).
type ReportWindow struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// ReportShard says which share of the load a report measured: shard Index of Count
// (0 <= Index < Count). A report without it measured the whole load.
type ReportShard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// WallClock converts the model's times (time.Now readings, monotonic, or a fake
// clock's) into wall-clock time for reports: t becomes Wall + (t - At). The run
// engine takes both from one reading at its start (At = time.Now(), Wall =
// At.Round(0)), so that a step of the system clock during the run moves no window.
// The zero WallClock uses each time's own wall-clock reading (t.Round(0)).
type WallClock struct {
	At   time.Time
	Wall time.Time
}

// Of is t in wall-clock time.
func (c WallClock) Of(t time.Time) time.Time {
	if c.At.IsZero() {
		return t.Round(0)
	}
	return c.Wall.Round(0).Add(t.Sub(c.At))
}

// span is a time interval [start, end).
type span struct{ start, end time.Time }

// windows returns the steady windows of the segments held at concurrency c (see
// segState.window), ordered by start.
func (t *book) windows(c int) []span {
	var out []span
	for _, st := range t.segments {
		if st.seg.Concurrency != c {
			continue
		}
		if d, _ := st.window(); d > 0 {
			out = append(out, span{start: st.seg.End.Add(-d), end: st.seg.End})
		}
	}
	slices.SortFunc(out, func(a, b span) int { return a.start.Compare(b.start) })
	return out
}

// hists encodes the level's histograms, lengths and chunk gaps included.
func (l *level) hists() *ReportHists {
	hs := &ReportHists{TTFT: l.ttft.JSON(), TTFO: l.ttfo.JSON(), TPOT: l.tpot.JSON(),
		E2E: l.e2e.JSON(), Stall: l.stall.JSON(), UserTPS: l.user.JSON(), ClientWait: l.clientWaitHist()}
	agg := l.agg
	hs.Aggregate = &agg
	l.trafficHists(hs)
	return hs
}

// reportWindows writes spans in wall-clock time.
func reportWindows(spans []span, clock WallClock) []ReportWindow {
	out := make([]ReportWindow, len(spans))
	for i, s := range spans {
		out[i] = ReportWindow{Start: clock.Of(s.start).UTC().Format(WindowLayout), End: clock.Of(s.end).UTC().Format(WindowLayout)}
	}
	return out
}

// parseWindows reads ReportWindows back into spans.
func parseWindows(ws []ReportWindow) ([]span, error) {
	out := make([]span, 0, len(ws))
	for _, w := range ws {
		s, err := time.Parse(time.RFC3339Nano, w.Start)
		if err != nil {
			return nil, fmt.Errorf("window start %q is not an RFC 3339 time", w.Start)
		}
		e, err := time.Parse(time.RFC3339Nano, w.End)
		if err != nil {
			return nil, fmt.Errorf("window end %q is not an RFC 3339 time", w.End)
		}
		if e.Before(s) {
			return nil, fmt.Errorf("window %s to %s ends before it starts", w.Start, w.End)
		}
		out = append(out, span{start: s, end: e})
	}
	return out, nil
}

// union merges overlapping or touching spans into disjoint ones, ordered by start,
// and returns them with their total length.
func union(spans []span) ([]span, time.Duration) {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b span) int { return a.start.Compare(b.start) })
	var out []span
	var total time.Duration
	for _, x := range s {
		if n := len(out); n > 0 && !x.start.After(out[n-1].end) {
			if x.end.After(out[n-1].end) {
				out[n-1].end = x.end
			}
			continue
		}
		out = append(out, x)
	}
	for _, x := range out {
		total += x.end.Sub(x.start)
	}
	return out, total
}

// Users is this shard's share of a level of total users: total/Count, plus one for
// the lowest total%Count indexes, so that the shares add up to total (a share may be 0).
func (s ReportShard) Users(total int) int {
	if s.Count <= 0 || s.Index < 0 || s.Index >= s.Count || total <= 0 {
		return 0
	}
	n := total / s.Count
	if s.Index < total%s.Count {
		n++
	}
	return n
}

// Rate is this shard's share of an arrival rate: rate/Count (independent Poisson
// streams of rate R/N add up to one of rate R).
func (s ReportShard) Rate(rate float64) float64 {
	if s.Count <= 0 {
		return 0
	}
	return rate / float64(s.Count)
}
