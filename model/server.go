package model

import (
	"math"
	"time"
)

// ServerSignal is a set of the signals an inference server's /metrics published in one
// scrape. Servers publish different subsets (TGI and llama.cpp have no KV-cache gauge
// and no preemption counter), so every reader checks Has before using a value.
type ServerSignal uint8

// The signals of the server's own view (measurement contract, "The server's view").
const (
	SigRunning     ServerSignal = 1 << iota // requests being decoded now (gauge)
	SigWaiting                              // requests queued for a place in the batch (gauge)
	SigKV                                   // KV-cache use, 0 to 1 (gauge)
	SigGenerated                            // tokens generated since the server started (counter)
	SigPreemptions                          // sequences preempted since the server started (counter)
	SigPrefix                               // prefix-cache hits and queries, in prompt tokens (counters: vLLM)
	SigPrefixRate                           // prefix-cache hit rate, 0 to 1 (gauge: SGLang)
)

// Has reports whether every signal of want is in s.
func (s ServerSignal) Has(want ServerSignal) bool { return s&want == want }

// ServerSample is one scrape of a server's /metrics, summed over the model's series
// (KV use averaged): what the server says, never mixed with tpsmon's own figures.
type ServerSample struct {
	Time        time.Time // when the scrape's answer arrived
	Kind        string    // the server recognised by its metric names: vLLM, SGLang, TGI, llama.cpp
	Running     float64
	Waiting     float64
	KV          float64 // 0 to 1
	Generated   float64 // counter
	Preemptions float64 // counter
	Has         ServerSignal
	// The prefix cache: vLLM's hits and queries counters (prompt tokens found cached,
	// prompt tokens looked up), or SGLang's hit-rate gauge (0 to 1).
	PrefixHits, PrefixQueries float64
	PrefixHitRate             float64
}

// ServerPoint is one point of the server's per-second series: the scrape's gauges as
// they are, and rates from the counters' deltas since the previous scrape.
type ServerPoint struct {
	Time    time.Time
	Running float64
	Waiting float64
	KV      float64 // 0 to 1
	// GenTPS is the tokens the server generated per second since the previous scrape;
	// Preempted is the preemptions in that interval. Both are valid only with Rate.
	GenTPS    float64
	Preempted float64
	Rate      bool
	Has       ServerSignal
}

// ServerLevel summarises the server's view over one level's scrapes. JSON keys follow
// the report's style; absent signals are left out.
type ServerLevel struct {
	Scrapes     int      `json:"scrapes"`
	WaitingMean *float64 `json:"waiting_mean,omitempty"`
	WaitingMax  *float64 `json:"waiting_max,omitempty"`
	RunningMean *float64 `json:"running_mean,omitempty"`
	KVMeanPct   *float64 `json:"kv_mean_pct,omitempty"` // mean KV-cache use, percent
	GenTPS      *float64 `json:"server_tps,omitempty"`  // tokens/s the server generated over the level
	Preemptions *float64 `json:"preemptions,omitempty"` // preemptions during the level
	// PrefixHitPct is the share of prompt tokens the server found in its prefix cache
	// during the level, in percent (vLLM's hits over queries counters, or the mean of
	// SGLang's hit-rate gauge); absent when the server publishes neither.
	PrefixHitPct *float64 `json:"prefix_cache_hit_pct,omitempty"`
}

// serverAcc accumulates one level's scrapes.
type serverAcc struct {
	n                         int
	nWait, nRun, nKV          int
	wait, waitMax, run        float64
	kv                        float64
	genTokens, genTime        float64 // tokens and seconds of the intervals with a counter rate
	preempt                   float64
	nGen, nPreempt            int
	prefixHits, prefixQueries float64 // counter deltas over the level
	nPrefix, nPrefixRate      int
	prefixRate                float64 // sum of the hit-rate gauge
}

// serverRing bounds the per-second series: ten minutes of scrapes at one a second.
const serverRing = 600

