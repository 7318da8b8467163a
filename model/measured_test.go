package model

import (
	"slices"
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

// TestMarkdownNothingMeasured: a run stopped during its first level's warm-up says its
// capacity was not measured, not that no level meets the criteria.
func TestMarkdownNothingMeasured(t *testing.T) {
	warmOnly := ReportLevel{Concurrency: 4, Requests: 3, Succeeded: 3}
	r := &Report{Settings: ReportSettings{SLO: DefaultSLO.Report()}, Interrupted: true,
		Endpoints: []ReportEndpoint{{Name: "a", Levels: []ReportLevel{warmOnly}}}}
	md := Markdown(r)
	if !strings.Contains(md, "**Verdict**: capacity not measured (no level got past its warm-up)") || strings.Contains(md, "meets the criteria") {
		t.Errorf("Markdown:\n%s", md)
	}
	// Beside a failing level, the unmeasured one is listed as such.
	failing := ReportLevel{Concurrency: 2, DurationS: 10, Requests: 20, Steady: 20, Succeeded: 10, ErrorRate: 0.5,
		Errors: map[string]int{"http_500": 10}, TTFTMs: LatencyJSON{P50: 100, P95: 200}, UserTPS: RateJSON{P50: 50}}
	r.Endpoints[0].Levels = []ReportLevel{failing, warmOnly}
	lines := strings.Split(Markdown(r), "\n")
	if !slices.Contains(lines, "- 2 users: errors 50% > 1%") ||
		!slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "- 4 users: not measured (") }) {
		t.Errorf("Markdown:\n%s", strings.Join(lines, "\n"))
	}
}
