package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
)

// levelCtl is a pool at the edge that records the levels it was given.
type levelCtl struct {
	fakeCtl
	levels [][2]int // (share, label) by SetLevel, (n, n) by SetConcurrency
}

func (l *levelCtl) SetConcurrency(n int) { l.SetLevel(n, n) }
func (l *levelCtl) SetLevel(n, label int) {
	l.conc = n
	l.levels = append(l.levels, [2]int{n, label})
}

// TestFixedScheduleShard: a shard holds its share of each level under the whole level's
// users; levels change on the schedule, whatever their requests (a level that lacks
// its share of the rule's minimum is short); a stop rule only warns.
func TestFixedScheduleShard(t *testing.T) {
	ctl := &levelCtl{}
	cfg := Config{Ramp: Ramp{Levels: []int{4, 9, 2}, Hold: 10 * time.Second}, StartAt: t0,
		Shard: &model.ReportShard{Index: 1, Count: 4}, Now: func() time.Time { return t0 }}
	e, err := New(cfg, []Part{{Endpoint: client.Endpoint{Name: "ep0"}, Control: ctl}})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, e: e, segs: map[int]*model.Segment{}, chunks: map[int]int64{}}
	e.StartRamp([]int{0}, at(0))
	r.steady(0, 4, at(0))
	r.done(0, 4, 40, 0, 100*time.Millisecond, at(2*time.Second)) // more than the rule asks
	if ns := r.step(9999 * time.Millisecond); len(ns) != 0 {
		t.Fatalf("before the level's end: %v", ns)
	}
	p, _ := e.Status(0, at(4*time.Second))
	if !p.Fixed || p.Left != 6*time.Second || p.Need != 5 {
		t.Errorf("progress %+v; want fixed, 6s left, need 5 (a quarter of 20)", p)
	}
	// The step comes late: the next level still began at 10 s.
	ns := r.step(10500 * time.Millisecond)
	if fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{LevelStarted}) || e.Short(0, 4) {
		t.Fatalf("10.5 s: %v, short %v; want the next level, 4 not short", ns, e.Short(0, 4))
	}
	if p, _ := e.Status(0, at(10500*time.Millisecond)); p.Left != 9500*time.Millisecond {
		t.Errorf("level 2 left %v at 10.5 s, want 9.5 s (it ends at 20 s)", p.Left)
	}
	// 9 users: shard 1/4 holds 2; half of its requests fail: only a warning.
	r.steady(0, 9, at(11*time.Second))
	r.done(0, 9, 3, 0, 100*time.Millisecond, at(12*time.Second))
	r.done(0, 9, 10, 10, 100*time.Millisecond, at(13*time.Second))
	ns = r.step(14 * time.Second)
	if fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{RampWarned}) || !e.Ramping() {
		t.Fatalf("errors on a fixed schedule: %v, ramping %v; want a warning and the ramp going on", ns, e.Ramping())
	}
	if ns = r.step(20 * time.Second); fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{LevelStarted}) || e.Short(0, 9) {
		t.Fatalf("20 s: %v; want the next level, 9 users not short (13 steady requests, 5 needed)", ns)
	}
	// 2 users: shard 1/4 holds 1 and needs 10 steady requests; 2 ended by the end.
	r.steady(0, 2, at(20*time.Second))
	r.done(0, 2, 2, 0, 100*time.Millisecond, at(25*time.Second))
	ns = r.step(30 * time.Second)
	if fmt.Sprint(kinds(ns)) != fmt.Sprint([]NoticeKind{LevelShort, RampFinished}) || !e.Short(0, 2) {
		t.Fatalf("30 s: %v; want 2 users short, then the ramp finished", ns)
	}
	if want := "ep0: 2 users ended on the fixed schedule with 2/10 steady requests: marked short"; !strings.Contains(ns[0].String(), want) {
		t.Errorf("short notice %q, want %q", ns[0], want)
	}
	want := [][2]int{{1, 4}, {2, 9}, {1, 2}, {0, 0}}
	if fmt.Sprint(ctl.levels) != fmt.Sprint(want) {
		t.Errorf("levels (share, label) %v, want %v", ctl.levels, want)
	}
}

