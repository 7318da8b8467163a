package model

import (
	"strings"
	"testing"
	"time"
)

// TestSLOGoodputTerm: --slo goodput>=95% is a capacity criterion that names itself
// when a level fails it.
func TestSLOGoodputTerm(t *testing.T) {
	s, err := ParseSLO("goodput>=95%")
	if err != nil || s.GoodputMin != 0.95 {
		t.Fatalf("ParseSLO: %+v, %v", s, err)
	}
	if _, err := ParseSLO("goodput<=95%"); err == nil {
		t.Fatal("goodput<= accepted")
	}
	l := LevelStats{Requests: 10, TTFT: Dist{Count: 10, P95: 100}, UserTPS: Dist{Count: 10, P50: 100}}
	l.Traffic.Goodput = GoodputStats{Judged: 10, Met: 8, Share: 0.8}
	if s.Meets(&l) {
		t.Fatal("a level at 80% goodput meets goodput>=95%")
	}
	if f := strings.Join(s.Failures(&l), "; "); !strings.Contains(f, "goodput 80% < 95%") {
		t.Fatalf("failures %q", f)
	}
	l.Traffic.Goodput = GoodputStats{Judged: 10, Met: 10, Share: 1}
	if !s.Meets(&l) {
		t.Fatalf("a level at 100%% goodput fails: %v", s.Failures(&l))
	}
}

// TestRateLevel: the samples of an open-loop level give its client-side wait, mean in
// flight, goodput and chunk gaps, and its report entry says the rate it held.
func TestRateLevel(t *testing.T) {
	tr := NewTracker(TrackerOptions{SLO: SLO{UserTPSMin: 10, TTFTP95Max: time.Second, ErrorRateMax: 0.01}})
	t0 := time.Unix(1000, 0)
	tr.SetRateMode(true)
	tr.UpdateSegment(Segment{ID: 1, Concurrency: 8, Open: true, OpenLoop: true, Start: t0, SteadyAt: t0, End: t0.Add(10 * time.Second)})
	for i := range 20 {
		send := t0.Add(time.Duration(i) * 500 * time.Millisecond)
		g := new(GapSketch)
		for range 9 {
			g.Add(20 * time.Millisecond)
		}
		ttft := 100 * time.Millisecond
		if i%4 == 0 {
			ttft = 2 * time.Second // misses the per-request TTFT target
		}
		s := Sample{Concurrency: 8, Segment: 1, OpenLoop: true, ClientWait: time.Duration(i) * time.Millisecond, Capped: i >= 10,
			Send: send, First: send.Add(ttft), Last: send.Add(ttft + 180*time.Millisecond), End: send.Add(time.Second),
			Tokens: 10, Chunks: 10, Gaps: g}
		tr.AddSample(&s)
	}
	l, ok := tr.Level(8)
	if !ok || !l.OpenLoop {
		t.Fatalf("level 8: %v %+v", ok, l)
	}
	if l.Wait.Arrivals != 20 || l.Wait.Capped != 10 || l.Wait.CappedShare != 0.5 {
		t.Errorf("client wait %+v", l.Wait)
	}
	if l.InFlight < 1.9 || l.InFlight > 2.1 { // 20 requests x 1 s over 10 s
		t.Errorf("mean in flight %v, want 2", l.InFlight)
	}
	if g := l.Traffic.Goodput; g.Judged != 20 || g.Met != 15 || g.Rate != 1.5 {
		t.Errorf("goodput %+v, want 15 of 20, 1.5/s", g)
	}
	if c := l.Traffic.ChunkGaps; c.Count != 180 || c.P50 < 19 || c.P50 > 21 {
		t.Errorf("chunk gaps %+v", c)
	}
	rl := l.Report()
	if rl.Rate == nil || *rl.Rate != 8 || rl.ClientWaitMs == nil || rl.ClientWaitMs.Capped != 10 {
		t.Errorf("report: rate %v wait %+v", rl.Rate, rl.ClientWaitMs)
	}
}
