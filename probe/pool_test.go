package probe

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tpsmon/tpsmon/model"
)

// start runs a pool on g with hand-driven ticks and records its events.
func startGated(t *testing.T, g Streamer, opts ...Option) (*Pool, *eventLog, chan time.Time) {
	t.Helper()
	tick := make(chan time.Time)
	p := NewPool(7, g, append([]Option{withTicks(tick)}, opts...)...)
	return p, logEvents(p.Run(context.Background())), tick
}

// checkEventOrder checks the event stream's ordering promises: a segment's first state comes
// before any Sample sent in it, and a closed segment never reappears open.
func checkEventOrder(t *testing.T, evs []Event) {
	t.Helper()
	seen := map[int]bool{}
	closed := map[int]bool{}
	for i, e := range evs {
		if e.Endpoint != 7 {
			t.Fatalf("event %d: Endpoint %d, want 7", i, e.Endpoint)
		}
		switch {
		case e.Segment != nil:
			if closed[e.Segment.ID] {
				t.Errorf("event %d: segment %d reported after it closed", i, e.Segment.ID)
			}
			seen[e.Segment.ID] = true
			if !e.Segment.Open {
				closed[e.Segment.ID] = true
			}
		case e.Sample != nil:
			if e.Sample.Segment != 0 && !seen[e.Sample.Segment] {
				t.Errorf("event %d: sample of segment %d before the segment", i, e.Sample.Segment)
			}
		}
	}
}

func TestPoolGrowAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p, rec, _ := startGated(t, g)
	p.SetConcurrency(2)
	calls := []*gateCall{g.next(t), g.next(t)}
	if a := p.Active(); a != 2 {
		t.Fatalf("Active = %d, want 2", a)
	}
	p.SetConcurrency(5) // nothing ended: three more requests start at once
	for range 3 {
		calls = append(calls, g.next(t))
	}
	if a, c := p.Active(), p.Concurrency(); a != 5 || c != 5 {
		t.Fatalf("Active, Concurrency = %d, %d; want 5, 5", a, c)
	}
	g.none(t)
	p.Stop()
	for _, c := range calls {
		c.finish(t)
	}
	evs := rec.wait(t)
	checkEventOrder(t, evs)
	ss := sampleEvents(evs)
	if len(ss) != 5 || g.n.Load() != 5 {
		t.Fatalf("%d samples of %d requests, want 5 of 5", len(ss), g.n.Load())
	}
	for _, s := range ss {
		if !s.OK() || s.Endpoint != 7 {
			t.Errorf("sample %+v: want OK for endpoint 7", s)
		}
	}
}

func TestPoolShrinkNeverCancels(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p, rec, _ := startGated(t, g)
	p.SetConcurrency(4)
	var calls []*gateCall
	for range 4 {
		calls = append(calls, g.next(t))
	}
	p.SetConcurrency(1)
	if a := p.Active(); a != 4 {
		t.Fatalf("Active right after shrinking = %d, want 4 (nothing is cut)", a)
	}
	for i, c := range calls {
		c.emit(t, i+1) // still streaming after the shrink
		c.finish(t)
		rec.waitFor(t, "sample", atLeastSamples(i+1))
	}
	// Three surplus workers exit; exactly one goes on, with a request of the new segment.
	last := g.next(t)
	if a := p.Active(); a != 1 {
		t.Fatalf("Active after the old requests ended = %d, want 1", a)
	}
	p.Stop()
	last.finish(t)
	evs := rec.wait(t)
	checkEventOrder(t, evs)
	if n := g.n.Load(); n != 5 {
		t.Fatalf("%d requests, want 5", n)
	}
	ss := sampleEvents(evs)
	for i, s := range ss[:4] {
		if !s.OK() || s.Chunks != i+1 || s.Segment != 1 || s.Concurrency != 4 || s.Warmup {
			t.Errorf("old request %d: %+v; want OK, %d chunks, segment 1 at 4, not warm-up", i, s, i+1)
		}
	}
	// Every old request ended before it was sent: the new segment was already steady.
	if s := ss[4]; !s.OK() || s.Segment != 2 || s.Concurrency != 1 || s.Warmup {
		t.Errorf("new request: %+v; want OK, segment 2 at 1, not warm-up", s)
	}
}

