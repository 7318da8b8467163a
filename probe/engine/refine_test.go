package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

// doneAt sends steady requests of endpoint i at users that ended at end, one per rate:
// TTFT 100 ms, then 10 tokens read at that rate (tok/s).
func (r *rig) doneAt(i, users int, rates []float64, end time.Time) {
	for _, v := range rates {
		decode := time.Duration(9 / v * float64(time.Second))
		send := end.Add(-100*time.Millisecond - decode)
		s := &model.Sample{Endpoint: i, Segment: r.seg, Concurrency: users, Send: send, First: send.Add(100 * time.Millisecond),
			FirstAnswer: send.Add(100 * time.Millisecond), Last: end, End: end, Tokens: 10, Chunks: 10, Usage: true, Finish: "stop", Status: 200}
		r.e.Handle(probe.Event{Endpoint: i, Sample: s})
	}
	if seg := r.segs[i]; seg != nil && seg.Concurrency == users && end.After(seg.End) {
		r.window(i, end, int64(10*len(rates)))
	}
}

// spread is n rates spread evenly over [lo, hi].
func spread(n int, lo, hi float64) []float64 {
	out := make([]float64, n)
	for k := range out {
		out[k] = lo + (hi-lo)*float64(k)/float64(max(n-1, 1))
	}
	return out
}

// book of levels: each level of users with n requests at rate tok/s (TTFT 100 ms).
func bookOf(t *testing.T, levels ...[3]float64) []model.LevelStats {
	t.Helper()
	tr := model.NewTracker(model.TrackerOptions{})
	at := t0
	for k, l := range levels {
		users, n, rate := int(l[0]), int(l[1]), l[2]
		tr.UpdateSegment(model.Segment{ID: k + 1, Concurrency: users, Start: at, SteadyAt: at, End: at.Add(time.Minute), SteadyChunks: int64(10 * n)})
		for range n {
			decode := time.Duration(9 / rate * float64(time.Second))
			tr.AddSample(&model.Sample{Concurrency: users, Segment: k + 1, Send: at, First: at.Add(100 * time.Millisecond),
				FirstAnswer: at.Add(100 * time.Millisecond), Last: at.Add(100*time.Millisecond + decode),
				End: at.Add(100*time.Millisecond + decode), Tokens: 10, Chunks: 10, Usage: true, Finish: "stop", Status: 200})
		}
		at = at.Add(time.Minute)
	}
	return tr.Levels()
}

// judged is the levels' judgement with the default level rule, as the engine reads them.
func judged(levels []model.LevelStats, slo model.SLO) model.EndpointJudgement {
	s := model.DefaultRule(slo)
	e := model.ReportEndpoint{Levels: model.ReportLevels(levels)}
	return model.JudgeEndpoint(&s, &e, false, false)
}

