package model

import (
	"maps"
	"math"
	"testing"
	"time"
)

const (
	msec = time.Millisecond
	sec  = time.Second
)

// ok returns a successful sample of concurrency c sent at send, with its first token
// after ttft and n tokens over decode (usage reported, one token per chunk).
func ok(c int, send, ttft, decode time.Duration, n int) *Sample {
	s := &Sample{
		Concurrency: c,
		Send:        at(send),
		Headers:     at(send + ttft/2),
		First:       at(send + ttft),
		FirstAnswer: at(send + ttft),
		Last:        at(send + ttft + decode),
		Tokens:      n,
		Chunks:      n,
		Usage:       true,
		Finish:      "stop",
	}
	s.End = s.Last
	return s
}

// failed returns a failed sample of concurrency c that ended at end.
func failed(c int, end time.Duration, kind ErrorKind, msg string) *Sample {
	return &Sample{Concurrency: c, Send: at(end - sec), End: at(end), Err: kind, ErrMsg: msg}
}

func warm(s *Sample) *Sample { s.Warmup = true; return s }

func levelAt(t *testing.T, tr *Tracker, c int) LevelStats {
	t.Helper()
	for _, l := range tr.Levels() {
		if l.Concurrency == c {
			return l
		}
	}
	t.Fatalf("no level at concurrency %d in %+v", c, tr.Levels())
	return LevelStats{}
}

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestTrackerWarmupCountedNotInDistributions: warm-up requests count in their level's
// requests and errors (the contract: every ended request in exactly one level), and stay
// out of its distributions.
func TestTrackerWarmupCountedNotInDistributions(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.AddSample(warm(ok(2, 0, 5*sec, sec, 11)))                 // slow warm-up TTFT
	tr.AddSample(warm(failed(2, 2*sec, HTTPError(500), "boom"))) // warm-up failure
	tr.AddSample(ok(2, sec, 100*msec, sec, 21))
	tr.AddSample(ok(2, sec, 300*msec, sec, 21))

	l := levelAt(t, tr, 2)
	if l.Requests != 4 || l.Succeeded != 3 || l.Steady != 2 || !maps.Equal(l.Errors, map[ErrorKind]int{"http_500": 1}) || l.ErrorRate != 0.25 {
		t.Errorf("level counts: requests %d succeeded %d steady %d errors %v rate %v; want 4 3 2 map[http_500:1] 0.25",
			l.Requests, l.Succeeded, l.Steady, l.Errors, l.ErrorRate)
	}
	if l.TTFT.Count != 2 || l.TTFT.Max != 300 {
		t.Errorf("level TTFT includes warm-up: %+v", l.TTFT)
	}
	if l.OutputTokens != 42 {
		t.Errorf("OutputTokens = %d, want 42", l.OutputTokens)
	}
	req, succ, errs := tr.Totals()
	if req != 4 || succ != 3 || !maps.Equal(errs, map[ErrorKind]int{"http_500": 1}) {
		t.Errorf("Totals = %d %d %v, want 4 3 map[http_500:1]", req, succ, errs)
	}
	if msg, _ := tr.LastError(); msg != "" {
		t.Errorf("LastError %q: a later success should have cleared it", msg)
	}
}

func TestTrackerCanceledIgnored(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.AddTick(&Tick{Start: at(0), End: at(sec)})
	tr.AddSample(&Sample{Concurrency: 1, Send: at(0), First: at(100 * msec), Last: at(900 * msec),
		End: at(900 * msec), Tokens: 9, Chunks: 9, Err: ErrCanceled, ErrMsg: "interrupted"})
	req, succ, errs := tr.Totals()
	if req != 0 || succ != 0 || len(errs) != 0 {
		t.Errorf("Totals = %d %d %v, want nothing", req, succ, errs)
	}
	if len(tr.Levels()) != 0 {
		t.Errorf("Levels = %+v, want none", tr.Levels())
	}
	if msg, _ := tr.LastError(); msg != "" {
		t.Errorf("LastError = %q", msg)
	}
	if b := tr.Buckets(1)[0]; b.Errors != 0 {
		t.Errorf("bucket errors = %d", b.Errors)
	}
	if tr.TokenSource() != "" {
		t.Errorf("TokenSource = %q", tr.TokenSource())
	}
}