func TestPoolPauseResume(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p, rec, _ := startGated(t, g)
	p.SetConcurrency(2)
	a, b := g.next(t), g.next(t)
	p.Pause()
	p.Pause() // idempotent
	if !p.Paused() {
		t.Fatal("Paused() = false after Pause")
	}
	rec.waitFor(t, "segment 1 closed", func(evs []Event) bool {
		s, ok := lastSegmentStates(evs)[1]
		return ok && !s.Open
	})
	a.emit(t, 2) // paused requests keep streaming
	a.finish(t)
	b.finish(t)
	rec.waitFor(t, "2 samples", atLeastSamples(2))
	if n, act := g.n.Load(), p.Active(); n != 2 || act != 0 {
		t.Fatalf("paused: %d requests sent, %d active; want 2, 0", n, act)
	}
	g.none(t)

	p.SetConcurrency(3) // while paused: only the target changes
	g.none(t)
	p.Resume()
	p.Resume()
	if p.Paused() {
		t.Fatal("Paused() = true after Resume")
	}
	calls := []*gateCall{g.next(t), g.next(t), g.next(t)}
	p.Stop()
	for _, c := range calls {
		c.finish(t)
	}
	evs := rec.wait(t)
	checkEventOrder(t, evs)
	segs := lastSegmentStates(evs)
	if len(segs) != 2 {
		t.Fatalf("segments %v, want 2", segs)
	}
	s2 := segs[2]
	if s2.Concurrency != 3 || s2.Open || !s2.SteadyAt.Equal(s2.Start) {
		t.Errorf("resumed segment %+v: want concurrency 3, closed, steady at its start", s2)
	}
	for _, s := range sampleEvents(evs)[2:] {
		if !s.OK() || s.Segment != 2 || s.Warmup {
			t.Errorf("sample after resume %+v: want OK, segment 2, not warm-up", s)
		}
	}
	tk := tickEvents(evs)
	if f := tk[len(tk)-1]; f.Paused || f.Target != 3 || f.Active != 0 {
		t.Errorf("final tick %+v: want not paused, target 3, none active", f)
	}
}

func TestPoolWarmupSegments(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p, rec, _ := startGated(t, g)
	p.SetConcurrency(1)
	a := g.next(t)
	p.SetConcurrency(2)
	b := g.next(t)
	p.SetConcurrency(3) // quick successive changes: a (seg 1) and b (seg 2) still in flight
	c := g.next(t)

	a.finish(t)
	a2 := g.next(t) // a's worker goes on, in segment 3, while b is in flight: warm-up
	rec.waitFor(t, "a", atLeastSamples(1))
	if s := lastSegmentStates(rec.snapshot())[3]; !s.SteadyAt.IsZero() {
		t.Fatalf("segment 3 steady at %v while b (segment 2) is in flight", s.SteadyAt)
	}
	b.finish(t)
	b2 := g.next(t)
	evs := rec.waitFor(t, "segment 3 steady", func(evs []Event) bool {
		return !lastSegmentStates(evs)[3].SteadyAt.IsZero()
	})
	s3 := lastSegmentStates(evs)[3]
	if !s3.Open || s3.Concurrency != 3 {
		t.Fatalf("segment 3 = %+v, want open at 3", s3)
	}
	p.Stop()
	for _, x := range []*gateCall{c, a2, b2} {
		x.finish(t)
	}
	evs = rec.wait(t)
	checkEventOrder(t, evs)

	type want struct {
		seg, conc int
		warmup    bool
	}
	got := map[int64]want{}
	for _, s := range sampleEvents(evs) {
		got[int64(s.Send.Sub(epoch))] = want{s.Segment, s.Concurrency, s.Warmup}
	}
	for name, w := range map[string]struct {
		c *gateCall
		w want
	}{
		"a":  {a, want{1, 1, false}},
		"b":  {b, want{2, 2, true}},
		"c":  {c, want{3, 3, true}},
		"a2": {a2, want{3, 3, true}},
		"b2": {b2, want{3, 3, false}},
	} {
		if have, ok := got[w.c.p.Send.Load()]; !ok || have != w.w {
			t.Errorf("request %s: segment, concurrency, warm-up = %+v, want %+v", name, have, w.w)
		}
	}
	segs := lastSegmentStates(evs)
	if len(segs) != 3 {
		t.Fatalf("segments %v, want 3", segs)
	}
	for id, s := range segs {
		if s.Open || s.Endpoint != 7 {
			t.Errorf("segment %d: %+v, want closed, endpoint 7", id, s)
		}
	}
	if !segs[2].SteadyAt.IsZero() || segs[2].SteadyChunks != 0 {
		t.Errorf("segment 2 never turned over but is %+v", segs[2])
	}
	if !segs[3].SteadyAt.Equal(s3.SteadyAt) || segs[3].SteadyAt.Before(segs[3].Start) {
		t.Errorf("segment 3 steady at %v, want %v", segs[3].SteadyAt, s3.SteadyAt)
	}
}