// TestRefineStep: the bisection between the last level that meets the criteria and the
// failing one above it, until the gap is within 10% or one, then the confirmation.
func TestRefineStep(t *testing.T) {
	slo := model.DefaultSLO // 30 tok/s per user
	for _, tc := range []struct {
		name   string
		levels [][3]float64 // users, requests, tok/s
		refine bool
		last   LevelEnd
		want   string // "users lo hi confirm" or "done"
	}{
		// In time per token, 1/30 s lies 4/9 of the way from 1/50 (16 users) to 1/20 (32):
		// 23.1 users (in tok/s it would be 2/3 of the way, 26.7).
		{"16..32: where 30 tok/s falls", [][3]float64{{16, 20, 50}, {32, 20, 20}}, true, LevelEnd{}, "23 16 32 false"},
		// The default simulator's levels: 30 tok/s lies between 22 and 23 users.
		{"16..32 as the simulator measures them", [][3]float64{{16, 20, 38.08}, {32, 20, 23.6}}, true, LevelEnd{}, "23 16 32 false"},
		{"16..23 as the simulator measures them", [][3]float64{{16, 20, 38.08}, {23, 20, 29.89}, {32, 20, 23.6}}, true, LevelEnd{}, "22 16 23 false"},
		{"16..24", [][3]float64{{16, 20, 50}, {24, 20, 20}, {32, 20, 20}}, true, LevelEnd{}, "20 16 24 false"},
		{"20..24", [][3]float64{{16, 20, 50}, {20, 20, 50}, {24, 20, 20}}, true, LevelEnd{}, "22 20 24 false"},
		{"20..24: at least one below the failing end", [][3]float64{{16, 20, 50}, {20, 20, 31}, {24, 20, 29.9}}, true, LevelEnd{}, "23 20 24 false"},
		{"22..24 is within 10%: confirm 22", [][3]float64{{20, 20, 50}, {22, 20, 50}, {24, 20, 20}}, true, LevelEnd{}, "22 22 24 true"},
		{"22 met at 95%: done", [][3]float64{{22, 110, 50}, {24, 20, 20}}, true, LevelEnd{}, "done"},
		{"adjacent levels", [][3]float64{{1, 20, 50}, {2, 20, 20}}, true, LevelEnd{}, "1 1 2 true"},
		{"refine off: confirm", [][3]float64{{16, 20, 50}, {32, 20, 20}}, false, LevelEnd{}, "16 16 32 true"},
		{"the top level meets: at least, confirm", [][3]float64{{8, 20, 50}, {16, 20, 50}}, true, LevelEnd{}, "16 16 0 true"},
		{"nothing meets", [][3]float64{{1, 20, 20}}, true, LevelEnd{}, "done"},
		{"confirmed once, undecided: done", [][3]float64{{16, 20, 50}, {32, 20, 20}}, false, LevelEnd{Users: 16, Confirm: true}, "done"},
		{"a failing level below the capacity does not bound it", [][3]float64{{4, 20, 20}, {8, 20, 50}, {16, 20, 20}}, true, LevelEnd{}, "12 8 16 false"},
	} {
		levels := bookOf(t, tc.levels...)
		users, lo, hi, confirm, ok := refineStep(levels, judged(levels, slo), slo, tc.refine, tc.last, false)
		got := "done"
		if ok {
			got = fmt.Sprintf("%d %d %d %v", users, lo, hi, confirm)
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	// Short and undecided levels are not measured in full: they neither meet nor bound.
	levels := bookOf(t, [3]float64{16, 20, 50}, [3]float64{24, 20, 20}, [3]float64{32, 20, 20})
	levels[1].Undecided = []string{model.TermUserTPS}
	if users, _, _, _, _ := refineStep(levels, judged(levels, slo), slo, true, LevelEnd{}, false); users != 23 {
		t.Errorf("24 undecided: next %d, want 23 (16..32)", users)
	}
	// Two probes on the same side: the midpoint.
	if users, _, _, _, _ := refineStep(levels, judged(levels, slo), slo, true, LevelEnd{}, true); users != 24 {
		t.Errorf("halving: next %d, want 24", users)
	}
}

// TestRefineWalk: the engine bisects after the ramp, marks the levels it adds, and ends
// the ramp once the capacity's level is confirmed.
func TestRefineWalk(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{16, 32}, Hold: time.Second}, Refine: true, Settle: SettleCapacity}, 1)
	c := r.ctls[0]
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 16, at(0))
	r.doneAt(0, 16, spread(20, 49, 51), at(5*time.Second))
	r.step(5 * time.Second)
	r.steady(0, 32, at(6*time.Second))
	r.doneAt(0, 32, spread(10, 19.5, 20.5), at(10*time.Second))
	ns := r.step(10 * time.Second)
	if c.conc != 23 || len(ns) != 1 || ns[0].String() != "ep0: refining the capacity: 23 users, between 16 users (meets the criteria) and 32 users (fails)" {
		t.Fatalf("after 32 users failed: users %d, notices %v; want 23 users (where 30 tok/s falls between 50 and 20 in time per token)", c.conc, ns)
	}
	clock := at(10 * time.Second)
	for _, probe := range []struct {
		users  int
		rate   float64 // tok/s per user
		next   int
		reason string
	}{
		{23, 25, 21, "16..23: 30 tok/s falls at 20.7"},
		{21, 28, 18, "21 fails too: two probes on the same side, the midpoint of 16..21"},
		{18, 34, 20, "18..21: 30 tok/s falls at 19.9"},
		{20, 31, 20, "20..21 is one apart: 20 confirmed where it is"},
	} {
		clock = clock.Add(10 * time.Second)
		at0 := clock
		r.steady(0, probe.users, at0)
		r.doneAt(0, probe.users, spread(10, probe.rate-0.5, probe.rate+0.5), at0.Add(5*time.Second))
		r.e.Step(at0.Add(5 * time.Second))
		if c.conc != probe.next {
			t.Fatalf("%d users at %v tok/s: next %d, want %d (%s)", probe.users, probe.rate, c.conc, probe.next, probe.reason)
		}
	}
	now := clock.Add(8 * time.Second)
	if p, _ := r.e.Status(0, now); !p.Confirm || p.Warming || !slices.Equal(p.Waiting, []string{model.TermTTFT}) || p.More != 94 {
		t.Fatalf("confirming 20: %+v; want no new warm-up, the TTFT p95 waited for, 94 more requests", p)
	}
	r.doneAt(0, 20, spread(94, 30.5, 31.5), now)
	ns = r.e.Step(now)
	if fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{RampFinished}) || c.conc != 20 {
		t.Fatalf("20 confirmed: notices %v users %d; want the ramp finished at the capacity", ns, c.conc)
	}
	if s := ns[0].String(); !strings.Contains(s, "all 2 levels held, and 5 to find the capacity; back to capacity, 20 users") {
		t.Errorf("finished: %q", s)
	}
	e := r.e.Report(false).Endpoints[0]
	var refined []int
	for _, l := range e.Levels {
		if l.Refined {
			refined = append(refined, l.Concurrency)
		}
	}
	if e.Capacity != (model.ReportCap{Users: 20, Decided: true}) || !slices.Equal(refined, []int{18, 20, 21, 23}) {
		t.Errorf("capacity %+v, refined levels %v; want 20 users decided, 18, 20, 21 and 23 refined", e.Capacity, refined)
	}
}

