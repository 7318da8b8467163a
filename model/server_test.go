package model

import (
	"math"
	"testing"
	"time"
)

var srvT0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func vllmSample(sec int, running, waiting, kv, gen, pre float64) ServerSample {
	return ServerSample{
		Time: srvT0.Add(time.Duration(sec) * time.Second), Kind: "vLLM",
		Running: running, Waiting: waiting, KV: kv, Generated: gen, Preemptions: pre,
		Has: SigRunning | SigWaiting | SigKV | SigGenerated | SigPreemptions,
	}
}

func TestServerSeriesRatesFromCounterDeltas(t *testing.T) {
	s := NewServerSeries()
	p, ok := s.Add(vllmSample(0, 4, 0, 0.2, 1000, 0), 4)
	if !ok || p.Rate {
		t.Fatalf("first scrape: ok %v, rate %v; want a point without a rate", ok, p.Rate)
	}
	p, _ = s.Add(vllmSample(1, 4, 0, 0.25, 1400, 0), 4)
	if !p.Rate || p.GenTPS != 400 || p.Running != 4 || p.KV != 0.25 {
		t.Errorf("second scrape: %+v, want 400 tok/s, running 4, KV 0.25", p)
	}
	// Two seconds between scrapes: the rate is per second.
	p, _ = s.Add(vllmSample(3, 4, 2, 0.3, 2400, 3), 4)
	if p.GenTPS != 500 || p.Preempted != 3 {
		t.Errorf("after a 2 s gap: %.1f tok/s, %v preempted; want 500 and 3", p.GenTPS, p.Preempted)
	}
	if s.Kind() != "vLLM" {
		t.Errorf("Kind %q, want vLLM", s.Kind())
	}
	if got := len(s.Points()); got != 3 {
		t.Errorf("%d points, want 3", got)
	}
}

func TestServerSeriesSkipsCounterReset(t *testing.T) {
	s := NewServerSeries()
	s.Add(vllmSample(0, 8, 0, 0.5, 90000, 12), 8)
	s.Add(vllmSample(1, 8, 0, 0.5, 90500, 12), 8)
	// The server restarted: its counters start again from zero.
	p, _ := s.Add(vllmSample(2, 1, 0, 0.01, 40, 0), 8)
	if p.Rate || p.Preempted != 0 {
		t.Errorf("interval with a reset gave a rate: %+v", p)
	}
	p, _ = s.Add(vllmSample(3, 2, 0, 0.02, 340, 0), 8)
	if !p.Rate || p.GenTPS != 300 {
		t.Errorf("interval after the reset: %+v, want 300 tok/s", p)
	}
	l, _ := s.Level(8)
	// Two good intervals (500 and 300 tokens over 2 s); the reset interval is left out.
	if l.GenTPS == nil || *l.GenTPS != 400 {
		t.Errorf("level tok/s %v, want 400 (the reset interval skipped)", fptr(l.GenTPS))
	}
}

