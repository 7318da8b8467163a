package probe

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// poolWaitLimit bounds every wait in these tests; it is only reached when a test fails.
const poolWaitLimit = 10 * time.Second

// gateStreamer is a channel-driven fake Streamer (the edge of the pool): every request it gets
// shows up on calls, and the test decides when it delivers chunks and when it ends.
type gateStreamer struct {
	calls chan *gateCall
	n     atomic.Int64
}

func newGateStreamer() *gateStreamer { return &gateStreamer{calls: make(chan *gateCall, 1024)} }

// gateCall is one request held by a gateStreamer.
type gateCall struct {
	p      *Progress
	chunks chan int
	ack    chan struct{}
	end    chan struct{}
}

func (g *gateStreamer) Stream(ctx context.Context, p *Progress) model.Sample {
	g.n.Add(1)
	send := Mono()
	p.Send.Store(send)
	c := &gateCall{p: p, chunks: make(chan int), ack: make(chan struct{}), end: make(chan struct{})}
	g.calls <- c
	s := model.Sample{Send: MonoTime(send)}
	for {
		select {
		case n := <-c.chunks:
			for range n {
				t := Mono()
				if s.Chunks == 0 {
					p.First.Store(t)
					s.First = MonoTime(t)
				}
				p.Chunks.Add(1)
				s.Chunks++
				s.Last = MonoTime(t)
			}
			c.ack <- struct{}{}
		case <-c.end:
			s.Tokens, s.Finish, s.End = s.Chunks, "stop", time.Now()
			return s
		case <-ctx.Done():
			s.Tokens, s.End = s.Chunks, time.Now()
			s.Err, s.ErrMsg = model.ErrCanceled, "canceled by tpsmon"
			return s
		}
	}
}

// next returns the next request the gateStreamer received.
func (g *gateStreamer) next(t *testing.T) *gateCall {
	t.Helper()
	select {
	case c := <-g.calls:
		return c
	case <-time.After(poolWaitLimit):
		t.Fatal("no request arrived")
		return nil
	}
}

// none checks that no request is waiting to be picked up.
func (g *gateStreamer) none(t *testing.T) {
	t.Helper()
	select {
	case c := <-g.calls:
		t.Fatalf("unexpected request (send %d)", c.p.Send.Load())
	default:
	}
}

// emit delivers n chunks and returns once they are counted.
func (c *gateCall) emit(t *testing.T, n int) {
	t.Helper()
	select {
	case c.chunks <- n:
	case <-time.After(poolWaitLimit):
		t.Fatal("request no longer streaming")
	}
	<-c.ack
}

// finish ends the request successfully.
func (c *gateCall) finish(t *testing.T) {
	t.Helper()
	select {
	case c.end <- struct{}{}:
	case <-time.After(poolWaitLimit):
		t.Fatal("request no longer streaming")
	}
}

// timedStreamer is a fake Streamer that streams on its own: after ttft, one chunk every gap,
// chunks chunks per request (cycling through the lists), recording every chunk's time.
type timedStreamer struct {
	ttft   time.Duration
	gaps   []time.Duration
	chunks []int

	mu     sync.Mutex
	i      int
	stamps []int64
}

func (f *timedStreamer) Stream(ctx context.Context, p *Progress) model.Sample {
	f.mu.Lock()
	i := f.i
	f.i++
	f.mu.Unlock()
	n, gap := f.chunks[i%len(f.chunks)], f.gaps[i%len(f.gaps)]
	send := Mono()
	p.Send.Store(send)
	s := model.Sample{Send: MonoTime(send)}
	tm := time.NewTimer(f.ttft)
	defer tm.Stop()
	for k := 0; k < n; k++ {
		select {
		case <-tm.C:
		case <-ctx.Done():
			s.Tokens, s.End = s.Chunks, time.Now()
			s.Err = model.ErrCanceled
			return s
		}
		t := Mono()
		f.mu.Lock()
		f.stamps = append(f.stamps, t)
		f.mu.Unlock()
		if k == 0 {
			p.First.Store(t)
			s.First = MonoTime(t)
		}
		p.Chunks.Add(1)
		s.Chunks++
		s.Last = MonoTime(t)
		tm.Reset(gap)
	}
	s.Tokens, s.Finish, s.End = s.Chunks, "stop", time.Now()
	return s
}

// between counts the recorded chunks delivered in [from, to).
func (f *timedStreamer) between(from, to time.Time) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	for _, s := range f.stamps {
		if t := MonoTime(s); !t.Before(from) && t.Before(to) {
			n++
		}
	}
	return n
}

func (f *timedStreamer) total() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.stamps))
}

// eventLog drains a pool's channel (as a consumer must) and keeps every event.
type eventLog struct {
	mu      sync.Mutex
	events  []Event
	changed chan struct{}
	closed  chan struct{}
}

func logEvents(ch <-chan Event) *eventLog {
	r := &eventLog{changed: make(chan struct{}, 1), closed: make(chan struct{})}
	go func() {
		defer close(r.closed)
		for ev := range ch {
			r.mu.Lock()
			r.events = append(r.events, ev)
			r.mu.Unlock()
			select {
			case r.changed <- struct{}{}:
			default:
			}
		}
	}()
	return r
}

func (r *eventLog) snapshot() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// waitFor waits until cond holds for the events so far and returns them.
func (r *eventLog) waitFor(t *testing.T, what string, cond func([]Event) bool) []Event {
	t.Helper()
	deadline := time.After(poolWaitLimit)
	for {
		evs := r.snapshot()
		if cond(evs) {
			return evs
		}
		select {
		case <-r.changed:
		case <-r.closed:
			if evs := r.snapshot(); cond(evs) {
				return evs
			}
			t.Fatalf("channel closed before %s", what)
		case <-deadline:
			t.Fatalf("timedStreamer out waiting for %s", what)
		}
	}
}

// wait waits for the channel to close and returns every event.
func (r *eventLog) wait(t *testing.T) []Event {
	t.Helper()
	select {
	case <-r.closed:
	case <-time.After(poolWaitLimit):
		t.Fatal("event channel not closed")
	}
	return r.snapshot()
}

func sampleEvents(evs []Event) []*model.Sample {
	var out []*model.Sample
	for _, e := range evs {
		if e.Sample != nil {
			out = append(out, e.Sample)
		}
	}
	return out
}

func tickEvents(evs []Event) []*model.Tick {
	var out []*model.Tick
	for _, e := range evs {
		if e.Tick != nil {
			out = append(out, e.Tick)
		}
	}
	return out
}

func segmentEvents(evs []Event) []*model.Segment {
	var out []*model.Segment
	for _, e := range evs {
		if e.Segment != nil {
			out = append(out, e.Segment)
		}
	}
	return out
}

// lastSegmentStates returns the newest state of every segment, by ID.
func lastSegmentStates(evs []Event) map[int]model.Segment {
	m := map[int]model.Segment{}
	for _, s := range segmentEvents(evs) {
		m[s.ID] = *s
	}
	return m
}

func atLeastSamples(n int) func([]Event) bool {
	return func(evs []Event) bool { return len(sampleEvents(evs)) >= n }
}

func atLeastTicks(n int) func([]Event) bool {
	return func(evs []Event) bool { return len(tickEvents(evs)) >= n }
}