func TestPoolTicks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p, rec, tick := startGated(t, g)
	n := 0
	doTick := func() *model.Tick {
		t.Helper()
		tick <- time.Now()
		n++
		tk := tickEvents(rec.waitFor(t, "tick", atLeastTicks(n)))
		return tk[n-1]
	}
	p.SetConcurrency(2)
	a, b := g.next(t), g.next(t)
	a.emit(t, 1)
	t1 := doTick()
	if t1.Chunks != 1 || len(t1.UserChunks) != 0 || len(t1.FirstTokens) != 1 ||
		t1.Started != 2 || t1.Finished != 0 || t1.Active != 2 || t1.Target != 2 || t1.Paused || t1.Endpoint != 7 {
		t.Fatalf("tick 1 = %+v", t1)
	}
	if want := time.Duration(a.p.First.Load() - a.p.Send.Load()); t1.FirstTokens[0] != want {
		t.Errorf("tick 1 TTFT %v, want %v", t1.FirstTokens[0], want)
	}
	if want := MonoTime(a.p.Send.Load()); len(t1.FirstSends) != 1 || !t1.FirstSends[0].Equal(want) {
		t.Errorf("tick 1 sends %v, want %v", t1.FirstSends, want)
	}
	a.emit(t, 3)
	b.emit(t, 2) // b's first token: b is not decoding during the whole bucket
	t2 := doTick()
	if t2.Chunks != 5 || !slices.Equal(t2.UserChunks, []int32{3}) || len(t2.FirstTokens) != 1 ||
		t2.Started != 0 || !t2.Start.Equal(t1.End) {
		t.Fatalf("tick 2 = %+v", t2)
	}
	a.emit(t, 4)
	b.emit(t, 1)
	a.finish(t) // ended in the bucket: its chunks count, it is no whole-bucket user
	a2 := g.next(t)
	rec.waitFor(t, "a", atLeastSamples(1))
	t3 := doTick()
	if t3.Chunks != 5 || !slices.Equal(t3.UserChunks, []int32{1}) || len(t3.FirstTokens) != 0 ||
		t3.Started != 1 || t3.Finished != 1 || t3.Active != 2 {
		t.Fatalf("tick 3 = %+v", t3)
	}
	a2.emit(t, 2)
	a2.finish(t) // first token and end in the same bucket: its TTFT still counts, once
	a3 := g.next(t)
	rec.waitFor(t, "a2", atLeastSamples(2))
	b.emit(t, 6)
	p.Pause()
	t4 := doTick()
	if t4.Chunks != 8 || !slices.Equal(t4.UserChunks, []int32{6}) || len(t4.FirstTokens) != 1 ||
		t4.Finished != 1 || t4.Started != 1 || !t4.Paused || t4.Active != 2 {
		t.Fatalf("tick 4 = %+v", t4)
	}
	if want := time.Duration(a2.p.First.Load() - a2.p.Send.Load()); t4.FirstTokens[0] != want {
		t.Errorf("tick 4 TTFT %v, want %v", t4.FirstTokens[0], want)
	}
	if want := MonoTime(a2.p.Send.Load()); len(t4.FirstSends) != 1 || !t4.FirstSends[0].Equal(want) {
		t.Errorf("tick 4 sends %v, want %v (a first token reported as its request ended)", t4.FirstSends, want)
	}
	b.emit(t, 2)
	p.Stop()
	b.finish(t)
	a3.finish(t)
	evs := rec.wait(t)
	checkEventOrder(t, evs)

	// Every chunk counted once, every first token reported once, in some tick.
	var tickChunks, sampleChunks int64
	var fromTicks, fromSamples []time.Duration
	for _, tk := range tickEvents(evs) {
		tickChunks += tk.Chunks
		fromTicks = append(fromTicks, tk.FirstTokens...)
	}
	for _, s := range sampleEvents(evs) {
		sampleChunks += int64(s.Chunks)
		if d, ok := s.TTFT(); ok {
			fromSamples = append(fromSamples, d)
		}
	}
	if tickChunks != sampleChunks || tickChunks != 21 {
		t.Errorf("chunks: ticks %d, samples %d, want 21", tickChunks, sampleChunks)
	}
	slices.Sort(fromTicks)
	slices.Sort(fromSamples)
	if !slices.Equal(fromTicks, fromSamples) {
		t.Errorf("TTFTs in ticks %v, in samples %v", fromTicks, fromSamples)
	}
	last := tickEvents(evs)[len(tickEvents(evs))-1]
	if evs[len(evs)-1].Tick != last || last.Active != 0 || last.Chunks != 2 {
		t.Errorf("last event %+v, want the final tick (2 chunks, none active)", evs[len(evs)-1])
	}
}

