package model

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// level of c users with n steady requests: TTFT ttft, then 51 tokens over decode
// (per-user (51-1)/decode), every fail-th failing with http_500 (0: none).
func levelOf(tr *Tracker, c, n, fail int, ttft, decode time.Duration, start time.Duration) {
	tr.UpdateSegment(seg(c, c, start, start, start+time.Duration(n)*sec, int64(n*51), false))
	for i := range n {
		if fail > 0 && i%fail == fail-1 {
			tr.AddSample(failed(c, start+time.Duration(i)*sec+sec, HTTPError(500), "boom"))
			continue
		}
		tr.AddSample(ok(c, start+time.Duration(i)*sec, ttft, decode, 51))
	}
}

func callOf(t *testing.T, tr *Tracker, c int) LevelCall {
	t.Helper()
	l, ok := tr.Level(c)
	if !ok {
		t.Fatalf("no level %d", c)
	}
	return tr.SLO().Call(&l)
}

func decisions(calls []Call) map[string]Decision {
	m := map[string]Decision{}
	for _, c := range calls {
		m[c.Term] = c.Decision
	}
	return m
}

// TestCallDecides: each criterion is decided when its interval lies wholly on one side
// of its target, and only then.
func TestCallDecides(t *testing.T) {
	tr := NewTracker(TrackerOptions{}) // 30 tok/s, TTFT p95 2 s, errors 1%
	// 110 requests at 100 ms TTFT, 50 tok/s: the p95's 99% upper bound is the largest
	// TTFT (from 104 on), the median's interval is 50 tok/s; 0 errors in 110 is below
	// 5.7% only (99%).
	levelOf(tr, 1, 110, 0, 100*msec, sec, 0)
	c := callOf(t, tr, 1)
	if got := decisions(c.Calls); got[TermTTFT] != Meets || got[TermUserTPS] != Meets || got[TermErrorRate] != Undecided {
		t.Errorf("110 clean requests: %v", got)
	}
	if !c.Met() || c.Fails() || len(c.Curve) != 0 {
		t.Errorf("110 clean requests: met %v fails %v curve %v", c.Met(), c.Fails(), c.Curve)
	}
	// The rule reads 99% intervals; the level reports 95% ones: with 80 requests its
	// reported TTFT p95 is bounded (72 suffice), the rule's is not yet (104).
	tr = NewTracker(TrackerOptions{})
	levelOf(tr, 1, 80, 0, 100*msec, sec, 0)
	if l, _ := tr.Level(1); !l.CI.TTFTP95.Bounded() || decisions(callOf(t, tr, 1).Calls)[TermTTFT] != Undecided {
		t.Errorf("80 requests: reported TTFT p95 %v, the rule's call %v; want bounded, undecided", *l.CI.TTFTP95, decisions(callOf(t, tr, 1).Calls))
	}
	if w := c.Waiting(true); len(w) != 0 {
		t.Errorf("confirming waits for %v: the error rate meets its target and is a share", Terms(w))
	}
	// 40 such requests: the p95 has no upper bound yet. Exploring, nothing holds the level
	// (its figures meet the targets); confirming, the TTFT p95 does.
	tr = NewTracker(TrackerOptions{})
	levelOf(tr, 2, 40, 0, 100*msec, sec, 0)
	c = callOf(t, tr, 2)
	if got := decisions(c.Calls); got[TermTTFT] != Undecided || c.Met() {
		t.Errorf("40 requests: %v met %v", got, c.Met())
	}
	if w := c.Waiting(false); len(w) != 0 {
		t.Errorf("exploring waits for %v", Terms(w))
	}
	if w := Terms(c.Waiting(true)); !slices.Equal(w, []string{TermTTFT}) {
		t.Errorf("confirming waits for %v, want the TTFT p95", w)
	}
	// 25 tok/s for everyone: the per-user p50 fails at 95%, and the level with it.
	tr = NewTracker(TrackerOptions{})
	levelOf(tr, 4, 10, 0, 100*msec, 2*sec, 0)
	c = callOf(t, tr, 4)
	if got := decisions(c.Calls); got[TermUserTPS] != Fails || !c.Fails() || len(c.Waiting(true)) != 0 {
		t.Errorf("25 tok/s: %v fails %v", got, c.Fails())
	}
	// TTFT 3 s in 20 requests: the p95's lower bound (the 16th of 20 at the 5% side) is
	// above 2 s: decided failing although no upper bound exists.
	tr = NewTracker(TrackerOptions{})
	levelOf(tr, 8, 20, 0, 3*sec, sec, 0)
	if got := decisions(callOf(t, tr, 8).Calls); got[TermTTFT] != Fails {
		t.Errorf("TTFT 3 s: %v", got)
	}
	// One failure in 10 (10% > 1%): the Wilson interval [1.8%, 40%] straddles nothing:
	// it lies above 1%: decided failing.
	tr = NewTracker(TrackerOptions{})
	levelOf(tr, 16, 10, 10, 100*msec, sec, 0)
	if got := decisions(callOf(t, tr, 16).Calls); got[TermErrorRate] != Fails {
		t.Errorf("1 in 10 failed: %v", got)
	}
	// One in 50 (2%): [0.35%, 10.5%] straddles 1%; its figure fails: every phase waits.
	tr = NewTracker(TrackerOptions{})
	levelOf(tr, 32, 50, 50, 100*msec, sec, 0)
	c = callOf(t, tr, 32)
	if w := Terms(c.Waiting(false)); !slices.Equal(w, []string{TermErrorRate}) {
		t.Errorf("1 in 50: exploring waits for %v, want the error rate", w)
	}
}