// ServerSeries turns consecutive scrapes of one endpoint's server into a per-second
// series and per-level summaries. Gauges are taken as they are; rates come from the
// counters' deltas between two consecutive scrapes, and an interval in which a counter
// went down (the server restarted, its counters were reset) gives no rate for that
// counter. Not safe for concurrent use; the engine owns it.
type ServerSeries struct {
	prev    ServerSample
	hasPrev bool
	points  []ServerPoint // ring, oldest at head once full
	head    int
	levels  map[int]*serverAcc
}

// NewServerSeries returns an empty series.
func NewServerSeries() *ServerSeries {
	return &ServerSeries{levels: map[int]*serverAcc{}}
}

// Add takes one scrape and returns its point. level is the concurrency the scrape's
// interval belongs to (the engine passes the current level; 0 or less: count it in no
// level, e.g. while paused or warming up). A scrape not later than the previous one is
// ignored (ok false).
func (s *ServerSeries) Add(x ServerSample, level int) (p ServerPoint, ok bool) {
	return s.AddSince(x, level, time.Time{})
}

// AddSince is Add for a level steady since since: the interval from the previous
// scrape counts toward the level's rates (tokens, preemptions, prefix hits) only when
// it began at since or later, so that a level's server tok/s leaves out what the
// server generated before the level was steady (the requests of the level before it
// still finishing: 31 of 32 users' answers ending in a 1-user level's first second
// read as "the server generated 1.18x what tpsmon received"). The scrape's gauges count
// toward the level either way.
func (s *ServerSeries) AddSince(x ServerSample, level int, since time.Time) (p ServerPoint, ok bool) {
	if s.hasPrev && !x.Time.After(s.prev.Time) {
		return ServerPoint{}, false
	}
	p = ServerPoint{Time: x.Time, Running: x.Running, Waiting: x.Waiting, KV: x.KV, Has: x.Has}
	if s.hasPrev {
		dt := x.Time.Sub(s.prev.Time).Seconds()
		gen, okGen := counterDelta(s.prev, x, SigGenerated, s.prev.Generated, x.Generated)
		pre, okPre := counterDelta(s.prev, x, SigPreemptions, s.prev.Preemptions, x.Preemptions)
		if okGen {
			p.GenTPS, p.Rate = gen/dt, true
		}
		if okPre {
			p.Preempted = pre
		}
		if level > 0 && !s.prev.Time.Before(since) {
			s.level(level).addRates(gen, okGen, dt, pre, okPre)
			s.level(level).addPrefix(s.prev, x)
		}
	}
	if level > 0 {
		s.level(level).addGauges(x)
	}
	s.prev, s.hasPrev = x, true
	s.push(p)
	return p, true
}

// counterDelta is a counter's increase between two scrapes; false when either scrape
// lacks it or it went down (a reset).
func counterDelta(a, b ServerSample, sig ServerSignal, va, vb float64) (float64, bool) {
	if !a.Has.Has(sig) || !b.Has.Has(sig) || vb < va {
		return 0, false
	}
	return vb - va, true
}

func (s *ServerSeries) level(c int) *serverAcc {
	a := s.levels[c]
	if a == nil {
		a = &serverAcc{}
		s.levels[c] = a
	}
	return a
}

func (s *ServerSeries) push(p ServerPoint) {
	if len(s.points) < serverRing {
		s.points = append(s.points, p)
		return
	}
	s.points[s.head] = p
	s.head = (s.head + 1) % serverRing
}

// Points returns the series, oldest first (at most the last ten minutes).
func (s *ServerSeries) Points() []ServerPoint {
	out := make([]ServerPoint, 0, len(s.points))
	out = append(out, s.points[s.head:]...)
	return append(out, s.points[:s.head]...)
}

// Last returns the newest point.
func (s *ServerSeries) Last() (ServerPoint, bool) {
	if len(s.points) == 0 {
		return ServerPoint{}, false
	}
	return s.points[(s.head+len(s.points)-1)%len(s.points)], true
}

// Kind is the server recognised in the latest scrape ("" before the first).
func (s *ServerSeries) Kind() string { return s.prev.Kind }

// Level returns the summary of the scrapes counted in concurrency level c.
func (s *ServerSeries) Level(c int) (ServerLevel, bool) {
	a := s.levels[c]
	if a == nil || a.n == 0 {
		return ServerLevel{}, false
	}
	return a.summary(), true
}