func TestPoolStop(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p, rec, _ := startGated(t, g)
	p.SetConcurrency(2)
	a, b := g.next(t), g.next(t)
	p.Stop()
	p.Stop()
	p.SetConcurrency(4) // ignored once stopped: nothing new starts
	p.Resume()
	rec.waitFor(t, "segment closed", func(evs []Event) bool {
		s, ok := lastSegmentStates(evs)[1]
		return ok && !s.Open
	})
	select {
	case <-p.Done():
		t.Fatal("pool done while requests are in flight")
	default:
	}
	if ch := p.Run(context.Background()); ch == nil {
		t.Fatal("second Run returned nil")
	}
	a.emit(t, 3) // Stop does not cut requests in flight
	a.finish(t)
	b.finish(t)
	evs := rec.wait(t)
	<-p.Done()
	checkEventOrder(t, evs)
	g.none(t)
	if n := g.n.Load(); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	for _, s := range sampleEvents(evs) {
		if !s.OK() {
			t.Errorf("sample %+v: want OK", s)
		}
	}
	if last := evs[len(evs)-1]; last.Tick == nil || last.Tick.Chunks != 3 || last.Tick.Finished != 2 {
		t.Errorf("last event %+v, want the final tick (3 chunks, 2 finished)", last)
	}
}

func TestPoolStopBeforeRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p := NewPool(0, g, WithTickEvery(time.Hour))
	p.SetConcurrency(3)
	p.Stop()
	evs := logEvents(p.Run(context.Background())).wait(t)
	if len(evs) != 1 || evs[0].Tick == nil || evs[0].Tick.Target != 3 {
		t.Fatalf("events %+v, want only the final tick", evs)
	}
	if g.n.Load() != 0 {
		t.Fatal("a stopped pool sent requests")
	}
}

func TestPoolCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	ctx, cancel := context.WithCancel(context.Background())
	p := NewPool(7, g, WithTickEvery(time.Hour))
	p.SetConcurrency(3) // before Run: starts with it
	rec := logEvents(p.Run(ctx))
	for range 3 {
		g.next(t).emit(t, 1)
	}
	cancel()
	evs := rec.wait(t)
	checkEventOrder(t, evs)
	ss := sampleEvents(evs)
	if len(ss) != 3 || g.n.Load() != 3 {
		t.Fatalf("%d samples, %d requests, want 3, 3", len(ss), g.n.Load())
	}
	for _, s := range ss {
		if s.Err != model.ErrCanceled || s.Chunks != 1 {
			t.Errorf("sample %+v: want canceled with 1 chunk", s)
		}
	}
	segs := lastSegmentStates(evs)
	if s, ok := segs[1]; !ok || s.Open || len(segs) != 1 {
		t.Errorf("segments %v, want segment 1 closed", segs)
	}
	var chunks int64
	for _, tk := range tickEvents(evs) {
		chunks += tk.Chunks
	}
	if chunks != 3 {
		t.Errorf("ticks counted %d chunks, want 3", chunks)
	}
	p.Stop() // after the end: still harmless
}

// TestPoolLoad runs a timedStreamer fake through grow, shrink, pause and resume with real
// short ticks, and checks that ticks account every chunk exactly once and that each
// segment's SteadyChunks matches the chunks the fake delivered in its steady window.
func TestPoolLoad(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := &timedStreamer{
		ttft:   3 * time.Millisecond,
		gaps:   []time.Duration{2 * time.Millisecond, 3 * time.Millisecond, 5 * time.Millisecond},
		chunks: []int{5, 12, 30, 8, 20},
	}
	p := NewPool(7, f, WithTickEvery(20*time.Millisecond))
	rec := logEvents(p.Run(context.Background()))
	const maxConc = 4
	for _, step := range []func(){
		func() { p.SetConcurrency(1) },
		func() { p.SetConcurrency(maxConc) },
		func() { p.SetConcurrency(2) },
		p.Pause,
		p.Resume,
		func() { p.SetConcurrency(3) },
	} {
		step()
		time.Sleep(120 * time.Millisecond) // let the level run for several ticks
	}
	p.Stop()
	evs := rec.wait(t)
	checkEventOrder(t, evs)

	var tickChunks, sampleChunks int64
	var maxActive int
	for _, tk := range tickEvents(evs) {
		tickChunks += tk.Chunks
		maxActive = max(maxActive, tk.Active)
		if tk.Chunks < 0 || !tk.End.After(tk.Start) && tk != tickEvents(evs)[len(tickEvents(evs))-1] {
			t.Errorf("bad tick %+v", tk)
		}
	}
	for _, s := range sampleEvents(evs) {
		sampleChunks += int64(s.Chunks)
		if !s.OK() {
			t.Errorf("sample %+v: want OK (nothing is ever cut)", s)
		}
	}
	if tickChunks != sampleChunks || tickChunks != f.total() || tickChunks == 0 {
		t.Errorf("chunks: ticks %d, samples %d, fake %d; want all equal", tickChunks, sampleChunks, f.total())
	}
	if maxActive > maxConc {
		t.Errorf("Active reached %d above the largest concurrency %d", maxActive, maxConc)
	}
	segs := lastSegmentStates(evs)
	if len(segs) != 5 {
		t.Fatalf("%d segments, want 5 (1, 4, 2, resumed 2, 3)", len(segs))
	}
	if s := segs[1]; !s.SteadyAt.Equal(s.Start) || s.SteadyChunks == 0 {
		t.Errorf("first segment %+v: want steady from its start, with steady chunks", s)
	}
	for id, s := range segs {
		if s.Open {
			t.Errorf("segment %d still open at the end", id)
		}
		if s.SteadyAt.IsZero() {
			continue
		}
		// Each boundary can be off by at most one chunk per stream (stamped but not yet added).
		want := f.between(s.SteadyAt, s.End)
		if d := s.SteadyChunks - want; d < -2*maxConc || d > 2*maxConc {
			t.Errorf("segment %d: SteadyChunks %d, fake delivered %d in [SteadyAt, End)", id, s.SteadyChunks, want)
		}
	}
	// Running states of a segment never lose steady chunks.
	prev := map[int]int64{}
	for _, s := range segmentEvents(evs) {
		if s.SteadyChunks < prev[s.ID] {
			t.Errorf("segment %d: SteadyChunks went down to %d from %d", s.ID, s.SteadyChunks, prev[s.ID])
		}
		prev[s.ID] = s.SteadyChunks
	}
}