func TestTrackerFailedCountedNotInDistributions(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.AddSample(ok(4, 0, 200*msec, 2*sec, 101))
	// A truncated stream that delivered tokens, with a very slow first token.
	tr.AddSample(&Sample{Concurrency: 4, Send: at(0), First: at(9 * sec), FirstAnswer: at(9 * sec),
		Last: at(10 * sec), End: at(10 * sec), Tokens: 50, Chunks: 50, Err: ErrTruncated, ErrMsg: "stream cut"})
	tr.AddSample(failed(4, 11*sec, HTTPError(429), "too many requests"))

	l := levelAt(t, tr, 4)
	if l.Requests != 3 || l.Succeeded != 1 {
		t.Errorf("Requests %d Succeeded %d, want 3 1", l.Requests, l.Succeeded)
	}
	if !maps.Equal(l.Errors, map[ErrorKind]int{ErrTruncated: 1, "http_429": 1}) {
		t.Errorf("Errors = %v", l.Errors)
	}
	if !approx(l.ErrorRate, 2.0/3) {
		t.Errorf("ErrorRate = %v", l.ErrorRate)
	}
	for name, d := range map[string]Dist{"TTFT": l.TTFT, "TTFO": l.TTFO, "TPOT": l.TPOT, "E2E": l.E2E, "UserTPS": l.UserTPS} {
		if d.Count != 1 {
			t.Errorf("%s Count = %d, want 1 (failed samples kept out)", name, d.Count)
		}
	}
	if l.TTFT.Max != 200 || l.UserTPS.P50 != 50 {
		t.Errorf("TTFT max %v UserTPS p50 %v", l.TTFT.Max, l.UserTPS.P50)
	}
	if l.OutputTokens != 101 {
		t.Errorf("OutputTokens = %d, want only the successful request's", l.OutputTokens)
	}
	if msg, at := tr.LastError(); msg != "too many requests" || !at.Equal(t0.Add(11*sec)) {
		t.Errorf("LastError = %q at %v", msg, at)
	}
}

func seg(id, c int, start, steady, end time.Duration, chunks int64, open bool) Segment {
	s := Segment{ID: id, Concurrency: c, Start: at(start), End: at(end), Open: open, SteadyChunks: chunks}
	if steady >= 0 {
		s.SteadyAt = at(steady)
	}
	return s
}

func TestTrackerSegmentsMergeAtSameConcurrency(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 4, 0, 2*sec, 5*sec, 100, true)) // earlier state, replaced below
	tr.UpdateSegment(seg(1, 4, 0, 2*sec, 12*sec, 1000, false))
	tr.UpdateSegment(seg(2, 8, 12*sec, 15*sec, 25*sec, 3000, false))
	tr.UpdateSegment(seg(3, 4, 25*sec, 27*sec, 32*sec, 500, true))
	tr.UpdateSegment(seg(4, 16, 32*sec, -1, 33*sec, 0, true)) // not steady yet
	tr.AddSample(ok(4, 3*sec, 100*msec, sec, 11))
	tr.AddSample(ok(4, 28*sec, 100*msec, sec, 11))
	tr.AddSample(ok(8, 16*sec, 100*msec, sec, 11))

	ls := tr.Levels()
	if len(ls) != 3 || ls[0].Concurrency != 4 || ls[1].Concurrency != 8 || ls[2].Concurrency != 16 {
		t.Fatalf("levels %+v", ls)
	}
	l4 := ls[0]
	if l4.Duration != 15*sec || !approx(l4.AggregateTPS, 1500.0/15) || l4.Requests != 2 || !approx(l4.RequestRate, 2.0/15) {
		t.Errorf("merged level 4: Duration %v Agg %v Requests %d Rate %v", l4.Duration, l4.AggregateTPS, l4.Requests, l4.RequestRate)
	}
	if !l4.Open || ls[1].Open {
		t.Errorf("Open: level 4 %v (segment 3 open), level 8 %v", l4.Open, ls[1].Open)
	}
	if !approx(ls[1].AggregateTPS, 300) {
		t.Errorf("level 8 aggregate %v, want 300", ls[1].AggregateTPS)
	}
	l16 := ls[2]
	if l16.Duration != 0 || l16.AggregateTPS != 0 || l16.RequestRate != 0 || !l16.Open || l16.Requests != 0 {
		t.Errorf("level 16 without steady window: %+v", l16)
	}
}

func TestTrackerRatioFromUsageScalesAggregate(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 0, 10*sec, 250, false)) // 25 chunks/s
	tr.AddTick(&Tick{Start: at(0), End: at(sec), Chunks: 25, UserChunks: []int32{12, 13}})
	if tr.TokensPerChunk() != 1 || !approx(levelAt(t, tr, 2).AggregateTPS, 25) {
		t.Fatalf("before usage: ratio %v agg %v", tr.TokensPerChunk(), levelAt(t, tr, 2).AggregateTPS)
	}
	if b := tr.Buckets(1)[0]; !approx(b.AggregateTPS, 25) || !approx(b.UserTPS, 12.5) {
		t.Errorf("bucket before usage: %+v", b)
	}
	s := ok(2, 0, 100*msec, sec, 40)
	s.Chunks = 10 // 4 tokens per chunk
	tr.AddSample(s)
	s = ok(2, 0, 100*msec, sec, 80)
	s.Chunks = 20
	tr.AddSample(s)
	noUsage := ok(2, 0, 100*msec, sec, 7) // does not change the ratio
	noUsage.Usage = false
	tr.AddSample(noUsage)
	if tr.TokensPerChunk() != 4 {
		t.Fatalf("ratio %v, want 4", tr.TokensPerChunk())
	}
	if got := levelAt(t, tr, 2).AggregateTPS; !approx(got, 100) {
		t.Errorf("level aggregate %v, want 25 chunks/s x 4 = 100 (ratio applied at read time)", got)
	}
	tr.AddTick(&Tick{Start: at(sec), End: at(2 * sec), Chunks: 25, UserChunks: []int32{12, 13}})
	if b := tr.Buckets(1)[0]; !approx(b.AggregateTPS, 100) || !approx(b.UserTPS, 50) {
		t.Errorf("bucket after usage: agg %v user %v, want 100 and 50", b.AggregateTPS, b.UserTPS)
	}
}