// Reset forgets the series and the levels. The last scrape is kept, so that the next
// one still gives a rate.
func (s *ServerSeries) Reset() {
	s.points, s.head = nil, 0
	s.levels = map[int]*serverAcc{}
}

func (a *serverAcc) addGauges(x ServerSample) {
	a.n++
	if x.Has.Has(SigWaiting) {
		a.nWait++
		a.wait += x.Waiting
		a.waitMax = math.Max(a.waitMax, x.Waiting)
	}
	if x.Has.Has(SigRunning) {
		a.nRun++
		a.run += x.Running
	}
	if x.Has.Has(SigKV) {
		a.nKV++
		a.kv += x.KV
	}
	if x.Has.Has(SigPrefixRate) {
		a.nPrefixRate++
		a.prefixRate += x.PrefixHitRate
	}
}

// addPrefix adds the prefix cache's counters' increase between two scrapes (none when
// either lacks them or one went down).
func (a *serverAcc) addPrefix(prev, x ServerSample) {
	hits, okH := counterDelta(prev, x, SigPrefix, prev.PrefixHits, x.PrefixHits)
	queries, okQ := counterDelta(prev, x, SigPrefix, prev.PrefixQueries, x.PrefixQueries)
	if okH && okQ && hits <= queries {
		a.nPrefix++
		a.prefixHits += hits
		a.prefixQueries += queries
	}
}

func (a *serverAcc) addRates(gen float64, okGen bool, dt, pre float64, okPre bool) {
	if okGen {
		a.nGen++
		a.genTokens += gen
		a.genTime += dt
	}
	if okPre {
		a.nPreempt++
		a.preempt += pre
	}
}

func (a *serverAcc) summary() ServerLevel {
	v := func(f float64) *float64 { return &f }
	l := ServerLevel{Scrapes: a.n}
	if a.nWait > 0 {
		l.WaitingMean, l.WaitingMax = v(a.wait/float64(a.nWait)), v(a.waitMax)
	}
	if a.nRun > 0 {
		l.RunningMean = v(a.run / float64(a.nRun))
	}
	if a.nKV > 0 {
		l.KVMeanPct = v(100 * a.kv / float64(a.nKV))
	}
	if a.nGen > 0 && a.genTime > 0 {
		l.GenTPS = v(a.genTokens / a.genTime)
	}
	if a.nPreempt > 0 {
		l.Preemptions = v(a.preempt)
	}
	switch {
	case a.prefixQueries > 0:
		l.PrefixHitPct = v(100 * a.prefixHits / a.prefixQueries)
	case a.nPrefixRate > 0:
		l.PrefixHitPct = v(100 * a.prefixRate / float64(a.nPrefixRate))
	}
	return l
}

// levelGapMin is how far apart a level's generated and received tok/s are worth a note
// (a whole level's figures: less noisy than the live cross-check's seconds, gapMin).
const levelGapMin = 0.10

// ServerGap is the server's generated tok/s over the tokens tpsmon received, when the
// two are more than 10% apart (the level cross-check's threshold, levelGapMin); ok is
// false otherwise or when either is unknown.
func ServerGap(sv *ServerLevel, received float64) (ratio float64, ok bool) {
	if sv == nil || sv.GenTPS == nil || received <= 0 {
		return 0, false
	}
	r := *sv.GenTPS / received
	return r, r > 1+levelGapMin || r < 1-levelGapMin
}

// Report is l as the report writes it: figures rounded to 2 decimals.
func (l ServerLevel) Report() *ServerLevel {
	r := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		x := round(*v, 2)
		return &x
	}
	return &ServerLevel{Scrapes: l.Scrapes, WaitingMean: r(l.WaitingMean), WaitingMax: r(l.WaitingMax),
		RunningMean: r(l.RunningMean), KVMeanPct: r(l.KVMeanPct), GenTPS: r(l.GenTPS), Preemptions: r(l.Preemptions),
		PrefixHitPct: r(l.PrefixHitPct)}
}