func TestPoolZeroConcurrency(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	p, log, tick := startGated(t, g)
	p.SetConcurrency(2)
	a, b := g.next(t), g.next(t)
	p.SetConcurrency(0)
	p.SetConcurrency(-1) // same as 0: no new segment
	log.waitFor(t, "segment 1 closed", func(evs []Event) bool {
		s, ok := lastSegmentStates(evs)[1]
		return ok && !s.Open
	})
	a.finish(t)
	b.finish(t)
	log.waitFor(t, "2 samples", atLeastSamples(2))
	g.none(t)
	tick <- time.Now()
	evs := log.waitFor(t, "tick", atLeastTicks(1))
	if tk := tickEvents(evs)[0]; tk.Active != 0 || tk.Target != 0 || tk.Finished != 2 {
		t.Fatalf("tick at concurrency 0 = %+v", tk)
	}
	if n := len(lastSegmentStates(evs)); n != 1 {
		t.Fatalf("%d segments at concurrency 0, want 1 (no new segment opens)", n)
	}
	p.SetConcurrency(1)
	c := g.next(t)
	p.Stop()
	c.finish(t)
	evs = log.wait(t)
	checkEventOrder(t, evs)
	segs := lastSegmentStates(evs)
	if s := segs[2]; len(segs) != 2 || s.Concurrency != 1 || !s.SteadyAt.Equal(s.Start) {
		t.Fatalf("segments %v, want a second one at 1, steady at once", segs)
	}
	if s := sampleEvents(evs)[2]; s.Segment != 2 || s.Warmup {
		t.Errorf("request after 0 -> 1: %+v, want segment 2, not warm-up", s)
	}
}

func TestNextBackoff(t *testing.T) {
	fail := &model.Sample{Err: model.ErrConnect}
	failAfterTokens := &model.Sample{Err: model.ErrTruncated, Chunks: 3}
	ok := &model.Sample{Tokens: 5, Chunks: 5}
	canceled := &model.Sample{Err: model.ErrCanceled}
	tests := []struct {
		name string
		cur  time.Duration
		s    *model.Sample
		want time.Duration
	}{
		{"first fast failure starts the wait", 0, fail, minBackoff},
		{"repeated failures double", minBackoff, fail, 2 * minBackoff},
		{"the wait is capped", maxBackoff, fail, maxBackoff},
		{"a success ends it", maxBackoff, ok, 0},
		{"a failure after tokens does not back off", 0, failAfterTokens, 0},
		{"our own cancel does not back off", minBackoff, canceled, 0},
	}
	for _, tc := range tests {
		if got := nextBackoff(tc.cur, tc.s); got != tc.want {
			t.Errorf("%s: nextBackoff(%v) = %v, want %v", tc.name, tc.cur, got, tc.want)
		}
	}
}

// failStreamer fails every request at once with no token, like a refused connection.
type failStreamer struct{ n atomic.Int64 }

func (f *failStreamer) Stream(ctx context.Context, p *Progress) model.Sample {
	f.n.Add(1)
	now := time.Now()
	return model.Sample{Send: now, End: now, Err: model.ErrConnect, ErrMsg: "connect: connection refused"}
}

func TestPoolBacksOffFastFailures(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := &failStreamer{}
	p, rec, _ := startGated(t, f)
	p.SetConcurrency(4)
	// Without a backoff four workers send hundreds of thousands of requests in this time;
	// with it each waits 50, 100, 200, 400 ms... between sends.
	time.Sleep(300 * time.Millisecond)
	p.Stop() // must wake the workers that are waiting
	stopped := time.Now()
	rec.wait(t)
	if d := time.Since(stopped); d > maxBackoff/2 {
		t.Errorf("the pool took %v to end after Stop: backing-off workers were not woken", d)
	}
	if n := f.n.Load(); n < 4 || n > 40 {
		t.Errorf("%d requests in 300 ms from 4 workers against a failing endpoint, want 4..40", n)
	}
}