func TestServerSeriesLevels(t *testing.T) {
	s := NewServerSeries()
	s.Add(vllmSample(0, 1, 0, 0.1, 0, 0), 0) // warm-up: in no level
	s.Add(vllmSample(1, 16, 0, 0.4, 300, 0), 16)
	s.Add(vllmSample(2, 16, 2, 0.6, 900, 0), 16)
	s.Add(vllmSample(3, 32, 14, 0.97, 1600, 1), 32)
	s.Add(vllmSample(4, 32, 10, 0.95, 2400, 3), 32)

	l16, ok := s.Level(16)
	if !ok || l16.Scrapes != 2 {
		t.Fatalf("level 16: %+v %v", l16, ok)
	}
	if *l16.WaitingMean != 1 || *l16.WaitingMax != 2 || math.Abs(*l16.KVMeanPct-50) > 1e-9 {
		t.Errorf("level 16: waiting mean %v max %v KV %v%%, want 1, 2, 50", *l16.WaitingMean, *l16.WaitingMax, *l16.KVMeanPct)
	}
	// Level 16's first interval started in warm-up (0 -> 1 s) and is still its own: 300, then 600.
	if *l16.GenTPS != 450 {
		t.Errorf("level 16 server tok/s %v, want 450", *l16.GenTPS)
	}
	l32, _ := s.Level(32)
	if *l32.WaitingMean != 12 || *l32.WaitingMax != 14 || *l32.GenTPS != 750 || *l32.Preemptions != 3 {
		t.Errorf("level 32: %+v", l32)
	}
	if _, ok := s.Level(1); ok {
		t.Error("a warm-up scrape made a level")
	}
	s.Reset()
	if _, ok := s.Level(32); ok || len(s.Points()) != 0 {
		t.Error("Reset kept levels or points")
	}
	if p, _ := s.Add(vllmSample(5, 32, 10, 0.95, 3000, 3), 32); !p.Rate || p.GenTPS != 600 {
		t.Errorf("first scrape after Reset: %+v, want a 600 tok/s rate from the kept previous scrape", p)
	}
}

func TestServerSeriesAbsentSignals(t *testing.T) {
	// TGI publishes no KV gauge and no preemption counter.
	tgi := func(sec int, running, waiting, gen float64) ServerSample {
		return ServerSample{Time: srvT0.Add(time.Duration(sec) * time.Second), Kind: "TGI",
			Running: running, Waiting: waiting, Generated: gen, Has: SigRunning | SigWaiting | SigGenerated}
	}
	s := NewServerSeries()
	s.Add(tgi(0, 4, 1, 0), 4)
	s.Add(tgi(1, 4, 1, 200), 4)
	l, _ := s.Level(4)
	if l.KVMeanPct != nil || l.Preemptions != nil {
		t.Errorf("TGI level shows KV %v or preemptions %v it never published", fptr(l.KVMeanPct), fptr(l.Preemptions))
	}
	if l.GenTPS == nil || *l.GenTPS != 200 {
		t.Errorf("TGI level tok/s %v, want 200", fptr(l.GenTPS))
	}
}

func TestServerSeriesOrderAndRing(t *testing.T) {
	s := NewServerSeries()
	s.Add(vllmSample(5, 1, 0, 0, 0, 0), 1)
	if _, ok := s.Add(vllmSample(5, 1, 0, 0, 10, 0), 1); ok {
		t.Error("a scrape at the same time was taken")
	}
	for i := 6; i < 6+serverRing+10; i++ {
		s.Add(vllmSample(i, float64(i), 0, 0, float64(i*10), 0), 1)
	}
	pts := s.Points()
	if len(pts) != serverRing {
		t.Fatalf("%d points, want the ring's %d", len(pts), serverRing)
	}
	last, _ := s.Last()
	if !pts[0].Time.Before(pts[len(pts)-1].Time) || last != pts[len(pts)-1] {
		t.Error("Points is not oldest first, or Last is not the newest")
	}
}

func fptr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestServerLevelReportRounds(t *testing.T) {
	v := 41.31195068359375
	got := ServerLevel{Scrapes: 3, KVMeanPct: &v}.Report()
	if got.Scrapes != 3 || *got.KVMeanPct != 41.31 || got.WaitingMean != nil {
		t.Errorf("rounded %+v (KV %v), want 41.31 and absent signals left out", got, *got.KVMeanPct)
	}
}