// TestCapacityDecided: the capacity is decided when its level meets the criteria at 95%
// and the next one fails one at 95%.
func TestCapacityDecided(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	levelOf(tr, 1, 110, 0, 100*msec, sec, 0)        // meets at 95%
	levelOf(tr, 2, 10, 0, 100*msec, 2*sec, 100*sec) // 25 tok/s: fails at 95%
	e := tr.ReportEndpoint(EndpointInfo{Name: "x"})
	if e.Capacity != (ReportCap{Users: 1, Decided: true}) {
		t.Errorf("capacity %+v, want 1 user decided", e.Capacity)
	}
	if u := e.Unproven(tr.SLO()); !slices.Equal(u, []string{TermErrorRate}) {
		t.Errorf("unproven %v, want the error rate (0 of 110 is not below 1%% at 95%%)", u)
	}
	// The capacity's level with 30 requests: its TTFT p95 is not decided.
	tr = NewTracker(TrackerOptions{})
	levelOf(tr, 1, 30, 0, 100*msec, sec, 0)
	levelOf(tr, 2, 10, 0, 100*msec, 2*sec, 100*sec)
	if c := tr.ReportEndpoint(EndpointInfo{}).Capacity; c != (ReportCap{Users: 1}) {
		t.Errorf("capacity %+v, want 1 user, not decided", c)
	}
	// An undecided level above: it neither sets nor bounds the capacity, which is then a
	// lower bound, not decided.
	tr = NewTracker(TrackerOptions{})
	levelOf(tr, 1, 110, 0, 100*msec, sec, 0)
	levelOf(tr, 2, 20, 0, 100*msec, sec, 200*sec)
	tr.MarkUndecided(2, []string{TermTTFT})
	if c := tr.ReportEndpoint(EndpointInfo{}).Capacity; c != (ReportCap{Users: 1, AtLeast: true}) {
		t.Errorf("capacity %+v, want at least 1 user, not decided", c)
	}
	// No level meets: decided when the lowest fails at 95%.
	tr = NewTracker(TrackerOptions{})
	levelOf(tr, 1, 10, 0, 100*msec, 2*sec, 0)
	if c := tr.ReportEndpoint(EndpointInfo{}).Capacity; c != (ReportCap{Decided: true}) {
		t.Errorf("capacity %+v, want none, decided", c)
	}
}

