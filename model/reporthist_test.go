package model

import (
	"slices"
	"testing"
	"time"
)

// TestReportWindowsWallClock: with a WallClock, a level's steady windows are written at
// Wall + (t - At) in UTC with milliseconds, whatever the Tracker's clock reads.
func TestReportWindowsWallClock(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 1500*msec, 10*sec, 800, false))
	tr.UpdateSegment(seg(2, 4, 10*sec, 10*sec+250*msec, 20*sec, 900, false))
	tr.UpdateSegment(seg(3, 2, 20*sec, 21*sec, 30*sec, 700, true))
	paris := time.FixedZone("CET", 3600)
	wall := time.Date(2026, 11, 23, 15, 4, 5, 0, paris)
	e := tr.ReportEndpoint(EndpointInfo{Name: "x", Clock: WallClock{At: t0, Wall: wall}})
	want := map[int][]ReportWindow{
		2: {{Start: "2026-11-23T14:04:06.500Z", End: "2026-11-23T14:04:15.000Z"}, {Start: "2026-11-23T14:04:26.000Z", End: "2026-11-23T14:04:35.000Z"}},
		4: {{Start: "2026-11-23T14:04:15.250Z", End: "2026-11-23T14:04:25.000Z"}},
	}
	for _, l := range e.Levels {
		if !slices.Equal(l.Windows, want[l.Concurrency]) {
			t.Errorf("level %d windows %v, want %v", l.Concurrency, l.Windows, want[l.Concurrency])
		}
		if l.SteadyTokens == 0 || l.Hist == nil {
			t.Errorf("level %d: steady tokens %v, hist %v", l.Concurrency, l.SteadyTokens, l.Hist)
		}
	}
	// A time.Now reading carries its own wall clock: the zero WallClock uses it.
	now := time.Now()
	if got := (WallClock{}).Of(now); !got.Equal(now) || got != now.Round(0) {
		t.Errorf("zero WallClock: %v, want %v", got, now.Round(0))
	}
}

func TestUnion(t *testing.T) {
	s := func(a, b time.Duration) span { return span{start: at(a), end: at(b)} }
	tests := []struct {
		name  string
		in    []span
		want  []span
		total time.Duration
	}{
		{"none", nil, nil, 0},
		{"overlapping shards", []span{s(10*sec, 40*sec), s(9*sec, 38*sec), s(11*sec, 41*sec)}, []span{s(9*sec, 41*sec)}, 32 * sec},
		{"disjoint runs", []span{s(50*sec, 60*sec), s(0, 10*sec)}, []span{s(0, 10*sec), s(50*sec, 60*sec)}, 20 * sec},
		{"touching", []span{s(0, 10*sec), s(10*sec, 15*sec)}, []span{s(0, 15*sec)}, 15 * sec},
		{"nested", []span{s(0, 30*sec), s(5*sec, 6*sec)}, []span{s(0, 30*sec)}, 30 * sec},
	}
	for _, tc := range tests {
		got, total := union(tc.in)
		if !slices.Equal(got, tc.want) || total != tc.total {
			t.Errorf("%s: union = %v (%v), want %v (%v)", tc.name, got, total, tc.want, tc.total)
		}
	}
}

func TestShardShares(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7} {
		for _, total := range []int{1, 2, 5, 16, 33, 1000} {
			sum, prev := 0, total+1
			for i := range n {
				u := ReportShard{Index: i, Count: n}.Users(total)
				if u > prev || prev-u > 1 && i > 0 {
					t.Errorf("%d users over %d shards: shard %d gets %d after %d", total, n, i, u, prev)
				}
				sum, prev = sum+u, u
			}
			if sum != total {
				t.Errorf("%d users over %d shards add up to %d", total, n, sum)
			}
		}
	}
	if got := (ReportShard{Index: 2, Count: 4}).Users(10); got != 2 { // 3, 3, 2, 2
		t.Errorf("10 users, shard 2/4: %d, want 2", got)
	}
	if got := (ReportShard{Index: 1, Count: 2}).Users(1); got != 0 {
		t.Errorf("1 user, shard 1/2: %d, want 0", got)
	}
	if got := (ReportShard{Index: 0, Count: 4}).Rate(10); got != 2.5 {
		t.Errorf("rate 10, 4 shards: %v", got)
	}
}
