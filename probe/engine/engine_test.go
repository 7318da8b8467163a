package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// rig is an engine over fake controls and real level books, on a fake clock.
type rig struct {
	t      *testing.T
	e      *Engine
	ctls   []*fakeCtl
	seg    int
	segs   map[int]*model.Segment // each endpoint's open segment
	chunks map[int]int64          // its chunks delivered since it became steady
}

func newRig(t *testing.T, cfg Config, n int) *rig {
	t.Helper()
	r := &rig{t: t, segs: map[int]*model.Segment{}, chunks: map[int]int64{}}
	var parts []Part
	for i := range n {
		c := &fakeCtl{}
		r.ctls = append(r.ctls, c)
		parts = append(parts, Part{Endpoint: client.Endpoint{Name: fmt.Sprintf("ep%d", i)}, Control: c})
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return t0 }
	}
	e, err := New(cfg, parts)
	if err != nil {
		t.Fatal(err)
	}
	r.e = e
	return r
}

// steady sends endpoint i's open segment at users, steady since at, as a pool does.
func (r *rig) steady(i, users int, steadyAt time.Time) {
	r.seg++
	seg := &model.Segment{Endpoint: i, ID: r.seg, Open: true, Concurrency: users, Start: steadyAt, SteadyAt: steadyAt, End: steadyAt}
	r.segs[i], r.chunks[i] = seg, 0
	r.e.Handle(probe.Event{Endpoint: i, Segment: seg})
}

// window moves endpoint i's open segment on to end, with chunks more delivered in it
// (its steady window and the aggregate over it).
func (r *rig) window(i int, end time.Time, chunks int64) {
	seg := *r.segs[i]
	r.chunks[i] += chunks
	seg.End, seg.SteadyChunks = end, r.chunks[i]
	*r.segs[i] = seg
	r.e.Handle(probe.Event{Endpoint: i, Segment: &seg})
}

// done sends n steady requests of endpoint i at users that ended at end: TTFT ttft, 10
// tokens over 100 ms (90 tok/s per user); fail of them failed with http_500.
func (r *rig) done(i, users, n, fail int, ttft time.Duration, end time.Time) {
	for k := range n {
		send := end.Add(-ttft - 100*time.Millisecond)
		s := &model.Sample{Endpoint: i, Segment: r.seg, Concurrency: users, Send: send, First: send.Add(ttft),
			FirstAnswer: send.Add(ttft), Last: end, End: end, Tokens: 10, Chunks: 10, Usage: true, Finish: "stop", Status: 200}
		if k < fail {
			s.Err, s.ErrMsg, s.Finish, s.Status = model.HTTPError(500), "boom", "", 500
		}
		r.e.Handle(probe.Event{Endpoint: i, Sample: s})
	}
	if seg := r.segs[i]; seg != nil && seg.Concurrency == users && end.After(seg.End) {
		r.window(i, end, int64(10*n))
	}
}

// step steps the engine at d; the diagnosis's notices are left out (diagnosis tests
// read them from Step itself).
func (r *rig) step(d time.Duration) []Notice {
	return slices.DeleteFunc(r.e.Step(at(d)), func(n Notice) bool { return n.Kind == Diagnosed })
}

func kinds(ns []Notice) []NoticeKind {
	var k []NoticeKind
	for _, n := range ns {
		k = append(k, n.Kind)
	}
	return k
}