func TestShardValidate(t *testing.T) {
	ep := []client.Endpoint{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}}
	ramp := Ramp{Levels: []int{1}, Hold: time.Second}
	for _, tt := range []struct {
		name  string
		shard model.ReportShard
		start time.Time
		want  string
	}{
		{"index past the count", model.ReportShard{Index: 3, Count: 2}, t0, "INDEX from 0 to COUNT-1"},
		{"no shards", model.ReportShard{Index: 0, Count: 0}, t0, "COUNT at least 1"},
		{"negative index", model.ReportShard{Index: -1, Count: 2}, t0, "INDEX from 0"},
		{"no start time", model.ReportShard{Index: 0, Count: 2}, time.Time{}, "a shard needs a start time"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sh := tt.shard
			_, err := Start(context.Background(), Config{Endpoints: ep, Ramp: ramp, Shard: &sh, StartAt: tt.start})
			var fe *client.FieldError
			if !errors.As(err, &fe) || fe.Field != FieldShard || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v; want a FieldError on %s saying %q", err, FieldShard, tt.want)
			}
		})
	}
}

// TestShardSettings: the report says which shard and start time, and that each level
// lasted exactly the hold.
func TestShardSettings(t *testing.T) {
	start := time.Date(2026, 11, 23, 16, 0, 0, 0, time.FixedZone("CET", 3600))
	r := newRig(t, Config{Ramp: Ramp{Levels: []int{4}, Hold: 10 * time.Second}, StartAt: start,
		Shard: &model.ReportShard{Index: 2, Count: 3}}, 1)
	s := r.e.Settings()
	if s.Shard == nil || *s.Shard != (model.ReportShard{Index: 2, Count: 3}) || s.StartAt != "2026-11-23T15:00:00.000Z" || s.MaxHoldS != 10 {
		t.Errorf("settings %+v; want shard 2/3, start_at in UTC, max hold = hold", s)
	}
	if s := newRig(t, Config{Ramp: Ramp{Levels: []int{4}, Hold: 10 * time.Second}}, 1).e.Settings(); s.Shard != nil || s.StartAt != "" || s.MaxHoldS != 120 {
		t.Errorf("a whole run's settings %+v", s)
	}
}

