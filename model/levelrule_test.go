package model

import (
	"fmt"
	"testing"
	"time"
)

// ruleStep is one call on a LevelRule at fake time t (seconds after t0) and the
// outcome it must have, written compactly (see fmtSeg).
type ruleStep struct {
	t    int
	op   string // begin (c, open), pause (begin with open=false), send, done, deliv, cur, rate (SetOpenLoop)
	c    int    // begin: concurrency
	req  string // send/done: request name
	n    int64  // begin/pause/deliv: cumulative delivered chunks
	want string
}

// sent is what Send returned for a request, given back to Done.
type sent struct {
	seg int
	seq uint64
}

var ruleT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func ruleAt(s int) time.Time { return ruleT0.Add(time.Duration(s) * time.Second) }

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return fmt.Sprint(int(t.Sub(ruleT0) / time.Second))
}

// fmtSeg renders a segment as "#ID cC [start,end) steady=S chunks=N open|closed".
func fmtSeg(s Segment) string {
	state := "closed"
	if s.Open {
		state = "open"
	}
	return fmt.Sprintf("#%d c%d [%s,%s) steady=%s chunks=%d %s", s.ID, s.Concurrency,
		fmtTime(s.Start), fmtTime(s.End), fmtTime(s.SteadyAt), s.SteadyChunks, state)
}

