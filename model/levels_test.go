package model

import (
	"maps"
	"reflect"
	"testing"
	"time"
)

// sumLevelErrors adds up the errors of every level.
func sumLevelErrors(ls []LevelStats) (requests int, errs map[ErrorKind]int) {
	errs = map[ErrorKind]int{}
	for _, l := range ls {
		requests += l.Requests
		for k, n := range l.Errors {
			errs[k] += n
		}
	}
	return requests, errs
}

// TestLevelsAddUpToTotals is item 2 of issue 6 (errors vanish): failures during a
// level's warm-up, and requests sent before a Reset that ended after it, are in a level
// row, so the levels' requests and errors add up to the totals the status line shows.
func TestLevelsAddUpToTotals(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 1, 0, 0, 10*sec, 100, false))
	tr.UpdateSegment(seg(2, 4, 10*sec, 14*sec, 30*sec, 100, true))
	tr.AddSample(ok(1, 0, 100*msec, sec, 10))
	tr.AddSample(failed(1, 5*sec, ErrTimeout, "slow"))
	tr.AddSample(warm(failed(4, 11*sec, ErrTimeout, "slow")))  // warm-up failure
	tr.AddSample(warm(failed(4, 12*sec, ErrTimeout, "slow")))  // another
	tr.AddSample(warm(failed(4, 12*sec, ErrTruncated, "cut"))) // and a truncated one
	tr.AddSample(warm(ok(4, 10*sec, 100*msec, sec, 10)))
	tr.AddSample(ok(4, 15*sec, 100*msec, sec, 10))

	req, succ, errs := tr.Totals()
	lreq, lerrs := sumLevelErrors(tr.Levels())
	if lreq != req || !maps.Equal(lerrs, errs) {
		t.Errorf("levels: %d requests, errors %v; totals: %d requests, errors %v", lreq, lerrs, req, errs)
	}
	l4 := levelAt(t, tr, 4)
	if l4.Requests != 5 || l4.Succeeded != 2 || l4.Steady != 1 || l4.Errors[ErrTimeout] != 2 || l4.Errors[ErrTruncated] != 1 {
		t.Errorf("level 4: requests %d succeeded %d steady %d errors %v", l4.Requests, l4.Succeeded, l4.Steady, l4.Errors)
	}
	if l4.TTFT.Count != 1 {
		t.Errorf("level 4 TTFT count %d, want only the steady success", l4.TTFT.Count)
	}
	if succ != 3 {
		t.Errorf("totals succeeded %d, want 3", succ)
	}

	// After a Reset: a request sent before it that ends after it counts in its level.
	tr.Reset(at(20 * sec))
	tr.AddSample(failed(4, 20500*msec, HTTPError(502), "bad gateway")) // sent at 19.5 s
	tr.AddSample(ok(4, 19*sec, 100*msec, 2*sec, 10))                   // sent before, ended after
	tr.AddSample(ok(4, 22*sec, 100*msec, sec, 10))
	tr.AddSample(failed(4, 19*sec, ErrTimeout, "")) // ended before the Reset: forgotten
	req, _, errs = tr.Totals()
	lreq, lerrs = sumLevelErrors(tr.Levels())
	if req != 3 || lreq != req || !maps.Equal(lerrs, errs) || lerrs[HTTPError(502)] != 1 {
		t.Errorf("after Reset: levels %d %v, totals %d %v; want 3 requests and http_502 1 in both", lreq, lerrs, req, errs)
	}
	if l := levelAt(t, tr, 4); l.Steady != 1 || l.TTFT.Count != 1 {
		t.Errorf("after Reset: steady %d TTFT count %d, want 1 and 1 (sent after the Reset only)", l.Steady, l.TTFT.Count)
	}
}