// TestNearTheTargetHoldsLonger: a level whose per-user p50 lies near the target holds
// until its interval leaves the target; one far from it ends at its floor.
func TestNearTheTargetHoldsLonger(t *testing.T) {
	heldWith := func(lo, hi float64) int {
		r := newRig(t, Config{Ramp: Ramp{Levels: []int{4, 8}, Hold: time.Second}}, 1)
		r.e.StartRamp([]int{0}, at(0))
		r.steady(0, 4, at(0))
		for k := 1; k <= 400; k++ {
			// Rates spread over [lo, hi] in an order that fills the range evenly.
			v := lo + (hi-lo)*float64((k*37)%101)/100
			r.doneAt(0, 4, []float64{v}, at(time.Duration(k)*time.Second))
			if r.step(time.Duration(k) * time.Second); r.ctls[0].conc != 4 {
				return k
			}
		}
		return -1
	}
	far, near := heldWith(69, 71), heldWith(28.5, 31.3) // medians 70 and 29.9 tok/s
	if far != MinFloor || near < 4*far {
		t.Errorf("far from the target the level ended after %d requests, near it after %d; want %d and many more", far, near, MinFloor)
	}
	t.Logf("a level at 70 tok/s per user ended after %d requests, one at 29 tok/s after %d", far, near)
}

