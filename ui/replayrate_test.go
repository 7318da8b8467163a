package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/probe/output/timeseries"
)

// asRateMode turns a recording into one of rate mode: the keys a rate-mode run adds
// (target_rate, capacity_rate, ramp.rate, levels[].rate) hold the users keys' numbers.
func asRateMode(s *timeseries.Series) {
	iptr := func(n int) *int { return &n }
	for i := range s.Lines {
		l := &s.Lines[i]
		l.TargetRate, l.CapacityRate = iptr(l.TargetUsers), iptr(l.Capacity)
		if l.Ramp != nil {
			l.Ramp.Rate = iptr(l.Ramp.Users)
		}
		for j := range l.Levels {
			l.Levels[j].Rate = iptr(l.Levels[j].Users)
		}
	}
}

// TestReplayWordsRateModeInRequestsPerSecond: a rate-mode recording shows its target,
// its levels and the curve's x axis in requests/s, never in users.
func TestReplayWordsRateModeInRequestsPerSecond(t *testing.T) {
	s, _ := recording(t, 25)
	asRateMode(s)
	m := newTestReplay(t, s)
	m.at(0)
	m.at(30 * time.Second)
	out := ansi.Strip(m.View().Content)
	for _, w := range []string{"rate 4 req/s", "x = requests/s", "rate/s"} {
		if !strings.Contains(out, w) {
			t.Errorf("the rate-mode replay does not show %q:\n%s", w, out)
		}
	}
	for _, w := range []string{"users 4", "x = users", " users"} {
		if strings.Contains(out, w) {
			t.Errorf("the rate-mode replay shows %q:\n%s", w, out)
		}
	}
	four := 4
	l := s.Lines[len(s.Lines)-1]
	l.Ramp = &timeseries.Ramp{Level: 2, Levels: 2, Users: 4, Rate: &four, Need: 20, LeftS: 3}
	ep := newReplayEndpoint()
	ep.apply(&l)
	if got, want := ep.rampText(), "2/2 at 4 requests/s"; !strings.HasPrefix(got, want) {
		t.Errorf("ramp %q, want it to start %q", got, want)
	}
}