func TestTrackerTokenSource(t *testing.T) {
	chunky := func(c int) *Sample { s := ok(c, 0, 100*msec, sec, 10); s.Usage = false; return s }
	tests := []struct {
		name    string
		samples []*Sample
		level   string
		overall string
	}{
		{"usage", []*Sample{ok(1, 0, 100*msec, sec, 10)}, SourceUsage, SourceUsage},
		{"chunks", []*Sample{chunky(1)}, SourceChunks, SourceChunks},
		{"mixed", []*Sample{ok(1, 0, 100*msec, sec, 10), chunky(1)}, SourceMixed, SourceMixed},
		{"mixed overall only", []*Sample{ok(1, 0, 100*msec, sec, 10), warm(chunky(1))}, SourceUsage, SourceMixed},
		{"failures do not count", []*Sample{ok(1, 0, 100*msec, sec, 10), failed(1, sec, ErrTruncated, "cut")}, SourceUsage, SourceUsage},
		{"nothing yet", []*Sample{failed(1, sec, ErrConnect, "refused")}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(TrackerOptions{})
			for _, s := range tc.samples {
				tr.AddSample(s)
			}
			if got := levelAt(t, tr, 1).TokenSource; got != tc.level {
				t.Errorf("level source %q, want %q", got, tc.level)
			}
			if got := tr.TokenSource(); got != tc.overall {
				t.Errorf("overall source %q, want %q", got, tc.overall)
			}
		})
	}
}

func TestTrackerLiveUserMedian(t *testing.T) {
	tests := []struct {
		name    string
		width   time.Duration
		chunks  []int32
		want    float64
		hasUser bool
	}{
		{"odd", sec, []int32{30, 10, 20}, 20, true},
		{"even: mean of the middle two", sec, []int32{40, 10, 30, 20}, 25, true},
		{"one stream", sec, []int32{7}, 7, true},
		{"half-second bucket", 500 * msec, []int32{10}, 20, true},
		{"no stream decoded the whole bucket", sec, nil, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(TrackerOptions{})
			in := append([]int32(nil), tc.chunks...)
			tr.AddTick(&Tick{Start: at(0), End: at(tc.width), Chunks: 100, UserChunks: in, Active: 3, Target: 4})
			lv := tr.Live()
			if lv.UserTPS != tc.want || lv.HasUser != tc.hasUser {
				t.Errorf("Live user %v %v, want %v %v", lv.UserTPS, lv.HasUser, tc.want, tc.hasUser)
			}
			if lv.Active != 3 || lv.Target != 4 || !lv.At.Equal(at(tc.width)) {
				t.Errorf("Live = %+v", lv)
			}
			for i := range in {
				if in[i] != tc.chunks[i] {
					t.Fatal("AddTick modified the tick's UserChunks")
				}
			}
		})
	}
	if lv := NewTracker(TrackerOptions{}).Live(); lv != (Live{}) {
		t.Errorf("Live before any tick = %+v", lv)
	}
}

func TestTrackerUserHold(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	// users per second: a whole-bucket stream (nil = none, as between short answers)
	seconds := [][]int32{{40}, nil, nil, nil, nil, {20}, nil}
	want := []struct {
		tps          float64
		has, carried bool
	}{
		{40, true, false}, {40, true, true}, {40, true, true}, {40, true, true},
		{0, false, false}, // held UserHold buckets, then a gap
		{20, true, false}, {20, true, true},
	}
	for i, uc := range seconds {
		tr.AddTick(&Tick{Start: at(time.Duration(i) * sec), End: at(time.Duration(i+1) * sec), UserChunks: uc})
	}
	bs := tr.Buckets(len(seconds))
	for i, w := range want {
		b := bs[i]
		if b.UserTPS != w.tps || b.HasUser != w.has || b.UserCarried != w.carried {
			t.Errorf("second %d: user %v has %v carried %v; want %v %v %v", i, b.UserTPS, b.HasUser, b.UserCarried, w.tps, w.has, w.carried)
		}
	}
	if lv := tr.Live(); lv.UserTPS != 20 || !lv.HasUser {
		t.Errorf("Live = %+v, want the carried 20 tok/s", lv)
	}
}

