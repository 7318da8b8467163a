package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var tt0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// req is a successful request: first token after ttft, then n tokens over decode.
func req(ttft time.Duration, n int, decode time.Duration) *Sample {
	return &Sample{
		Send: tt0, First: tt0.Add(ttft), Last: tt0.Add(ttft + decode), End: tt0.Add(ttft + decode),
		Tokens: n, Chunks: n, Usage: true,
	}
}

func TestGoodputJudgesEachRequest(t *testing.T) {
	target := GoodputTarget{TTFTMax: time.Second, UserTPSMin: 30}
	for _, tc := range []struct {
		name string
		s    *Sample
		met  bool
	}{
		{"fast and fluid", req(500*time.Millisecond, 101, 2*time.Second), true},      // 50 tok/s
		{"TTFT at the limit", req(time.Second, 101, 2*time.Second), true},            // <= is met
		{"slow first token", req(1001*time.Millisecond, 101, 2*time.Second), false},  //
		{"slow decode", req(100*time.Millisecond, 51, 2*time.Second), false},         // 25 tok/s
		{"decode at the target", req(100*time.Millisecond, 61, 2*time.Second), true}, // 30 tok/s
		{"one token: TTFT alone", req(100*time.Millisecond, 1, 0), true},             //
		{"failed", func() *Sample { s := req(0, 10, time.Second); s.Err = ErrTruncated; return s }(), false},
		{"no first token", &Sample{Send: tt0, End: tt0.Add(time.Second)}, false},
	} {
		if got := target.Met(tc.s); got != tc.met {
			t.Errorf("%s: Met = %v, want %v", tc.name, got, tc.met)
		}
	}
}

func TestGoodputShareAndRate(t *testing.T) {
	g := NewGoodput(DefaultSLO.Goodput())
	if g.Target.TTFTMax != 2*time.Second || g.Target.UserTPSMin != 30 {
		t.Fatalf("DefaultSLO.Goodput() = %+v", g.Target)
	}
	for i := range 10 {
		ttft := 100 * time.Millisecond
		if i >= 7 {
			ttft = 3 * time.Second // 3 of 10 miss the TTFT target
		}
		g.Add(req(ttft, 101, time.Second))
	}
	failed := req(0, 0, 0)
	failed.Err = HTTPError(500)
	g.Add(failed) // judged, not met
	client := req(0, 0, 0)
	client.Err = ErrClient
	g.Add(client) // tpsmon's own limit: not judged
	canceled := req(0, 0, 0)
	canceled.Err = ErrCanceled
	g.Add(canceled)
	st := g.Stats(7 * time.Second)
	if st.Judged != 11 || st.Met != 7 || math.Abs(st.Share-7.0/11) > 1e-12 || st.Rate != 1 {
		t.Errorf("goodput = %+v, want 7 of 11 met, 1 request/s over 7 s", st)
	}
	empty := NewGoodput(DefaultSLO.Goodput())
	if st := empty.Stats(0); st != (GoodputStats{}) {
		t.Errorf("empty goodput = %+v", st)
	}
	if (SLO{}).Goodput() != DefaultSLO.Goodput() {
		t.Errorf("the zero SLO does not judge goodput against the defaults")
	}
}

func TestLengthsSummaries(t *testing.T) {
	l := NewLengths()
	for i := 1; i <= 100; i++ {
		s := req(0, i, time.Second)
		s.PromptTokens = 1000 + i
		l.Add(s)
	}
	noUsage := req(0, 50, time.Second) // no prompt_tokens reported: output only
	l.Add(noUsage)
	failed := req(0, 7, time.Second)
	failed.PromptTokens = 5
	failed.Err = ErrTruncated
	l.Add(failed)
	st := l.Stats()
	if st.Input.Count != 100 || st.Input.Mean != 1050.5 || st.Input.P50 != 1050 || st.Input.P90 != 1090 {
		t.Errorf("input lengths = %+v", st.Input)
	}
	if st.Output.Count != 101 || st.Output.P50 != 50 || st.Output.P90 != 90 {
		t.Errorf("output lengths = %+v", st.Output)
	}
}

func TestGapBuckets(t *testing.T) {
	for _, d := range []time.Duration{0, 5 * time.Microsecond, 15 * time.Microsecond} {
		var c ChunkGaps
		var g GapSketch
		g.Add(d)
		c.Add(&g)
		if got := c.Stats().P50; got != float64(d.Microseconds())/1000 {
			t.Errorf("gap %v read back as %v ms: below 16 us it is exact", d, got)
		}
	}
	prev := -1
	for us := uint64(0); us < 1<<22; us = us*9/8 + 1 {
		i := gapBucket(time.Duration(us) * time.Microsecond)
		if i < prev {
			t.Fatalf("bucket of %d us (%d) below the previous one (%d)", us, i, prev)
		}
		prev = i
		if lo, w := bucketLow(i), bucketWidth(i); us < lo || us >= lo+w {
			t.Fatalf("%d us in bucket %d = [%d, %d)", us, i, lo, lo+w)
		}
	}
	if gapBucket(-time.Second) != 0 || gapBucket(10*time.Hour) != gapBuckets-1 || gapBucket(GapMax) != gapBuckets-1 {
		t.Errorf("out-of-range gaps are not clamped")
	}
}