// TestLevelRule: a level is held until it has its floor of steady requests (6), the hold
// of steady time, its curve known to ±5% and its criteria settled, up to the maximum
// hold (then it is short when its floor, hold or curve were not met). Once the ramp's
// levels are held, the capacity's level is confirmed.
func TestLevelRule(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{1, 16, 32}, Hold: 10 * time.Second, MaxHold: 60 * time.Second}}, 1)
	c := r.ctls[0]
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 1, at(0))
	r.done(0, 1, 5, 0, 100*time.Millisecond, at(5*time.Second))
	r.step(10 * time.Second) // the hold is over but 5 < 8 requests
	if p, _ := r.e.Status(0, at(10*time.Second)); c.conc != 1 || p.Steady != 5 || p.Need != MinFloor || p.Left != 0 || p.More != 3 {
		t.Fatalf("10 s with 5 requests: users %d, progress %+v; want 1 user, 5/8, 3 more", c.conc, p)
	}
	r.done(0, 1, 3, 0, 100*time.Millisecond, at(11*time.Second))
	if ns := r.step(11 * time.Second); c.conc != 16 || fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{LevelStarted}) {
		t.Fatalf("11 s with 8 requests: users %d, notices %v; want 16", c.conc, ns)
	}
	// 16 users: 32 requests come fast, but the hold counts from the steady moment.
	r.steady(0, 16, at(20*time.Second))
	r.done(0, 16, 32, 0, 100*time.Millisecond, at(22*time.Second))
	r.step(29 * time.Second)
	if p, _ := r.e.Status(0, at(29*time.Second)); c.conc != 16 || p.Steady != 32 || p.Left != time.Second || p.ETA != time.Second {
		t.Fatalf("29 s: users %d progress %+v; want 16 users, 1 s of hold left", c.conc, p)
	}
	r.step(30 * time.Second)
	if c.conc != 32 {
		t.Fatalf("30 s: users %d, want 32", c.conc)
	}
	// 32 users never turns over: at the maximum hold (60 s from its start) it is short,
	// and the walk goes back to confirm 16 users, the capacity (its TTFT p95 of 32
	// requests has no upper bound yet).
	if ns := r.step(89 * time.Second); len(ns) != 0 {
		t.Fatalf("89 s: %v", ns)
	}
	ns := r.step(90 * time.Second)
	if fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{LevelShort, LevelStarted}) || !r.e.Short(0, 32) || r.e.Short(0, 16) || c.conc != 16 {
		t.Fatalf("90 s: notices %v, short 32 %v, users %d; want the last level short, then 16 users again", ns, r.e.Short(0, 32), c.conc)
	}
	if !strings.Contains(ns[0].String(), "ep0: 32 users reached the maximum hold with its warm-up not over and 0 of 8 steady requests: marked short") {
		t.Errorf("short notice: %q", ns[0])
	}
	if want := "ep0: confirming the capacity at 16 users: held until each criterion is decided at 95%"; ns[1].String() != want {
		t.Errorf("confirm notice: %q, want %q", ns[1], want)
	}
	r.steady(0, 16, at(95*time.Second))
	r.done(0, 16, 30, 0, 100*time.Millisecond, at(100*time.Second))
	r.step(105 * time.Second)
	if p, _ := r.e.Status(0, at(105*time.Second)); !p.Confirm || !slices.Equal(p.Waiting, []string{model.TermTTFT}) || p.More != 104-62 {
		t.Fatalf("62 requests at 16 users: %+v; want it waiting for the TTFT p95, 42 more requests", p)
	}
	r.done(0, 16, 42, 0, 100*time.Millisecond, at(106*time.Second))
	ns = r.step(106 * time.Second)
	if fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{RampFinished}) || !strings.Contains(ns[0].String(), "all 3 levels held, and 1 to find the capacity") {
		t.Fatalf("104 requests: %v; want the ramp finished", ns)
	}
	if cp := r.e.Report(false).Endpoints[0].Capacity; cp != (model.ReportCap{Users: 16, AtLeast: true, Decided: true}) {
		t.Errorf("capacity %+v, want at least 16 users, decided", cp)
	}
}

// TestLevelRuleHeldTwice: a level held a second time counts its own requests, not the
// first visit's.
func TestLevelRuleHeldTwice(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{1, 2, 1}, Hold: time.Second}}, 1)
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 1, at(0))
	r.done(0, 1, 20, 0, 100*time.Millisecond, at(time.Second))
	r.step(time.Second)
	r.steady(0, 2, at(time.Second))
	r.done(0, 2, 20, 0, 100*time.Millisecond, at(2*time.Second))
	r.step(2 * time.Second)
	if r.ctls[0].conc != 1 {
		t.Fatalf("users %d, want 1 again", r.ctls[0].conc)
	}
	r.steady(0, 1, at(2*time.Second))
	r.step(4 * time.Second)
	if p, ok := r.e.Status(0, at(4*time.Second)); !ok || p.Steady != 0 {
		t.Errorf("second visit of 1 user: %+v; want 0 of its own requests, still held", p)
	}
}