func TestTrackerTTFTTrailingWindow(t *testing.T) {
	tr := NewTracker(TrackerOptions{TTFTWindow: 3 * sec})
	firsts := [][]time.Duration{
		{100 * msec, 200 * msec},
		{300 * msec},
		nil,
		{400 * msec, 500 * msec, 600 * msec},
		nil,
		nil,
		nil,
	}
	type want struct {
		p50, p95 time.Duration
		has      bool
	}
	wants := []want{ // window: the buckets starting in the 3 s before this bucket's end
		{100 * msec, 200 * msec, true}, // {100,200}
		{200 * msec, 300 * msec, true}, // {100,200,300}
		{200 * msec, 300 * msec, true}, // the same
		{400 * msec, 600 * msec, true}, // {300,400,500,600}: p50 is the 2nd (rank round(2.0))
		{500 * msec, 600 * msec, true}, // {400,500,600}
		{500 * msec, 600 * msec, true}, // {400,500,600}
		{0, 0, false},                  // none
	}
	for i, f := range firsts {
		start := time.Duration(i) * sec
		tr.AddTick(&Tick{Start: at(start), End: at(start + sec), FirstTokens: f})
		lv := tr.Live()
		if lv.TTFTP50 != wants[i].p50 || lv.TTFTP95 != wants[i].p95 || lv.HasTTFT != wants[i].has {
			t.Errorf("tick %d: p50 %v p95 %v has %v, want %+v", i, lv.TTFTP50, lv.TTFTP95, lv.HasTTFT, wants[i])
		}
	}
	// A bucket wider than the window still counts its own first tokens.
	tr2 := NewTracker(TrackerOptions{TTFTWindow: 500 * msec})
	tr2.AddTick(&Tick{Start: at(0), End: at(2 * sec), FirstTokens: []time.Duration{sec}})
	if lv := tr2.Live(); !lv.HasTTFT || lv.TTFTP50 != sec {
		t.Errorf("wide bucket: %+v", lv)
	}
	// Every bucket keeps the values of its own window.
	bs := tr.Buckets(10)
	if len(bs) != 7 || bs[1].TTFTP95 != 300*msec || bs[3].TTFTP50 != 400*msec {
		t.Errorf("buckets %+v", bs)
	}
}

func TestTrackerErrorsInBuckets(t *testing.T) {
	tr := NewTracker(TrackerOptions{History: 4})
	tick := func(i int) { tr.AddTick(&Tick{Start: at(time.Duration(i) * sec), End: at(time.Duration(i+1) * sec)}) }
	tick(0)
	tick(1)
	// Arrives after the tick that covers its End.
	tr.AddSample(failed(1, 500*msec, ErrTimeout, "no headers"))
	// Arrives before its tick: waits for it; so does a warm-up one.
	tr.AddSample(failed(1, 2500*msec, ErrStream, "in-band error"))
	tr.AddSample(warm(failed(1, 2700*msec, ErrStream, "in-band error")))
	// Ends exactly at the start of a later bucket.
	tr.AddSample(failed(1, 3*sec, ErrConnect, "refused"))
	tick(2)
	tick(3)
	tick(4)                                               // bucket 0 leaves the ring
	tr.AddSample(failed(1, 200*msec, ErrTimeout, "late")) // older than the ring: newest bucket
	got := []int{}
	for _, b := range tr.Buckets(10) {
		got = append(got, b.Errors)
	}
	want := []int{0, 2, 1, 1} // buckets 1..4
	if len(got) != len(want) {
		t.Fatalf("bucket errors %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("bucket errors %v, want %v", got, want)
		}
	}
	// bucket 0 got the first failure before it left the ring: check on a fresh run.
	tr2 := NewTracker(TrackerOptions{})
	tr2.AddTick(&Tick{Start: at(0), End: at(sec)})
	tr2.AddTick(&Tick{Start: at(2 * sec), End: at(3 * sec)}) // a gap (pause) at [1 s, 2 s)
	tr2.AddSample(failed(1, 500*msec, ErrTimeout, ""))
	tr2.AddSample(failed(1, 1500*msec, ErrTimeout, "")) // in the gap: the next bucket
	if bs := tr2.Buckets(2); bs[0].Errors != 1 || bs[1].Errors != 1 {
		t.Errorf("buckets %+v", bs)
	}
	if msg, _ := tr2.LastError(); msg != string(ErrTimeout) {
		t.Errorf("LastError without a message = %q, want the kind", msg)
	}
}