// The prefix cache's hit rate over a level is the hits' increase over the queries'
// (vLLM's counters), a reset interval skipped; SGLang's gauge is averaged.
func TestServerSeriesPrefixCacheHits(t *testing.T) {
	s := NewServerSeries()
	add := func(sec int, hits, queries float64, level int) {
		x := vllmSample(sec, 4, 0, 0.2, 1000, 0)
		x.PrefixHits, x.PrefixQueries, x.Has = hits, queries, x.Has|SigPrefix
		s.Add(x, level)
	}
	add(0, 100, 1000, 4)
	add(1, 400, 2000, 4)  // 300 of 1000
	add(2, 1300, 3000, 4) // 900 of 1000
	add(3, 0, 10, 4)      // a restart: skipped
	add(4, 100, 1010, 8)  // 100 of 1000, another level
	l, _ := s.Level(4)
	if l.PrefixHitPct == nil || *l.PrefixHitPct != 60 {
		t.Errorf("level 4: prefix hits %v%%, want 60 (1200 of 2000 tokens)", l.PrefixHitPct)
	}
	if l8, _ := s.Level(8); l8.PrefixHitPct == nil || *l8.PrefixHitPct != 10 {
		t.Errorf("level 8: prefix hits %v%%, want 10", l8.PrefixHitPct)
	}
	g := NewServerSeries()
	for i, r := range []float64{0.2, 0.4} {
		g.Add(ServerSample{Time: srvT0.Add(time.Duration(i) * time.Second), Kind: "SGLang", Running: 1, PrefixHitRate: r,
			Has: SigRunning | SigPrefixRate}, 2)
	}
	if l, _ := g.Level(2); l.PrefixHitPct == nil || math.Abs(*l.PrefixHitPct-30) > 1e-9 {
		t.Errorf("SGLang: prefix hits %v%%, want the gauge's mean 30", l.PrefixHitPct)
	}
	if l, _ := NewServerSeries().Level(1); l.PrefixHitPct != nil {
		t.Error("a prefix hit rate without any scrape")
	}
}

// TestServerSeriesLevelRatesBeginAtTheSteadyTime: the interval from the scrape before a
// level became steady to the first one after it holds the tokens the level before it
// still generated (its users' answers finishing); the level's server tok/s leaves it
// out and counts the intervals that began in its steady time. Its gauges count.
func TestServerSeriesLevelRatesBeginAtTheSteadyTime(t *testing.T) {
	s := NewServerSeries()
	s.Add(vllmSample(0, 32, 0, 0.3, 10000, 0), 0) // the 32-user level's cool-down
	steady := srvT0.Add(500 * time.Millisecond)   // 1 user steady from 0.5 s
	// 0 to 1 s: 31 answers finishing, 600 tokens, and 1 preemption.
	s.AddSince(vllmSample(1, 1, 0, 0.01, 10600, 1), 1, steady)
	s.AddSince(vllmSample(2, 1, 0, 0.01, 10690, 1), 1, steady)
	s.AddSince(vllmSample(3, 1, 0, 0.01, 10782, 1), 1, steady)
	l, ok := s.Level(1)
	if !ok || l.GenTPS == nil || *l.GenTPS != 91 {
		t.Errorf("1 user's server tok/s %v, want 91 (1 to 3 s: 182 tokens over 2 s; not the 600 of 0 to 1 s)", fptr(l.GenTPS))
	}
	if l.Preemptions == nil || *l.Preemptions != 0 {
		t.Errorf("1 user's preemptions %v, want 0 (the one before its steady time left out)", fptr(l.Preemptions))
	}
	if l.Scrapes != 3 || l.RunningMean == nil || *l.RunningMean != 1 {
		t.Errorf("1 user: %d scrapes, running mean %v; want 3 and 1 (every scrape's gauges)", l.Scrapes, fptr(l.RunningMean))
	}
	// Add counts every interval (no steady time given).
	s2 := NewServerSeries()
	s2.Add(vllmSample(0, 1, 0, 0.01, 0, 0), 1)
	s2.Add(vllmSample(1, 1, 0, 0.01, 90, 0), 1)
	if l, _ := s2.Level(1); l.GenTPS == nil || *l.GenTPS != 90 {
		t.Errorf("Add: %v tok/s, want 90", fptr(l.GenTPS))
	}
}