// TestUndecidedAtMaxHold: a level whose figure sits on its target reaches the maximum
// hold undecided, says which criterion, and decides no capacity.
func TestUndecidedAtMaxHold(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{4}, Hold: time.Second, MaxHold: 30 * time.Second}}, 1)
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 4, at(0))
	// Half the requests at 29.9 tok/s, half at 30.1, one at 29.95: the median fails 30
	// and its interval always reaches both sides.
	r.doneAt(0, 4, append(append(spread(20, 29.9, 29.9), spread(20, 30.1, 30.1)...), 29.95), at(10*time.Second))
	if ns := r.step(20 * time.Second); len(ns) != 0 {
		t.Fatalf("20 s: %v", ns)
	}
	if p, _ := r.e.Status(0, at(20*time.Second)); !strings.Contains(p.Waits(), "waiting for per-user p50 to be decided at 95%: about") ||
		!strings.HasSuffix(p.Waits(), "more requests, more than the 10 s left before the maximum hold") {
		t.Errorf("progress %+v says %q", p, p.Waits())
	}
	ns := r.step(30 * time.Second)
	if fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{LevelUndecided, RampFinished}) {
		t.Fatalf("30 s: %v; want undecided, then the ramp over", ns)
	}
	if want := "ep0: 4 users reached the maximum hold with per-user p50 undecided at 95%: marked undecided (it decides no capacity)"; ns[0].String() != want {
		t.Errorf("notice %q, want %q", ns[0], want)
	}
	e := r.e.Report(false).Endpoints[0]
	if l := e.Levels[0]; !slices.Equal(l.Undecided, []string{model.TermUserTPS}) || e.Capacity != (model.ReportCap{}) {
		t.Errorf("level undecided %v, capacity %+v; want per-user p50, no capacity", l.Undecided, e.Capacity)
	}
}

// TestConfirmationRunsOut: a confirmation that reaches the maximum hold before its own
// warm-up ends leaves the capacity's level as its first hold measured it (not short:
// it had its floor and hold then), and the capacity stands, not decided at 95%.
func TestConfirmationRunsOut(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{16, 32}, Hold: time.Second, MaxHold: 30 * time.Second}, Settle: SettleCapacity}, 1)
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 16, at(0))
	r.doneAt(0, 16, spread(20, 49, 51), at(5*time.Second))
	r.step(5 * time.Second)
	r.steady(0, 32, at(6*time.Second))
	r.doneAt(0, 32, spread(10, 19.5, 20.5), at(10*time.Second))
	if ns := r.step(10 * time.Second); len(ns) != 1 || !strings.HasPrefix(ns[0].String(), "ep0: confirming the capacity at 16 users") {
		t.Fatalf("after 32 users failed: %v; want 16 users confirmed", ns)
	}
	// The requests of 32 users never end: the confirmation's warm-up outlasts its maximum hold.
	ns := r.step(41 * time.Second)
	if fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{LevelShort, RampFinished}) {
		t.Fatalf("41 s: %v; want the confirmation run out, then the ramp over", ns)
	}
	if want := "ep0: confirming 16 users reached the maximum hold with its warm-up not over and 0 of 8 steady requests: not confirmed, its first hold stands"; ns[0].String() != want {
		t.Errorf("notice %q, want %q", ns[0], want)
	}
	rep := r.e.Report(false)
	e := rep.Endpoints[0]
	if r.e.Short(0, 16) || e.Levels[0].Short || e.Capacity != (model.ReportCap{Users: 16}) {
		t.Errorf("16 users short %v, capacity %+v; want 16 users as first held, the capacity not decided", e.Levels[0].Short, e.Capacity)
	}
	j := model.JudgeEndpoint(&rep.Settings, &e, false, false)
	if !strings.HasPrefix(j.Verdict.Text, "capacity 16 users, not decided at 95% (TTFT p95 of 16 users undecided;") {
		t.Errorf("verdict %q", j.Verdict.Text)
	}
}