func TestTrackerRingBound(t *testing.T) {
	tr := NewTracker(TrackerOptions{History: 5})
	for i := range 8 {
		s := time.Duration(i) * sec
		tr.AddTick(&Tick{Start: at(s), End: at(s + sec), Chunks: int64(i)})
	}
	bs := tr.Buckets(100)
	if len(bs) != 5 {
		t.Fatalf("%d buckets kept, want 5", len(bs))
	}
	for i, b := range bs {
		if !b.Start.Equal(at(time.Duration(i+3)*sec)) || b.AggregateTPS != float64(i+3) {
			t.Errorf("bucket %d: %+v", i, b)
		}
	}
	if bs := tr.Buckets(2); len(bs) != 2 || bs[1].AggregateTPS != 7 || bs[0].AggregateTPS != 6 {
		t.Errorf("Buckets(2) = %+v", bs)
	}
	if bs := tr.Buckets(0); len(bs) != 0 {
		t.Errorf("Buckets(0) = %+v", bs)
	}
}

func TestTrackerReset(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	s := ok(2, 0, 100*msec, sec, 40)
	s.Chunks = 20 // ratio 2
	tr.AddSample(s)
	tr.AddSample(failed(2, 2*sec, HTTPError(500), "boom"))
	tr.UpdateSegment(seg(1, 1, 0, 0, 5*sec, 500, false))
	tr.UpdateSegment(seg(2, 2, 5*sec, 6*sec, 10*sec, 400, true))
	tr.AddTick(&Tick{Start: at(9 * sec), End: at(10 * sec), Chunks: 100})

	tr.Reset(at(10 * sec))
	if req, succ, errs := tr.Totals(); req != 0 || succ != 0 || len(errs) != 0 {
		t.Errorf("Totals after Reset: %d %d %v", req, succ, errs)
	}
	if msg, _ := tr.LastError(); msg != "" {
		t.Errorf("LastError after Reset: %q", msg)
	}
	if len(tr.Buckets(10)) != 0 || tr.Live() != (Live{}) {
		t.Error("live series not cleared")
	}
	if tr.TokensPerChunk() != 2 {
		t.Errorf("ratio %v, want 2 kept", tr.TokensPerChunk())
	}
	ls := tr.Levels()
	if len(ls) != 1 || ls[0].Concurrency != 2 || ls[0].Requests != 0 || ls[0].Duration != 0 || !ls[0].Open {
		t.Fatalf("levels after Reset: %+v", ls)
	}

	// The open segment goes on: only what comes after the Reset counts.
	tr.UpdateSegment(seg(2, 2, 5*sec, 6*sec, 20*sec, 1400, true))
	for _, send := range []time.Duration{9 * sec, 11 * sec} { // sent before the Reset (not in the level), after
		s := ok(2, send, 100*msec, 2*sec, 10)
		s.Chunks = 5 // keeps the ratio at 2
		tr.AddSample(s)
	}
	tr.AddSample(failed(2, 9*sec, ErrTimeout, "")) // ended before the Reset: forgotten
	l := levelAt(t, tr, 2)
	if l.Duration != 10*sec || !approx(l.AggregateTPS, 1000*2/10.0) {
		t.Errorf("after Reset: Duration %v Agg %v, want 10s and 200 tok/s", l.Duration, l.AggregateTPS)
	}
	if l.Requests != 2 || l.Steady != 1 {
		t.Errorf("level Requests %d Steady %d, want 2 (the one sent before the Reset counts) and 1", l.Requests, l.Steady)
	}
	if req, _, errs := tr.Totals(); req != 2 || len(errs) != 0 {
		t.Errorf("Totals %d %v, want 2 requests, no error", req, errs)
	}

	// A segment not yet steady at the Reset that turns steady before it is prorated.
	tr2 := NewTracker(TrackerOptions{})
	tr2.UpdateSegment(seg(1, 4, 0, -1, 5*sec, 0, true))
	tr2.Reset(at(10 * sec))
	tr2.UpdateSegment(seg(1, 4, 0, 6*sec, 20*sec, 1400, true))
	if l := levelAt(t, tr2, 4); l.Duration != 10*sec || !approx(l.AggregateTPS, 100) {
		t.Errorf("prorated: Duration %v Agg %v, want 10s and 100", l.Duration, l.AggregateTPS)
	}
	// So is a segment begun before the Reset whose first update comes after it.
	tr2.UpdateSegment(seg(2, 8, 9*sec, 9*sec, 19*sec, 1000, false))
	if l := levelAt(t, tr2, 8); l.Duration != 9*sec || !approx(l.AggregateTPS, 100) {
		t.Errorf("first seen after Reset: Duration %v Agg %v, want 9s and 100", l.Duration, l.AggregateTPS)
	}
}