// TestRunStartsAtStartTime: Run waits for the start time, stamps the windows from it,
// and a run that starts late says how late; more than a hold late is refused.
func TestRunStartsAtStartTime(t *testing.T) {
	f := &fakeStreamer{tokens: 3, gap: 5 * time.Millisecond}
	cfg := func(start time.Time) Config {
		return Config{Endpoints: []client.Endpoint{{Name: "f", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}},
			Ramp: Ramp{Levels: []int{2}, Hold: 400 * time.Millisecond}, StartAt: start, Drain: time.Second,
			Shard: &model.ReportShard{Index: 0, Count: 2}, NewStreamer: fakes(map[string]*fakeStreamer{"f": f}), PoolOptions: fastTicks}
	}
	start := time.Now().Add(300 * time.Millisecond)
	res, err := runBench(context.Background(), cfg(start), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Late != 0 || len(res.Report.Endpoints[0].Levels) != 1 {
		t.Fatalf("late %v, levels %+v", res.Late, res.Report.Endpoints[0].Levels)
	}
	l := res.Report.Endpoints[0].Levels[0]
	w0, err := time.Parse(time.RFC3339Nano, l.Windows[0].Start)
	if err != nil {
		t.Fatal(err)
	}
	// The windows are written to the millisecond (truncated), so a window that starts
	// within the start time's millisecond may read up to 1 ms before it.
	if d := w0.Sub(start); l.Concurrency != 2 || d <= -time.Millisecond || d > 50*time.Millisecond {
		t.Errorf("level %d users, window from %s: %v after the start time; want the whole level's 2 users from the start", l.Concurrency, l.Windows[0].Start, d)
	}

	var log progressLog
	res, err = runBench(context.Background(), cfg(time.Now().Add(-150*time.Millisecond)), log.add)
	if err != nil {
		t.Fatal(err)
	}
	if res.Late < 150*time.Millisecond || res.Late > 400*time.Millisecond {
		t.Errorf("late %v, want about 150ms", res.Late)
	}
	if s := log.calls[0].String(); !strings.Contains(s, "(this shard: 1), held exactly 400 ms (fixed schedule)") || !strings.Contains(s, "after the start time: this level is that much shorter") {
		t.Errorf("first progress line %q", s)
	}

	_, err = runBench(context.Background(), cfg(time.Now().Add(-time.Second)), nil)
	var fe *client.FieldError
	if !errors.As(err, &fe) || fe.Field != FieldStartAt || !strings.Contains(err.Error(), "more than one hold (400ms): the first level is over") {
		t.Errorf("a second late: %v", err)
	}
}

// TestRunStartedAtIsTheStart: a run that waits for its start time reports as started_at
// the start of the load, not the moment the engine was built. The start time is on a
// whole second, as started_at is written to the second (truncated).
func TestRunStartedAtIsTheStart(t *testing.T) {
	f := &fakeStreamer{tokens: 3, gap: 5 * time.Millisecond}
	start := time.Now().Add(300 * time.Millisecond).Truncate(time.Second).Add(time.Second)
	res, err := runBench(context.Background(), Config{Endpoints: []client.Endpoint{{Name: "f", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}},
		Ramp: Ramp{Levels: []int{1}, Hold: 200 * time.Millisecond}, StartAt: start, Drain: time.Second,
		NewStreamer: fakes(map[string]*fakeStreamer{"f": f}), PoolOptions: fastTicks}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := time.Parse(time.RFC3339, res.Report.StartedAt)
	if err != nil {
		t.Fatal(err)
	}
	if got.Before(start) {
		t.Errorf("started_at %s is before the start time %s: stamped before the wait", res.Report.StartedAt, start.UTC().Format(time.RFC3339Nano))
	}
}

// TestRunInterruptedWhileWaiting: Ctrl-C before the start time ends the run at once with
// an interrupted report that measured nothing.
func TestRunInterruptedWhileWaiting(t *testing.T) {
	f := &fakeStreamer{tokens: 3, gap: 5 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	began := time.Now()
	res, err := runBench(ctx, Config{Endpoints: []client.Endpoint{{Name: "f", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}},
		Ramp: Ramp{Levels: []int{2}, Hold: time.Second}, StartAt: time.Now().Add(time.Minute),
		NewStreamer: fakes(map[string]*fakeStreamer{"f": f}), PoolOptions: fastTicks}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(began) > 10*time.Second || !res.Report.Interrupted || len(res.Report.Endpoints[0].Levels) != 0 ||
		res.Ramps[0].Kind != EndInterrupt || f.inflight.Load() != 0 {
		t.Errorf("after %v: interrupted %v, levels %v, ramp %+v", time.Since(began), res.Report.Interrupted, res.Report.Endpoints[0].Levels, res.Ramps[0])
	}
}

// TestShardFindings: on a shard, the other shards' load is no "other traffic".
func TestShardFindings(t *testing.T) {
	fs := func() []model.Finding {
		return []model.Finding{{Rule: model.DiagOtherTraffic, Text: "other"}, {Rule: "queue", Text: "queue"}}
	}
	shard := newRig(t, Config{Ramp: Ramp{Levels: []int{4}, Hold: time.Second}, StartAt: t0, Shard: &model.ReportShard{Index: 1, Count: 2}}, 1).e
	if got := shard.shardFindings(fs()); len(got) != 1 || got[0].Rule != "queue" {
		t.Errorf("shard: %+v", got)
	}
	whole := newRig(t, Config{Ramp: Ramp{Levels: []int{4}, Hold: time.Second}}, 1).e
	if got := whole.shardFindings(fs()); len(got) != 2 {
		t.Errorf("whole run: %+v", got)
	}
}
