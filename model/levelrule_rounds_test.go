package model

import (
	"testing"
	"time"
)

// fifoServer is a server of slots that each serve one request for a fixed time, in
// the order the requests arrived; the others wait in its queue. It drives a LevelRule
// as a pool does, one millisecond at a time.
type fifoServer struct {
	rule    *LevelRule
	serve   int // ms a request takes in a slot
	slots   int
	queue   []*fifoReq
	running []*fifoReq
	now     int // ms since ruleT0
	seg     int // the open segment
	// steadyWait is the queue wait (ms) of the first request the open segment sent
	// once steady; -1 until there is one.
	steadyWait int
	steadyQ    int // requests waiting when the segment became steady
}

type fifoReq struct {
	seg       int
	seq       uint64
	send, end int
	warm      bool
}

func (f *fifoServer) at() time.Time { return ruleT0.Add(time.Duration(f.now) * time.Millisecond) }

// run sends one request every gap ms for the ms given, as rate mode's constant arrivals do.
func (f *fifoServer) run(gap, ms int) {
	for stop := f.now + ms; f.now < stop; f.now++ {
		kept := f.running[:0]
		for _, r := range f.running {
			if r.end > f.now {
				kept = append(kept, r)
				continue
			}
			if f.rule.Done(r.seg, r.seq, f.at()) {
				f.steadyQ = len(f.queue)
			}
		}
		f.running = kept
		if f.now%gap == 0 {
			r := &fifoReq{send: f.now}
			r.seg, _, r.warm, r.seq = f.rule.Send(f.at())
			f.queue = append(f.queue, r)
		}
		for len(f.running) < f.slots && len(f.queue) > 0 {
			r := f.queue[0]
			f.queue = f.queue[1:]
			r.end = f.now + f.serve
			f.running = append(f.running, r)
			if r.seg == f.seg && !r.warm && f.steadyWait < 0 {
				f.steadyWait = f.now - r.send
			}
		}
	}
}

// level opens a rate level of rps requests/s and runs it for ms.
func (f *fifoServer) level(rps, ms int) Segment {
	_, _, opened := f.rule.Begin(rps, true, 0, f.at())
	f.seg = opened.ID
	f.steadyWait = -1
	f.run(1000/rps, ms)
	seg, _ := f.rule.Current(f.at())
	return seg
}

// TestLevelRuleRateAfterBacklog: a rate level after one over the server's capacity
// (8 requests/s against 5/s: 4 slots of 800 ms) must not count as steady the requests
// that queue behind the backlog the earlier level built. Under the users' rule it was
// steady once the 8 requests/s requests ended, with its own warm-up still queued in
// front of its first steady request.
func TestLevelRuleRateAfterBacklog(t *testing.T) {
	f := &fifoServer{rule: NewLevelRule(0), serve: 800, slots: 4}
	f.rule.SetOpenLoop(true)
	f.level(8, 40_000) // builds a queue of about 120 requests
	if len(f.queue) < 100 {
		t.Fatalf("the 8 requests/s level left %d waiting, want a backlog of over 100", len(f.queue))
	}
	start := f.at()
	seg := f.level(4, 240_000)
	if seg.SteadyAt.IsZero() {
		t.Fatal("4 requests/s (under capacity) never became steady")
	}
	// 4 requests/s every 250 ms into 4 slots of 800 ms: a request waits at most about
	// 50 ms once the queue holds only the level's own arrivals.
	if f.steadyQ > 1 || f.steadyWait > 100 {
		t.Errorf("steady at %v with %d waiting; its first steady request waited %d ms, want the queue drained",
			seg.SteadyAt.Sub(start), f.steadyQ, f.steadyWait)
	}
	// The backlog drains at 1 request/s over the level's: it cannot be steady much sooner.
	if d := seg.SteadyAt.Sub(start); d < 100*time.Second {
		t.Errorf("steady %v after the change; the backlog takes over 100 s to drain", d)
	}
	t.Logf("steady %v after the change (round %d), %d waiting, first steady request waited %d ms",
		seg.SteadyAt.Sub(start), f.rule.round, f.steadyQ, f.steadyWait)
}

// TestLevelRuleRateOverCapacity: a rate level over capacity after a faster one has no
// steady queue; its warm-up ends in finite time, after the second round (the level's
// own requests sent while the earlier ones drained), and its queue then grows with its
// own arrivals.
func TestLevelRuleRateOverCapacity(t *testing.T) {
	f := &fifoServer{rule: NewLevelRule(0), serve: 800, slots: 4}
	f.rule.SetOpenLoop(true)
	f.level(10, 20_000)
	start := f.at()
	seg := f.level(8, 120_000)
	if seg.SteadyAt.IsZero() {
		t.Fatal("8 requests/s (over capacity) never became steady")
	}
	if f.rule.round != 1 {
		t.Errorf("steady after round %d, want 1 (the rounds grow over capacity)", f.rule.round)
	}
	t.Logf("steady %v after the change, %d waiting", seg.SteadyAt.Sub(start), f.steadyQ)
}