func TestTrackerLastError(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.AddSample(failed(1, 2*sec, HTTPError(503), "server busy"))
	if msg, when := tr.LastError(); msg != "server busy" || !when.Equal(at(2*sec)) {
		t.Fatalf("LastError = %q %v", msg, when)
	}
	early := ok(1, 0, 100*msec, 500*msec, 10) // ended at 0.6 s, before the failure
	tr.AddSample(early)
	if msg, _ := tr.LastError(); msg != "server busy" {
		t.Errorf("an earlier success cleared LastError")
	}
	tr.AddSample(failed(1, 1*sec, ErrTimeout, "older failure"))
	if msg, _ := tr.LastError(); msg != "server busy" {
		t.Errorf("an older failure replaced the newest: %q", msg)
	}
	tr.AddSample(ok(1, 2*sec, 100*msec, sec, 10))
	if msg, when := tr.LastError(); msg != "" || !when.IsZero() {
		t.Errorf("LastError not cleared by a later success: %q %v", msg, when)
	}
	tr.AddSample(failed(1, 3*sec, ErrTimeout, "arrived late")) // ended before that success
	if msg, _ := tr.LastError(); msg != "" {
		t.Errorf("a failure older than the newest success came back: %q", msg)
	}
	tr.AddSample(failed(1, 4*sec, ErrTimeout, "new failure"))
	if msg, _ := tr.LastError(); msg != "new failure" {
		t.Errorf("LastError = %q, want the new failure", msg)
	}
}

// mkLevel is a level measured in full (its level rule met: the steady requests it
// needs) with these figures.
func mkLevel(c int, d time.Duration, reqs, succ int, userP50, ttftP95Ms, agg float64) LevelStats {
	l := LevelStats{Concurrency: c, Duration: d, Requests: reqs, Succeeded: succ, AggregateTPS: agg}
	if reqs > 0 {
		l.ErrorRate = float64(reqs-succ) / float64(reqs)
		l.Steady = MinSteady(c)
	}
	l.UserTPS.P50 = userP50
	l.TTFT.P95 = ttftP95Ms
	l.UserTPS.Count, l.TTFT.Count = succ, succ // one value per success
	return l
}

// noFirstToken is l with no TTFT measured (its successes sent no token).
func noFirstToken(l LevelStats) LevelStats { l.TTFT = Dist{}; l.UserTPS = Dist{}; return l }