func TestStopRules(t *testing.T) {
	slo := model.DefaultSLO // TTFT p95 <= 2 s
	tests := []struct {
		name    string
		n, fail int
		ttft    time.Duration
		settle  int
		full    bool
		want    []NoticeKind
		users   int
		say     string
	}{
		{"errors clearly over 5% of 10", 10, 3, 100 * time.Millisecond, SettleCapacity, false, []NoticeKind{RampStopped}, 1,
			"auto-ramp stopped at 2 users on ep0: errors 30% > 5% (10 requests); back to capacity, 1 user"},
		{"9 requests are too few to judge", 9, 5, 100 * time.Millisecond, SettleCapacity, false, nil, 2, ""},
		{"5% is not over 5%", 20, 1, 100 * time.Millisecond, SettleCapacity, false, nil, 2, ""},
		{"1 error in 10 may be bad luck", 10, 1, 100 * time.Millisecond, SettleCapacity, false, nil, 2, ""},
		{"2 errors in 10 may be bad luck", 10, 2, 100 * time.Millisecond, SettleCapacity, false, nil, 2, ""},
		{"15 errors in 150 are not", 150, 15, 100 * time.Millisecond, SettleCapacity, false, []NoticeKind{RampStopped}, 1,
			"errors 10% > 5% (150 requests)"},
		{"TTFT over twice the target", 10, 0, 4100 * time.Millisecond, SettleCapacity, false, []NoticeKind{RampStopped}, 1,
			"auto-ramp stopped at 2 users on ep0: TTFT p95 4.10 s > 2 x 2 s (10 steady requests); back to capacity, 1 user"},
		{"TTFT judged from half the rule's requests", 9, 0, 4100 * time.Millisecond, SettleCapacity, false, nil, 2, ""},
		{"TTFT over the target but not twice", 10, 0, 3900 * time.Millisecond, SettleCapacity, false, nil, 2, ""},
		{"settle at a chosen level", 10, 3, 100 * time.Millisecond, 3, false, []NoticeKind{RampStopped}, 3, "back to 3 users"},
		{"settle 0 stops the load", 10, 3, 100 * time.Millisecond, 0, false, []NoticeKind{RampStopped}, 0, "; load stopped"},
		{"full ramp only warns", 10, 3, 100 * time.Millisecond, SettleCapacity, true, []NoticeKind{RampWarned}, 2,
			"ep0: at 2 users errors 30% > 5% (10 requests) (the ramp goes on: full ramp)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{Ramp: Ramp{Levels: []int{1, 2, 4}, Hold: 10 * time.Second}, SLO: slo, Settle: tt.settle, FullRamp: tt.full}, 1)
			r.e.StartRamp([]int{0}, at(0))
			r.steady(0, 1, at(0))
			r.done(0, 1, 110, 0, 100*time.Millisecond, at(5*time.Second))
			r.step(10 * time.Second) // level 1 held: it meets the SLO at 95% (capacity 1, nothing to confirm)
			r.steady(0, 2, at(10*time.Second))
			r.done(0, 2, tt.n, tt.fail, tt.ttft, at(12*time.Second))
			ns := r.step(13 * time.Second)
			if fmt.Sprint(kinds(ns)) != fmt.Sprint(tt.want) || r.ctls[0].conc != tt.users {
				t.Fatalf("notices %v, users %d; want %v and %d users", ns, r.ctls[0].conc, tt.want, tt.users)
			}
			if len(ns) > 0 && !strings.Contains(ns[0].String(), tt.say) {
				t.Errorf("notice %q; want it to say %q", ns[0], tt.say)
			}
			if tt.want != nil && tt.want[0] == RampStopped {
				l := row(r.e.Book(0), 2)
				if end := r.e.End(0); end.Kind != EndStopped || end.Stop.Users != 2 || (tt.fail > 0 && end.Stop.ErrorRate != l.ErrorRate) {
					t.Errorf("end %+v; want stopped at 2 users on the row's own error rate %v", end, l.ErrorRate)
				}
				if r.e.Ramping() {
					t.Error("still ramping")
				}
			}
		})
	}
}

func TestMaxDuration(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{1, 2}, Hold: 2 * time.Minute}, MaxDuration: 5 * time.Minute}, 2)
	r.e.StartRamp([]int{0}, at(0))
	if ns := r.step(5*time.Minute - time.Second); len(ns) != 0 {
		t.Fatalf("before the bound: %v", ns)
	}
	ns := r.step(5 * time.Minute)
	if len(ns) != 1 || ns[0].Kind != MaxDuration || !r.ctls[0].stopped || !r.ctls[1].stopped || r.e.Ramping() {
		t.Fatalf("at the bound: %v, stopped %v %v, ramping %v", ns, r.ctls[0].stopped, r.ctls[1].stopped, r.e.Ramping())
	}
	if ns[0].String() != "the run's maximum duration (5m0s) is over: ramp ended, load stopped" {
		t.Errorf("notice %q", ns[0])
	}
	if !r.e.Report(false).Interrupted || r.e.End(0).Kind != EndDuration {
		t.Errorf("report not marked cut short, or end %+v", r.e.End(0))
	}
	if ns := r.step(6 * time.Minute); len(ns) != 0 {
		t.Errorf("announced twice: %v", ns)
	}
}

