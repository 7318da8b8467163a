package model

import (
	"strings"
	"testing"
)

// TestNotMeasuredSaysWhereTheLoadLeft: a level with no steady answer is not measured,
// and says where the load left it. bench interrupted at 4 users, 2.12 s into its steady
// time with its steady requests in flight (canceled), said "the load moved on during
// its warm-up" and marked it "warm-up only" in every table, though its steady window,
// its tokens and the server's scrapes of it were in the file.
func TestNotMeasuredSaysWhereTheLoadLeft(t *testing.T) {
	s := ReportSettings{Ramp: []int{1, 2, 4}, MinRequests: MinFloor, HoldS: 5, MaxHoldS: 120, SLO: DefaultSLO.Report()}
	full := ReportLevel{Concurrency: 1, DurationS: 20, Requests: 9, Steady: 9, Succeeded: 9, Errors: map[string]int{},
		TTFTMs: LatencyJSON{P50: 20, P95: 22}, UserTPS: RateJSON{P50: 90}, AggregateTPS: 90}
	interrupted := ReportLevel{Concurrency: 4, DurationS: 2.12, Requests: 4, Succeeded: 4, Errors: map[string]int{}, AggregateTPS: 279.95, SteadyTokens: 594}
	warm := ReportLevel{Concurrency: 4, Requests: 4, Succeeded: 4, Errors: map[string]int{}}
	for _, c := range []struct {
		l           ReportLevel
		mark, words string
	}{
		{interrupted, "no steady answer", "the load moved on 2.12 s into its steady time, before a steady request ended; none failed"},
		{warm, "warm-up only", "warm-up"},
	} {
		e := ReportEndpoint{Name: "sim", Levels: []ReportLevel{full, c.l}}
		j := JudgeEndpoint(&s, &e, true, false)
		l := j.Levels[1]
		if l.State != LevelNotMeasured || l.Mark() != c.mark {
			t.Errorf("%.2f s steady: state %q, mark %q; want not measured, %q", c.l.DurationS, l.State.Mark(), l.Mark(), c.mark)
		}
		if len(l.Failures) != 1 || !strings.Contains(l.Failures[0], c.words) || !strings.Contains(l.StateWords, c.words) {
			t.Errorf("%.2f s steady: %q / %q; want %q", c.l.DurationS, l.Failures, l.StateWords, c.words)
		}
		if c.l.DurationS > 0 && strings.Contains(strings.Join(l.Failures, " ")+l.StateWords, "warm-up") {
			t.Errorf("a level left in its steady time is said left in its warm-up: %q / %q", l.Failures, l.StateWords)
		}
		if j.Capacity.Report().Users != 1 || !j.Capacity.Report().AtLeast {
			t.Errorf("capacity %+v, want at least 1 user", j.Capacity.Report())
		}
	}
}