func TestCapacity(t *testing.T) {
	tests := []struct {
		name   string
		levels []LevelStats
		slo    SLO
		want   int
	}{
		{"largest that meets", []LevelStats{
			mkLevel(1, 10*sec, 10, 10, 80, 300, 80),
			mkLevel(4, 10*sec, 40, 40, 60, 800, 240),
			mkLevel(16, 10*sec, 100, 100, 31, 1900, 500),
			mkLevel(32, 10*sec, 100, 100, 29, 2500, 900),
		}, DefaultSLO, 16},
		{"a failing level in the middle does not stop the search", []LevelStats{
			mkLevel(1, 10*sec, 10, 10, 80, 300, 80),
			mkLevel(8, 10*sec, 100, 90, 50, 500, 400), // 10% errors
			mkLevel(16, 10*sec, 200, 199, 40, 900, 640),
		}, DefaultSLO, 16},
		{"TTFT limit", []LevelStats{
			mkLevel(1, 10*sec, 10, 10, 80, 300, 80),
			mkLevel(2, 10*sec, 10, 10, 80, 2000.1, 160),
		}, DefaultSLO, 1},
		{"exactly on every bound", []LevelStats{mkLevel(3, 10*sec, 100, 99, 30, 2000, 90)}, DefaultSLO, 3},
		{"no requests", []LevelStats{mkLevel(8, 10*sec, 0, 0, 0, 0, 0)}, SLO{UserTPSMin: 0, TTFTP95Max: sec, ErrorRateMax: 1}, 0},
		{"none", []LevelStats{mkLevel(1, 10*sec, 10, 10, 20, 300, 20)}, DefaultSLO, 0},
		// With lenient criteria, a level where no TTFT was measured does not meet a TTFT limit.
		{"every request failed", []LevelStats{mkLevel(4, 10*sec, 10, 0, 0, 0, 0)}, SLO{UserTPSMin: 0, TTFTP95Max: sec, ErrorRateMax: 1}, 0},
		{"no first token", []LevelStats{
			mkLevel(1, 10*sec, 10, 10, 20, 300, 20),
			noFirstToken(mkLevel(2, 10*sec, 10, 10, 0, 0, 0)),
		}, SLO{UserTPSMin: 0, TTFTP95Max: sec, ErrorRateMax: 0.01}, 1},
		{"custom SLO", []LevelStats{
			mkLevel(1, 10*sec, 10, 10, 20, 300, 20),
			mkLevel(2, 10*sec, 10, 10, 15, 300, 30),
		}, SLO{UserTPSMin: 18, TTFTP95Max: sec, ErrorRateMax: 0}, 1},
		{"empty", nil, DefaultSLO, 0},
	}
	for _, tc := range tests {
		if got := capacity(tc.levels, tc.slo); got != tc.want {
			t.Errorf("%s: capacity %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSaturation(t *testing.T) {
	lv := func(c int, agg float64) LevelStats {
		l := mkLevel(c, 10*sec, 10, 10, 0, 100, agg)
		l.Steady = MinSteady(c) // measured in full: only such levels decide a saturation
		return l
	}
	tests := []struct {
		name   string
		levels []LevelStats
		want   int
		ok     bool
	}{
		{"doubling ramp", []LevelStats{lv(1, 10), lv(2, 20), lv(4, 40), lv(8, 43), lv(16, 44)}, 4, true},
		{"just 10% more is not saturated", []LevelStats{lv(1, 10), lv(2, 11), lv(4, 12)}, 2, true},
		{"non-doubling levels", []LevelStats{lv(1, 10), lv(3, 30), lv(5, 45), lv(10, 48)}, 5, true},
		{"linear: not reached", []LevelStats{lv(1, 10), lv(2, 20), lv(4, 40), lv(8, 80)}, 0, false},
		{"no level at 2c: skipped", []LevelStats{lv(4, 100), lv(6, 100)}, 0, false},
		{"levels with no steady window are skipped", []LevelStats{
			lv(1, 10), mkLevel(2, 0, 5, 5, 0, 0, 0), lv(3, 30), lv(4, 40),
		}, 0, false},
		{"falling aggregate", []LevelStats{lv(1, 10), lv(2, 25), lv(4, 20)}, 2, true},
		{"single level", []LevelStats{lv(8, 100)}, 0, false},
	}
	for _, tc := range tests {
		got, ok := saturation(tc.levels)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: saturation %d %v, want %d %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTrackerCurve drives a whole ramp through the Tracker: capacity and saturation
// come out of samples and segments.
func TestTrackerCurve(t *testing.T) {
	tr := NewTracker(TrackerOptions{SLO: SLO{UserTPSMin: 40, TTFTP95Max: sec, ErrorRateMax: 0.01}})
	// concurrency -> per-user tok/s, TTFT, aggregate chunks/s
	curve := []struct {
		c      int
		user   float64
		ttft   time.Duration
		aggCPS int64
	}{{1, 100, 100 * msec, 100}, {2, 90, 150 * msec, 180}, {4, 60, 300 * msec, 190}, {8, 35, 700 * msec, 260}}
	start := time.Duration(0)
	for i, p := range curve {
		tr.UpdateSegment(seg(i+1, p.c, start, start+sec, start+11*sec, p.aggCPS*10, false))
		for range 20 {
			n := 101
			tr.AddSample(ok(p.c, start+sec, p.ttft, time.Duration(float64(n-1)/p.user*float64(sec)), n))
		}
		start += 11 * sec
	}
	if got := tr.Capacity(); got != 4 {
		t.Errorf("Capacity %d, want 4", got)
	}
	if u, ok := tr.Saturation(); u != 2 || !ok {
		t.Errorf("Saturation %d %v, want 2 (4 users give 190 < 1.1 x 180)", u, ok)
	}
	if l := levelAt(t, tr, 8); !approx(l.UserTPS.P50, 35) || l.TTFT.P95 != 700 {
		t.Errorf("level 8: user p50 %v TTFT p95 %v", l.UserTPS.P50, l.TTFT.P95)
	}
}

// TestTrackerTTFTWindowJitteredTicks checks that the trailing window holds as many
// one-second buckets as it is seconds long when the ticks arrive a little late (the
// collector reads the clock after its ticker fires), not one bucket fewer.
func TestTrackerTTFTWindowJitteredTicks(t *testing.T) {
	tr := NewTracker(TrackerOptions{})  // 10 s window
	edge := func(i int) time.Duration { // tick boundaries: the first on time, the rest 2 ms late
		if i == 0 {
			return 0
		}
		return time.Duration(i)*sec + 2*msec
	}
	for i := range 11 {
		ft := []time.Duration{100 * msec}
		if i == 0 {
			ft = []time.Duration{5 * sec} // a slow first token in the oldest bucket
		}
		tr.AddTick(&Tick{Start: at(edge(i)), End: at(edge(i + 1)), FirstTokens: ft})
	}
	bs := tr.Buckets(2)
	// Bucket 9 ends at 10.002 s: its window holds buckets 0..9 (10 values, p95 = the 10th).
	if bs[0].TTFTP95 != 5*sec {
		t.Errorf("10th bucket: TTFT p95 %v, want 5s (the window lost the oldest second)", bs[0].TTFTP95)
	}
	// Bucket 10 ends at 11.002 s: bucket 0 has left the window.
	if bs[1].TTFTP95 != 100*msec {
		t.Errorf("11th bucket: TTFT p95 %v, want 100ms", bs[1].TTFTP95)
	}
}

// TestTrackerTickEndBeforeStart checks that a tick whose End is before its Start (a
// clock the model cannot trust) becomes an empty-width bucket at Start: no negative
// width, no rate, and Live().At never before the bucket's start.
func TestTrackerTickEndBeforeStart(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.AddTick(&Tick{Start: at(0), End: at(sec), Chunks: 30, UserChunks: []int32{30}})
	tr.AddTick(&Tick{Start: at(2 * sec), End: at(1500 * msec), Chunks: 10, UserChunks: []int32{5},
		FirstTokens: []time.Duration{200 * msec}, Active: 1, Target: 1})
	b := tr.Buckets(1)[0]
	if b.Width != 0 || b.AggregateTPS != 0 || !b.Start.Equal(at(2*sec)) {
		t.Errorf("bucket %+v, want width 0 and no rate at 2s", b)
	}
	if lv := tr.Live(); !lv.At.Equal(at(2*sec)) || math.IsNaN(lv.AggregateTPS) || math.IsInf(lv.UserTPS, 0) {
		t.Errorf("Live %+v, want At 2s", lv)
	}
	if !b.HasTTFT || b.TTFTP50 != 200*msec {
		t.Errorf("the tick's first tokens were lost: %+v", b)
	}
	// A failure that ended between End and Start belongs to that bucket's time, not later.
	tr.AddSample(failed(1, 1800*msec, ErrTimeout, "late"))
	tr.AddTick(&Tick{Start: at(2 * sec), End: at(3 * sec)})
	if bs := tr.Buckets(2); bs[0].Errors+bs[1].Errors != 1 {
		t.Errorf("the failure was lost or counted twice: %+v", bs)
	}
}

// TestTrackerRatioIgnoresBogusUsage checks that a usage object that contradicts the
// stream (completion_tokens 0 or negative after token-bearing events) neither drags
// the tokens-per-chunk ratio down nor makes aggregate tok/s or output tokens negative.
func TestTrackerRatioIgnoresBogusUsage(t *testing.T) {
	tests := []struct {
		name   string
		tokens int
	}{
		{"zero completion_tokens", 0},
		{"negative completion_tokens", -1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(TrackerOptions{})
			tr.UpdateSegment(seg(1, 1, 0, 0, 10*sec, 100, false))
			good := ok(1, 0, 100*msec, sec, 40)
			good.Chunks = 10 // 4 tokens per chunk
			tr.AddSample(good)
			bad := ok(1, 2*sec, 100*msec, sec, tc.tokens)
			bad.Chunks = 10
			tr.AddSample(bad)
			if r := tr.TokensPerChunk(); r != 4 {
				t.Errorf("ratio %v, want 4", r)
			}
			l := levelAt(t, tr, 1)
			if !approx(l.AggregateTPS, 40) || l.OutputTokens != 40 {
				t.Errorf("aggregate %v output tokens %d, want 40 and 40", l.AggregateTPS, l.OutputTokens)
			}
		})
	}
}

// TestTrackerResetBetweenUpdates checks that a Reset between two updates of an open,
// steady segment restarts its steady window at the Reset, as documented, and not at
// the update before it: the level's requests are those sent after the Reset, so its
// duration must start there too.
func TestTrackerResetBetweenUpdates(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 2, 0, 0, 9*sec, 900, true)) // 100 chunks/s
	tr.Reset(at(9500 * msec))
	tr.UpdateSegment(seg(1, 2, 0, 0, 19*sec, 1900, true))
	for i := range 19 { // one request sent every 0.5 s after the Reset
		tr.AddSample(ok(2, 9500*msec+time.Duration(i)*500*msec, 100*msec, 200*msec, 10))
	}
	l := levelAt(t, tr, 2)
	if l.Duration != 9500*msec || !approx(l.AggregateTPS, 100) || !approx(l.RequestRate, 2) {
		t.Errorf("Duration %v Agg %v RequestRate %v, want 9.5s, 100 and 2/s", l.Duration, l.AggregateTPS, l.RequestRate)
	}
}

func TestTrackerStall(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(Segment{ID: 1, Concurrency: 2, Start: at(0), SteadyAt: at(0), End: at(10 * sec), Open: true})
	for i, gap := range []time.Duration{40 * msec, 120 * msec, 2 * sec} {
		s := &Sample{Segment: 1, Concurrency: 2, Send: at(0), First: at(100 * msec), Last: at(3 * sec),
			End: at(3 * sec), Tokens: 50, Chunks: 50, Usage: true, MaxGap: gap}
		if i == 2 {
			s.Err, s.ErrMsg = ErrTruncated, "cut" // failed: kept out of the stall distribution
		}
		tr.AddSample(s)
	}
	// a one-chunk answer has no gap to measure
	tr.AddSample(&Sample{Segment: 1, Concurrency: 2, Send: at(0), First: at(sec), Last: at(sec), End: at(sec), Tokens: 1, Chunks: 1})
	st := tr.Levels()[0].Stall
	if st.Count != 2 || st.Max < 119.9 || st.Max > 120.2 || st.Min < 39.9 || st.Min > 40.1 {
		t.Errorf("stall %+v, want the two successful 2-chunk requests' gaps (40 and 120 ms)", st)
	}
}
