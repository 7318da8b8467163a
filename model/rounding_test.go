package model

import (
	"strings"
	"testing"
)

// TestSentencesRoundAsTheTables: a sentence says a figure as its table cell shows it.
// A rate-mode run's level at 3 requests/s read "23.1" in its row (per-user p50 23.15,
// which is 23.1499... in binary) and "per-user p50 23.2 tok/s < 30 tok/s" in the
// verdict's lines: the words rounded v x 10 half away from zero, the cells the exact
// value.
func TestSentencesRoundAsTheTables(t *testing.T) {
	l := ReportLevel{Concurrency: 3, DurationS: 20, Requests: 47, Steady: 47, Succeeded: 47, Errors: map[string]int{},
		TTFTMs: LatencyJSON{P50: 40, P95: 60}, UserTPS: RateJSON{P50: 23.15}}
	cell := Cell(l.UserTPS.P50, 30, 1, true)
	why := strings.Join(DefaultSLO.ReportFailures(&l), "; ")
	if cell != "23.1" || why != "per-user p50 "+cell+" tok/s < 30 tok/s" {
		t.Errorf("cell %q, words %q: they differ", cell, why)
	}
	for _, c := range []struct {
		v    float64
		dec  int
		want string
	}{{23.15, 1, "23.1"}, {23.0, 1, "23"}, {2.5, 0, "2"}, {-0.01, 1, "0"}, {1.005, 2, "1"}, {33.3333, 2, "33.33"}, {740.4, 0, "740"}} {
		if got := fmtNum(c.v, c.dec); got != c.want {
			t.Errorf("fmtNum(%v, %d) = %q, want %q", c.v, c.dec, got, c.want)
		}
	}
}