// TestChunkGapsPoolAcrossRequests compares the pooled percentiles with the exact ones
// of every gap of every request.
func TestChunkGapsPoolAcrossRequests(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var c ChunkGaps
	var all []float64
	for range 50 {
		g := &GapSketch{}
		base := time.Duration(5+r.IntN(40)) * time.Millisecond // each request its own pace
		for range 200 {
			d := base + time.Duration(r.ExpFloat64()*float64(3*time.Millisecond))
			if r.IntN(100) == 0 {
				d += 2 * time.Second // a stall
			}
			g.Add(d)
			all = append(all, float64(d.Microseconds())/1000)
		}
		if g.Count() != 200 {
			t.Fatalf("sketch count %d", g.Count())
		}
		c.Add(g)
	}
	c.Add(nil) // a request without gaps adds nothing
	slices.Sort(all)
	st := c.Stats()
	if st.Count != len(all) {
		t.Fatalf("count %d, want %d", st.Count, len(all))
	}
	for _, q := range []struct {
		p   float64
		got float64
	}{{50, st.P50}, {90, st.P90}, {99, st.P99}} {
		k := max(int(math.Round(q.p/100*float64(len(all)))), 1)
		want := all[k-1]
		if math.Abs(q.got-want) > want/32+0.001 {
			t.Errorf("p%g = %.3f ms, exact %.3f ms: more than 1/32 apart", q.p, q.got, want)
		}
	}
	if st.P99 < 1000 {
		t.Errorf("p99 %.1f ms misses the 1%% of 2 s stalls", st.P99)
	}
	if (&ChunkGaps{}).Stats() != (GapStats{}) {
		t.Errorf("empty chunk gaps are not zero")
	}
}

func TestGapSketchSaturates(t *testing.T) {
	var g GapSketch
	for range math.MaxUint16 + 10 {
		g.Add(time.Millisecond)
	}
	if g.Count() != math.MaxUint16 {
		t.Errorf("count %d after saturating one bucket, want %d", g.Count(), math.MaxUint16)
	}
	if (*GapSketch)(nil).Count() != 0 {
		t.Errorf("a nil sketch has gaps")
	}
}

func TestTrafficFeedsItsParts(t *testing.T) {
	tr := NewTraffic(GoodputTarget{TTFTMax: time.Second, UserTPSMin: 10})
	ok := req(100*time.Millisecond, 11, time.Second)
	ok.PromptTokens = 64
	ok.Gaps = &GapSketch{}
	for range 10 {
		ok.Gaps.Add(100 * time.Millisecond)
	}
	tr.Add(ok)
	bad := req(100*time.Millisecond, 3, time.Second)
	bad.Err = ErrTruncated
	bad.Gaps = &GapSketch{}
	bad.Gaps.Add(time.Second)
	tr.Add(bad)
	st := tr.Stats(2 * time.Second)
	if st.Goodput.Judged != 2 || st.Goodput.Met != 1 || st.Goodput.Rate != 0.5 {
		t.Errorf("goodput %+v", st.Goodput)
	}
	if st.Lengths.Input.Count != 1 || st.Lengths.Input.P50 != 64 || st.Lengths.Output.P50 != 11 {
		t.Errorf("lengths %+v", st.Lengths)
	}
	if st.ChunkGaps.Count != 10 || math.Abs(st.ChunkGaps.P50-100) > 100.0/32 {
		t.Errorf("chunk gaps %+v: a failed request's gaps must stay out", st.ChunkGaps)
	}
}

func TestClientWait(t *testing.T) {
	c := NewClientWait()
	if c.Stats() != (WaitStats{}) {
		t.Errorf("empty wait stats = %+v", c.Stats())
	}
	for i := range 100 {
		c.Add(time.Duration(i)*time.Millisecond, i >= 80)
	}
	c.Add(-time.Second, false) // a clock step: counted as no wait
	st := c.Stats()
	if st.Arrivals != 101 || st.Capped != 20 || math.Abs(st.CappedShare-20.0/101) > 1e-12 ||
		math.Abs(st.P50-49) > 0.05 || math.Abs(st.P95-94) > 0.1 || st.Max != 99 {
		t.Errorf("wait stats %+v", st)
	}
}