// TestControlsStopTheRamp: a manual change or a pause of an endpoint the ramp drives
// ends the ramp (the user took over; no settle), on every endpoint.
func TestControlsStopTheRamp(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{2, 4}, Hold: time.Second}}, 2)
	r.e.StartRamp([]int{0, 1}, at(0))
	if r.e.SetUsers(1, 7) != true || r.e.Ramping() || r.ctls[1].conc != 7 || r.ctls[0].conc != 2 || r.e.End(0).Kind != EndUser {
		t.Fatalf("manual change: ramping %v, users %d %d", r.e.Ramping(), r.ctls[0].conc, r.ctls[1].conc)
	}
	if r.e.SetUsers(0, MaxUsers+5) || r.ctls[0].conc != MaxUsers-7 || r.e.SetUsers(0, -1) || r.ctls[0].conc != 0 {
		t.Errorf("clamping: %d", r.ctls[0].conc)
	}
	r.ctls[0].paused = true
	r.e.StartRamp([]int{0}, at(time.Second))
	if r.ctls[0].paused || r.ctls[0].conc != 2 {
		t.Errorf("StartRamp did not resume at the first level: paused %v users %d", r.ctls[0].paused, r.ctls[0].conc)
	}
	if r.e.Pause(1) || !r.e.Ramping() {
		t.Error("pausing an endpoint the ramp does not drive stopped it")
	}
	if !r.e.Pause(0) || r.e.Ramping() || !r.ctls[0].paused {
		t.Error("pausing the ramp's endpoint did not stop it")
	}
	r.e.Stop()
	if !r.ctls[0].stopped || !r.ctls[1].stopped {
		t.Error("Stop did not stop the pools")
	}
}

// TestResetRebasesTheLevel: after Reset the current level counts its requests from zero.
func TestResetRebasesTheLevel(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{1, 2}, Hold: time.Second}}, 1)
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 1, at(0))
	r.done(0, 1, 10, 0, 100*time.Millisecond, at(500*time.Millisecond))
	r.e.Reset(at(time.Second))
	r.done(0, 1, 3, 0, 100*time.Millisecond, at(2*time.Second))
	r.step(2 * time.Second)
	if p, ok := r.e.Status(0, at(2*time.Second)); !ok || p.Steady != 3 || r.ctls[0].conc != 1 {
		t.Errorf("after Reset: %+v at %d users; want 3/6 at 1 user", p, r.ctls[0].conc)
	}
}

// TestEndpointsWalkOnTheirOwn: with the ramp on two endpoints, the one whose level fails
// a stop rule settles while the other walks on.
func TestEndpointsWalkOnTheirOwn(t *testing.T) {
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{1, 2}, Hold: time.Second}, Settle: SettleCapacity}, 2)
	r.e.StartRamp([]int{0, 1}, at(0))
	r.steady(0, 1, at(0))
	r.done(0, 1, 5, 0, 100*time.Millisecond, at(500*time.Millisecond))
	r.steady(1, 1, at(0))
	r.done(1, 1, 10, 10, 100*time.Millisecond, at(500*time.Millisecond))
	ns := r.step(time.Second)
	if len(ns) != 1 || ns[0].Kind != RampStopped || ns[0].Endpoint != 1 || ns[0].Settled != 0 || !ns[0].Capacity {
		t.Fatalf("notices %v; want endpoint 1 stopped, settled at its capacity (none: 0 users)", ns)
	}
	if !strings.Contains(ns[0].String(), "no level meets the criteria: load stopped") {
		t.Errorf("notice %q", ns[0])
	}
	if !r.e.Ramping() || !r.e.Walking(0) || r.e.Walking(1) || r.ctls[1].conc != 0 || r.ctls[0].conc != 1 {
		t.Errorf("walking %v %v, users %d %d; want endpoint 0 still at 1 user, endpoint 1 at 0",
			r.e.Walking(0), r.e.Walking(1), r.ctls[0].conc, r.ctls[1].conc)
	}
}