// TestWaitsKeepsTheEstimateInSight: a level below its floor with both curve figures and
// criteria open names two of them and counts the rest, so that the estimate stays on a
// terminal's line.
func TestWaitsKeepsTheEstimateInSight(t *testing.T) {
	p := LevelProgress{Steady: 3, Need: 8, Curve: []string{"per-user p50", "aggregate tok/s"},
		Waiting: []string{"ttft_p95"}, More: 19, ETA: 30 * time.Second, MaxLeft: 2 * time.Minute}
	want := "waiting for its floor of 8 requests, per-user p50 to ±5%, 2 more: about 19 more requests, about 30 s"
	if got := p.Waits(); got != want {
		t.Errorf("Waits() = %q\nwant %q", got, want)
	}
	p.Curve = nil
	want = "waiting for its floor of 8 requests, TTFT p95 to be decided at 95%: about 19 more requests, about 30 s"
	if got := p.Waits(); got != want {
		t.Errorf("Waits() = %q\nwant %q", got, want)
	}
}

// TestConfirmationThatNowFails: a confirmation that reaches the maximum hold with its
// level's figures failing a criterion as measured (the errors it found) says so, and
// the verdict agrees: no capacity there. With `tpsmon sim --error-rate 0.05` the walk
// said "confirming 2 users ... not confirmed, its first hold stands" (its first 9
// requests had no error), and the verdict read "capacity none" (2 users: errors 2.97%).
func TestConfirmationThatNowFails(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{16, 32}, Hold: time.Second, MaxHold: 30 * time.Second}}, 1)
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 16, at(0))
	r.doneAt(0, 16, spread(20, 49, 51), at(5*time.Second))
	r.step(5 * time.Second)
	r.steady(0, 32, at(6*time.Second))
	r.doneAt(0, 32, spread(10, 19.5, 20.5), at(10*time.Second))
	if ns := r.step(10 * time.Second); len(ns) != 1 || !strings.HasPrefix(ns[0].String(), "ep0: confirming the capacity at 16 users") {
		t.Fatalf("after 32 users failed: %v; want 16 users confirmed", ns)
	}
	r.steady(0, 16, at(11*time.Second))
	r.done(0, 16, 40, 1, 50*time.Millisecond, at(15*time.Second)) // 1 of 60 failed: 1.67% > 1%, undecided at 95%
	ns := r.step(41 * time.Second)
	if fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{LevelUndecided, RampFinished}) {
		t.Fatalf("41 s: %v; want the confirmation run out, then the ramp over", ns)
	}
	if want := "errors undecided at 95%: not confirmed, and its figures now fail (errors 1.67% > 1%): it is not the capacity"; !strings.HasSuffix(ns[0].String(), want) {
		t.Errorf("notice %q, want it to end %q", ns[0], want)
	}
	rep := r.e.Report(false)
	j := model.JudgeEndpoint(&rep.Settings, &rep.Endpoints[0], false, false)
	if !strings.HasPrefix(j.Verdict.Text, "capacity none") {
		t.Errorf("verdict %q, want capacity none", j.Verdict.Text)
	}
}

// TestNoBisectionAboveFailingErrors: when a level below the capacity's fails the error
// criterion at 95%, the walk does not bisect above the capacity's level (which met the
// criteria on a few requests without a failure): it confirms it. With 5% errors the
// walk bisected 10 and 9 users above 8 while 4 users had failed at 8%, and the verdict
// read capacity none.
func TestNoBisectionAboveFailingErrors(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{4, 8, 16}, Hold: time.Second, MaxHold: 30 * time.Second}, Refine: true}, 1)
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 4, at(0))
	r.done(0, 4, 20, 3, 50*time.Millisecond, at(5*time.Second)) // 15% failed: decided at 95%
	r.step(5 * time.Second)
	r.steady(0, 8, at(6*time.Second))
	r.doneAt(0, 8, spread(20, 49, 51), at(10*time.Second))
	r.step(10 * time.Second)
	r.steady(0, 16, at(11*time.Second))
	r.doneAt(0, 16, spread(10, 19.5, 20.5), at(15*time.Second))
	ns := r.step(15 * time.Second)
	if len(ns) != 1 || !strings.HasPrefix(ns[0].String(), "ep0: confirming the capacity at 8 users") {
		t.Fatalf("after 16 users failed: %v; want 8 users confirmed, no bisection above it", ns)
	}
}