func TestLevelRule(t *testing.T) {
	cases := []struct {
		name  string
		steps []ruleStep
	}{
		{"first segment is steady at once", []ruleStep{
			{t: 0, op: "cur", want: "none"},
			{t: 0, op: "begin", c: 2, want: "closed=none opened=#1 c2 [0,0) steady=0 chunks=0 open"},
			{t: 0, op: "send", req: "a", want: "seg=1 c=2 warmup=false"},
			{t: 0, op: "send", req: "b", want: "seg=1 c=2 warmup=false"},
			{t: 1, op: "deliv", n: 7},
			{t: 1, op: "done", req: "a", want: "steady=false"},
			{t: 2, op: "cur", want: "#1 c2 [0,2) steady=0 chunks=7 open"},
		}},
		{"grow: new requests are warm-up until the old ones end", []ruleStep{
			{t: 0, op: "begin", c: 2, want: "closed=none opened=#1 c2 [0,0) steady=0 chunks=0 open"},
			{t: 0, op: "send", req: "a", want: "seg=1 c=2 warmup=false"},
			{t: 0, op: "send", req: "b", want: "seg=1 c=2 warmup=false"},
			{t: 1, op: "deliv", n: 10},
			{t: 2, op: "begin", c: 4, n: 12, want: "closed=#1 c2 [0,2) steady=0 chunks=12 closed opened=#2 c4 [2,2) steady=- chunks=0 open"},
			{t: 2, op: "send", req: "c", want: "seg=2 c=4 warmup=true"},
			{t: 2, op: "send", req: "d", want: "seg=2 c=4 warmup=true"},
			{t: 3, op: "deliv", n: 20},
			{t: 3, op: "cur", want: "#2 c4 [2,3) steady=- chunks=0 open"},
			{t: 3, op: "done", req: "a", want: "steady=false"},
			{t: 3, op: "send", req: "a2", want: "seg=2 c=4 warmup=true"},
			{t: 4, op: "done", req: "c", want: "steady=false"},
			{t: 4, op: "send", req: "c2", want: "seg=2 c=4 warmup=true"},
			{t: 5, op: "done", req: "b", want: "steady=true"},
			{t: 5, op: "deliv", n: 30},
			{t: 5, op: "send", req: "b2", want: "seg=2 c=4 warmup=false"},
			{t: 6, op: "deliv", n: 36},
			{t: 6, op: "done", req: "d", want: "steady=false"},
			{t: 7, op: "cur", want: "#2 c4 [2,7) steady=5 chunks=6 open"},
		}},
		{"shrink: steady once every earlier request ended, in any order", []ruleStep{
			{t: 0, op: "begin", c: 3},
			{t: 0, op: "send", req: "a", want: "seg=1 c=3 warmup=false"},
			{t: 0, op: "send", req: "b", want: "seg=1 c=3 warmup=false"},
			{t: 0, op: "send", req: "c", want: "seg=1 c=3 warmup=false"},
			{t: 1, op: "begin", c: 1, n: 5, want: "closed=#1 c3 [0,1) steady=0 chunks=5 closed opened=#2 c1 [1,1) steady=- chunks=0 open"},
			{t: 2, op: "done", req: "c", want: "steady=false"},
			{t: 3, op: "done", req: "a", want: "steady=false"},
			{t: 4, op: "done", req: "b", want: "steady=true"},
			{t: 4, op: "deliv", n: 9},
			{t: 4, op: "send", req: "d", want: "seg=2 c=1 warmup=false"},
			{t: 6, op: "pause", n: 14, want: "closed=#2 c1 [1,6) steady=4 chunks=5 closed opened=none"},
		}},
		{"pause then resume with nothing in flight is steady at once", []ruleStep{
			{t: 0, op: "begin", c: 1},
			{t: 0, op: "send", req: "a", want: "seg=1 c=1 warmup=false"},
			{t: 1, op: "pause", n: 3, want: "closed=#1 c1 [0,1) steady=0 chunks=3 closed opened=none"},
			{t: 1, op: "cur", want: "none"},
			{t: 2, op: "done", req: "a", want: "steady=false"},
			{t: 3, op: "deliv", n: 4},
			{t: 5, op: "begin", c: 1, n: 4, want: "closed=none opened=#2 c1 [5,5) steady=5 chunks=0 open"},
			{t: 5, op: "send", req: "b", want: "seg=2 c=1 warmup=false"},
			{t: 6, op: "deliv", n: 9},
			{t: 6, op: "cur", want: "#2 c1 [5,6) steady=5 chunks=5 open"},
		}},
		{"resume while paused requests are in flight waits for them", []ruleStep{
			{t: 0, op: "begin", c: 2},
			{t: 0, op: "send", req: "a"},
			{t: 0, op: "send", req: "b"},
			{t: 1, op: "pause", n: 2, want: "closed=#1 c2 [0,1) steady=0 chunks=2 closed opened=none"},
			{t: 2, op: "done", req: "a", want: "steady=false"},
			{t: 3, op: "begin", c: 2, n: 6, want: "closed=none opened=#2 c2 [3,3) steady=- chunks=0 open"},
			{t: 3, op: "send", req: "c", want: "seg=2 c=2 warmup=true"},
			{t: 3, op: "send", req: "d", want: "seg=2 c=2 warmup=true"},
			{t: 4, op: "done", req: "b", want: "steady=true"},
			{t: 4, op: "deliv", n: 8},
			{t: 5, op: "deliv", n: 11},
			{t: 5, op: "cur", want: "#2 c2 [3,5) steady=4 chunks=3 open"},
		}},
		{"quick successive changes wait for requests of both earlier segments", []ruleStep{
			{t: 0, op: "begin", c: 1},
			{t: 0, op: "send", req: "a", want: "seg=1 c=1 warmup=false"},
			{t: 1, op: "begin", c: 2, n: 1, want: "closed=#1 c1 [0,1) steady=0 chunks=1 closed opened=#2 c2 [1,1) steady=- chunks=0 open"},
			{t: 1, op: "send", req: "b", want: "seg=2 c=2 warmup=true"},
			{t: 2, op: "begin", c: 3, n: 2, want: "closed=#2 c2 [1,2) steady=- chunks=0 closed opened=#3 c3 [2,2) steady=- chunks=0 open"},
			{t: 2, op: "send", req: "c", want: "seg=3 c=3 warmup=true"},
			{t: 2, op: "send", req: "d", want: "seg=3 c=3 warmup=true"},
			{t: 3, op: "done", req: "a", want: "steady=false"},
			{t: 3, op: "send", req: "a2", want: "seg=3 c=3 warmup=true"},
			{t: 4, op: "done", req: "c", want: "steady=false"},
			{t: 5, op: "done", req: "b", want: "steady=true"},
			{t: 5, op: "deliv", n: 40},
			{t: 5, op: "send", req: "e", want: "seg=3 c=3 warmup=false"},
			{t: 6, op: "done", req: "a2", want: "steady=false"},
			{t: 7, op: "begin", c: 3, n: 50, want: "closed=#3 c3 [2,7) steady=5 chunks=10 closed opened=#4 c3 [7,7) steady=- chunks=0 open"},
		}},
		{"zero concurrency closes without opening", []ruleStep{
			{t: 0, op: "begin", c: 0, want: "closed=none opened=none"},
			{t: 0, op: "begin", c: 2, want: "closed=none opened=#1 c2 [0,0) steady=0 chunks=0 open"},
			{t: 0, op: "send", req: "a"},
			{t: 1, op: "begin", c: 0, n: 4, want: "closed=#1 c2 [0,1) steady=0 chunks=4 closed opened=none"},
			{t: 1, op: "cur", want: "none"},
			{t: 2, op: "deliv", n: 6},
			{t: 2, op: "done", req: "a", want: "steady=false"},
			{t: 3, op: "begin", c: 1, n: 6, want: "closed=none opened=#2 c1 [3,3) steady=3 chunks=0 open"},
		}},
		{"a send with no open segment is warm-up of segment 0 and delays the next segment", []ruleStep{
			{t: 0, op: "send", req: "a", want: "seg=0 c=0 warmup=true"},
			{t: 1, op: "begin", c: 1, want: "closed=none opened=#1 c1 [1,1) steady=- chunks=0 open"},
			{t: 2, op: "done", req: "a", want: "steady=true"},
			{t: 3, op: "cur", want: "#1 c1 [1,3) steady=2 chunks=0 open"},
		}},
		{"steady then closed before any delivered count: base is the closing total", []ruleStep{
			{t: 0, op: "begin", c: 1},
			{t: 0, op: "send", req: "a"},
			{t: 1, op: "begin", c: 2, n: 3},
			{t: 2, op: "done", req: "a", want: "steady=true"},
			{t: 2, op: "begin", c: 4, n: 9, want: "closed=#2 c2 [1,2) steady=2 chunks=0 closed opened=#3 c4 [2,2) steady=2 chunks=0 open"},
		}},
		{"rate: a level after a faster one waits in rounds for its own requests queued behind the backlog", []ruleStep{
			{t: 0, op: "rate"},
			{t: 0, op: "begin", c: 8, want: "closed=none opened=#1 c8 [0,0) steady=0 chunks=0 open"},
			{t: 0, op: "send", req: "a"},
			{t: 0, op: "send", req: "b"},
			{t: 1, op: "begin", c: 3, want: "closed=#1 c8 [0,1) steady=0 chunks=0 closed opened=#2 c3 [1,1) steady=- chunks=0 open"},
			{t: 2, op: "send", req: "c", want: "seg=2 c=3 warmup=true"},
			{t: 3, op: "send", req: "d", want: "seg=2 c=3 warmup=true"},
			{t: 4, op: "done", req: "a", want: "steady=false"},
			// The earlier level's requests all ended (round 0: 9 s): round 1 waits for c and d.
			{t: 10, op: "done", req: "b", want: "steady=false"},
			{t: 11, op: "send", req: "e", want: "seg=2 c=3 warmup=true"},
			{t: 12, op: "done", req: "c", want: "steady=false"},
			// Round 1 took 4 s, under 0.9 x 9 s: the queue still drained; round 2 waits for e.
			{t: 14, op: "done", req: "d", want: "steady=false"},
			{t: 15, op: "send", req: "f", want: "seg=2 c=3 warmup=true"},
			// Round 2 took 4 s, not under 0.9 x 4 s: the queue is the level's own.
			{t: 18, op: "done", req: "e", want: "steady=true"},
			{t: 19, op: "send", req: "g", want: "seg=2 c=3 warmup=false"},
			{t: 20, op: "cur", want: "#2 c3 [1,20) steady=18 chunks=0 open"},
		}},
		{"rate: a level after a slower one is steady after one round of its own", []ruleStep{
			{t: 0, op: "rate"},
			{t: 0, op: "begin", c: 2},
			{t: 0, op: "send", req: "a"},
			{t: 1, op: "begin", c: 4},
			{t: 1, op: "send", req: "b", want: "seg=2 c=4 warmup=true"},
			{t: 2, op: "send", req: "c", want: "seg=2 c=4 warmup=true"},
			{t: 3, op: "done", req: "a", want: "steady=false"},
			{t: 3, op: "send", req: "d", want: "seg=2 c=4 warmup=true"},
			{t: 4, op: "done", req: "b", want: "steady=false"},
			// c was the last sent before round 1 began; d, sent after, is not waited for.
			{t: 6, op: "done", req: "c", want: "steady=true"},
			{t: 6, op: "send", req: "e", want: "seg=2 c=4 warmup=false"},
		}},
		{"rate: none of the level's own in flight when the earlier ones end: steady", []ruleStep{
			{t: 0, op: "rate"},
			{t: 0, op: "begin", c: 8},
			{t: 0, op: "send", req: "a"},
			{t: 1, op: "begin", c: 3},
			{t: 2, op: "done", req: "a", want: "steady=true"},
		}},
		{"users: the same change is steady once the earlier level's requests ended", []ruleStep{
			{t: 0, op: "begin", c: 8},
			{t: 0, op: "send", req: "a"},
			{t: 1, op: "begin", c: 3},
			{t: 2, op: "send", req: "c", want: "seg=2 c=3 warmup=true"},
			{t: 10, op: "done", req: "a", want: "steady=true"},
			{t: 11, op: "send", req: "e", want: "seg=2 c=3 warmup=false"},
		}},
		{"delivered totals never lower SteadyChunks", []ruleStep{
			{t: 0, op: "begin", c: 1, n: 10},
			{t: 1, op: "deliv", n: 15},
			{t: 2, op: "deliv", n: 12},
			{t: 2, op: "cur", want: "#1 c1 [0,2) steady=0 chunks=5 open"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewLevelRule(3)
			segOf := map[string]sent{}
			for i, st := range tc.steps {
				now := ruleAt(st.t)
				var got string
				switch st.op {
				case "begin", "pause":
					closed, had, opened := r.Begin(st.c, st.op == "begin", st.n, now)
					c, o := "none", "none"
					if had {
						c = fmtSeg(closed)
						if closed.Endpoint != 3 {
							t.Errorf("step %d: closed endpoint %d, want 3", i, closed.Endpoint)
						}
					}
					if opened.Open {
						o = fmtSeg(opened)
						if opened.Endpoint != 3 {
							t.Errorf("step %d: opened endpoint %d, want 3", i, opened.Endpoint)
						}
					}
					got = "closed=" + c + " opened=" + o
				case "send":
					seg, c, w, seq := r.Send(now)
					segOf[st.req] = sent{seg, seq}
					got = fmt.Sprintf("seg=%d c=%d warmup=%v", seg, c, w)
				case "done":
					x, ok := segOf[st.req]
					if !ok {
						t.Fatalf("step %d: done of unknown request %q", i, st.req)
					}
					delete(segOf, st.req)
					got = fmt.Sprintf("steady=%v", r.Done(x.seg, x.seq, now))
				case "rate":
					r.SetOpenLoop(true)
				case "deliv":
					r.Delivered(st.n, now)
				case "cur":
					got = "none"
					if s, ok := r.Current(now); ok {
						got = fmtSeg(s)
					}
				default:
					t.Fatalf("step %d: unknown op %q", i, st.op)
				}
				if st.want != "" && got != st.want {
					t.Errorf("step %d (t=%d %s %s):\n got %s\nwant %s", i, st.t, st.op, st.req, got, st.want)
				}
			}
			all, _ := r.InFlight()
			if all != len(segOf) {
				t.Errorf("InFlight = %d, want %d (requests never done)", all, len(segOf))
			}
		})
	}
}

func TestLevelRuleInFlight(t *testing.T) {
	r := NewLevelRule(0)
	r.Begin(2, true, 0, ruleAt(0))
	a, _, _, aSeq := r.Send(ruleAt(0))
	r.Send(ruleAt(0))
	r.Begin(3, true, 0, ruleAt(1))
	c, _, _, cSeq := r.Send(ruleAt(1))
	if all, earlier := r.InFlight(); all != 3 || earlier != 2 {
		t.Fatalf("InFlight = %d, %d; want 3, 2", all, earlier)
	}
	r.Done(a, aSeq, ruleAt(2))
	r.Done(c, cSeq, ruleAt(2))
	if all, earlier := r.InFlight(); all != 1 || earlier != 1 {
		t.Fatalf("InFlight = %d, %d; want 1, 1", all, earlier)
	}
	// A stray Done (more ends than sends) must not drive the counts negative.
	r.Done(a, aSeq, ruleAt(3))
	r.Done(a, aSeq, ruleAt(3))
	if all, earlier := r.InFlight(); all != 0 || earlier != 0 {
		t.Fatalf("InFlight = %d, %d; want 0, 0", all, earlier)
	}
}

// TestLevelRuleContinuous: with Continuous (a trace's windows), a segment opened right
// after a steady one is steady at once, with requests of the earlier one in flight;
// the first segment still warms up.
func TestLevelRuleContinuous(t *testing.T) {
	r := NewLevelRule(0)
	r.Continuous()
	t0 := time.Unix(100, 0)
	if _, _, first := r.Begin(1, true, 0, t0); first.SteadyAt.IsZero() {
		t.Fatal("the first segment, with nothing in flight, is not steady")
	}
	r.Send(t0) // in flight across the cut
	_, _, second := r.Begin(2, true, 10, t0.Add(time.Second))
	if second.SteadyAt.IsZero() {
		t.Fatal("the window after a steady one is not steady at once")
	}
	if _, _, warm, _ := r.Send(t0.Add(2 * time.Second)); warm {
		t.Error("a request of the second window is warm-up")
	}
	plain := NewLevelRule(0)
	plain.Begin(1, true, 0, t0)
	plain.Send(t0)
	if _, _, s := plain.Begin(2, true, 10, t0.Add(time.Second)); !s.SteadyAt.IsZero() {
		t.Error("without Continuous the next level is steady with a request of the earlier one in flight")
	}
}