// TestLevelErrorRateNotChargedForClient: a client failure (tpsmon's own limits) is shown
// in the level's errors but neither counted as a failure nor as a request in its rate.
func TestLevelErrorRateNotChargedForClient(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	for i := range 8 {
		tr.AddSample(ok(2, time.Duration(i)*sec, 100*msec, sec, 10))
	}
	tr.AddSample(failed(2, 3*sec, HTTPError(500), "boom"))
	tr.AddSample(failed(2, 4*sec, ErrClient, "too many open files"))
	tr.AddSample(failed(2, 5*sec, ErrClient, "too many open files"))
	l := levelAt(t, tr, 2)
	if l.Requests != 11 || l.Errors[ErrClient] != 2 {
		t.Errorf("requests %d errors %v, want 11 with client 2", l.Requests, l.Errors)
	}
	if !approx(l.ErrorRate, 1.0/9) {
		t.Errorf("ErrorRate %v, want 1/9 (1 charged failure over 11 - 2 client requests)", l.ErrorRate)
	}
	// Only client failures: nothing charged, nothing to divide by.
	tr2 := NewTracker(TrackerOptions{})
	tr2.AddSample(failed(1, sec, ErrClient, "too many open files"))
	if l := levelAt(t, tr2, 1); l.ErrorRate != 0 || l.Requests != 1 {
		t.Errorf("client only: rate %v requests %d, want 0 and 1", l.ErrorRate, l.Requests)
	}
}

// TestLevelRequestRateOverSteady: the request rate is the steady requests over the
// steady window, never the warm-up ones that were sent before it began.
func TestLevelRequestRateOverSteady(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 5*sec, 15*sec, 100, false))
	for i := range 6 {
		tr.AddSample(warm(ok(2, time.Duration(i)*500*msec, 100*msec, sec, 10)))
	}
	for i := range 10 {
		tr.AddSample(ok(2, 5*sec+time.Duration(i)*sec, 100*msec, 500*msec, 10))
	}
	l := levelAt(t, tr, 2)
	if l.Requests != 16 || l.Steady != 10 || !approx(l.RequestRate, 1) {
		t.Errorf("requests %d steady %d rate %v, want 16 10 and 1/s", l.Requests, l.Steady, l.RequestRate)
	}
}

func TestMarkShort(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.AddSample(ok(8, 0, 100*msec, sec, 10))
	tr.MarkShort(8)
	tr.MarkShort(16) // a level with no request yet is created short
	tr.MarkShort(0)  // no level
	ls := tr.Levels()
	if len(ls) != 2 || !ls[0].Short || !ls[1].Short || ls[1].Concurrency != 16 {
		t.Fatalf("levels %+v, want 8 and 16, both short", ls)
	}
	tr.AddSample(ok(8, sec, 100*msec, sec, 10))
	if !levelAt(t, tr, 8).Short {
		t.Error("the mark was lost when the level got more requests")
	}
	tr.Reset(at(10 * sec))
	if len(tr.Levels()) != 0 {
		t.Errorf("levels after Reset %+v", tr.Levels())
	}
}

func TestMinSteady(t *testing.T) {
	for _, tc := range []struct{ users, want int }{{0, 20}, {1, 20}, {10, 20}, {11, 22}, {32, 64}, {1000, 2000}} {
		if got := MinSteady(tc.users); got != tc.want {
			t.Errorf("MinSteady(%d) = %d, want %d", tc.users, got, tc.want)
		}
	}
}

// TestTrackerLevelIsLevels: Level(c) is the entry of Levels at c.
func TestTrackerLevelIsLevels(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, sec, 10*sec, 900, false))
	tr.UpdateSegment(seg(2, 4, 10*sec, 12*sec, 20*sec, 800, false))
	tr.UpdateSegment(seg(3, 2, 20*sec, 21*sec, 30*sec, 450, true))
	for i := range 30 {
		c := 2 << (i % 2)
		tr.AddSample(ok(c, time.Duration(i)*sec, time.Duration(100+i)*msec, sec, 10+i))
	}
	tr.AddSample(warm(failed(4, 11*sec, ErrTimeout, "")))
	for _, want := range tr.Levels() {
		got, ok := tr.Level(want.Concurrency)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("Level(%d) = %+v, %v; want %+v", want.Concurrency, got, ok, want)
		}
	}
	if _, ok := tr.Level(8); ok {
		t.Error("Level(8) found a level that does not exist")
	}
}