// TestMoreRequests: what a level still needs, if what it shows stays what it is.
func TestMoreRequests(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	levelOf(tr, 1, 40, 0, 100*msec, sec, 0)
	l, _ := tr.Level(1)
	slo := tr.SLO()
	// The rule's TTFT p95 (99%) is bounded from 104 samples on: 64 more.
	if more, ok := slo.MoreRequests(&l, []string{TermTTFT}, nil); !ok || more != 64 {
		t.Errorf("TTFT p95 of 40: %d more (%v), want 64", more, ok)
	}
	// 0 errors in 40: 657 show the rate below 1% at 99% (6.63 / (n + 6.63) <= 1%).
	if more, ok := slo.MoreRequests(&l, []string{TermErrorRate}, nil); !ok || more != 657-40 {
		t.Errorf("errors 0 of 40: %d more (%v), want %d", more, ok, 657-40)
	}
	// A median on its target (half the requests at 40 tok/s, half at 60) never decides.
	tr = NewTracker(TrackerOptions{SLO: SLO{UserTPSMin: 50, TTFTP95Max: 2 * sec, ErrorRateMax: 0.01}})
	tr.UpdateSegment(seg(1, 1, 0, 0, 100*sec, 4000, false))
	for i := range 40 {
		tr.AddSample(ok(1, time.Duration(i)*sec, 100*msec, sec, 41+20*(i%2)))
	}
	l, _ = tr.Level(1)
	if _, ok := tr.SLO().MoreRequests(&l, []string{TermUserTPS}, nil); ok {
		t.Error("a per-user p50 on its target is said to decide")
	}
	// A curve figure known to ±10% with 40 requests needs 4 times as many for ±5%.
	l.look, l.UserTPS.P50, l.CI.UserTPSP50 = nil, 50, &Interval{45, 55}
	if more, ok := slo.MoreRequests(&l, nil, []string{"per-user p50"}); !ok || more != 120 {
		t.Errorf("per-user p50 ±10%% of 40: %d more (%v), want 120", more, ok)
	}
}

// TestCooldown: a request still in flight when its level ended (its segment closed)
// counts in the level's requests, errors and steady requests (the request rate), not in
// its distributions nor its goodput: the end of its life ran at the next level's load.
func TestCooldown(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	s := seg(1, 4, 0, 0, 10*sec, 400, false) // closed at 10 s
	tr.UpdateSegment(s)
	in := ok(4, 2*sec, 100*msec, 5*sec, 51) // ended at 7.1 s, inside
	in.Segment = 1
	late := ok(4, 8*sec, 100*msec, 5*sec, 11) // ended at 13.1 s, after the level
	late.Segment = 1
	tr.AddSample(in)
	tr.AddSample(late)
	l, _ := tr.Level(4)
	if l.Requests != 2 || l.Succeeded != 2 || l.Steady != 2 || l.UserTPS.Count != 1 || l.UserTPS.P50 != 10 || l.Traffic.Goodput.Judged != 1 {
		t.Errorf("requests %d succeeded %d steady %d, per-user %+v, goodput judged %d; want 2, 2, 2 and only the 10 tok/s request judged", l.Requests, l.Succeeded, l.Steady, l.UserTPS, l.Traffic.Goodput.Judged)
	}
}

// TestMergeRefinedLevels: merging runs whose bisections took different paths keeps each
// refined level, marked, and recomputes its intervals from the merged histograms.
func TestMergeRefinedLevels(t *testing.T) {
	run := func(refined int, at time.Duration) *Report {
		tr := NewTracker(TrackerOptions{})
		levelOf(tr, 16, 40, 0, 100*msec, sec, at)
		levelOf(tr, 32, 12, 0, 100*msec, 2*sec, at+100*sec)
		levelOf(tr, refined, 20, 0, 100*msec, 1600*msec, at+200*sec)
		tr.MarkRefined(refined)
		return &Report{Schema: Schema, Settings: ReportSettings{Ramp: []int{16, 32}, SLO: DefaultSLO.Report()},
			Endpoints: []ReportEndpoint{tr.ReportEndpoint(EndpointInfo{Name: "sim"})}}
	}
	m, err := Merge([]MergeFile{{Name: "a.json", Report: run(23, 0)}, {Name: "b.json", Report: run(24, 1000*sec)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range m.Endpoints[0].Levels {
		got = append(got, fmt.Sprintf("%d refined %v steady %d", l.Concurrency, l.Refined, l.Steady))
		if l.Concurrency == 16 && (l.CI95.UserTPSP50 == nil || l.Hist.Aggregate == nil || l.Hist.Aggregate.N != 80) {
			t.Errorf("16 users merged: ci95 %+v, aggregate sums %+v; want them over both runs' 80 requests", l.CI95, l.Hist.Aggregate)
		}
	}
	want := []string{"16 refined false steady 80", "23 refined true steady 20", "24 refined true steady 20", "32 refined false steady 24"}
	if !slices.Equal(got, want) {
		t.Errorf("merged levels %v, want %v", got, want)
	}
}
