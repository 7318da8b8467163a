package model

import (
	"strings"
	"testing"
	"time"
)

// TestLevelLeftInWarmupIsNotJudged is what `+ + r` on the screen did: three users by
// hand, then the auto-ramp from 1 user before the 3-user level became steady. Its two
// warm-up requests succeeded and ended in it, so it has requests and no steady one. The
// verdict read "capacity none - 3 users: no TTFT measured" while the 1-user level
// passed: a level the load left during its warm-up says nothing about the endpoint.
func TestLevelLeftInWarmupIsNotJudged(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.AddSample(warm(ok(3, 0, 20*msec, 2*sec, 200)))
	tr.AddSample(warm(ok(3, 0, 20*msec, 2*sec, 200)))
	three := levelAt(t, tr, 3)
	if three.Requests != 2 || three.Steady != 0 || three.Measured() {
		t.Fatalf("3-user level: requests %d steady %d measured %v; want 2, 0, not measured", three.Requests, three.Steady, three.Measured())
	}
	if got := verdictOf(tr.Levels(), DefaultSLO, true, true); got != "" {
		t.Errorf("with only the warm-up level ended, Verdict = %q, want none yet", got)
	}
	for i := range 20 {
		tr.AddSample(ok(1, sec+secs(i), 20*msec, 2*sec, 200))
	}
	want := "capacity at least 1 user (limit not reached: the ramp goes on); saturation not measured"
	if got := verdictOf(tr.Levels(), DefaultSLO, true, false); !strings.HasPrefix(got, want) {
		t.Errorf("Verdict = %q, want %q", got, want)
	}
	if got := capacityOf(tr.Levels(), DefaultSLO, false); got != (ReportCap{Users: 1, AtLeast: true}) {
		t.Errorf("capacity %+v: a level above that was never measured made it exact", got)
	}
	if why := DefaultSLO.Failures(&three); len(why) != 1 || !strings.HasPrefix(why[0], "not measured") {
		t.Errorf("Failures = %q, want one saying it was not measured", why)
	}

	// A warm-up that failed is measured (the endpoint failed at that load), but not
	// measured in full: with no steady request it bounds nothing.
	tr.AddSample(warm(failed(3, 3*sec, HTTPError(500), "boom")))
	if three = levelAt(t, tr, 3); !three.Measured() {
		t.Error("a level with a warm-up failure is not measured")
	}
	if got := capacityOf(tr.Levels(), DefaultSLO, false); got != (ReportCap{Users: 1, AtLeast: true}) {
		t.Errorf("capacity %+v, want at least 1 user (3 users failed in its warm-up only)", got)
	}
}

func secs(i int) time.Duration { return time.Duration(i) * sec }
