package engine

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/output/report"
)

// input is one thing the engine was given: a pool event, a Step, or the ramp's start.
type input struct {
	what string
	ev   probe.Event
	now  time.Time
}

// TestScreenAndBenchAgree drives the engine with a fake streamer through bench's path
// (Start + Run: real pools, its own loop) while recording every input, then feeds the
// same inputs through the screen's path (StartRamp, then Handle for each event batch and
// Step on each tick, as the screen's Update does) over fake pools. Both must measure the
// same levels, errors and capacity, and end each endpoint's ramp the same way.
func TestScreenAndBenchAgree(t *testing.T) {
	var inputs []input
	cfg := Config{
		Endpoints: []client.Endpoint{{Name: "steady", MaxTokens: 5}, {Name: "breaks"}},
		Ramp:      Ramp{Levels: []int{1, 2, 4, 8}, Hold: 100 * time.Millisecond},
		NewStreamer: fakes(map[string]*fakeStreamer{
			"steady": {tokens: 5, gap: 2 * time.Millisecond},
			// fails every request sent while 3 or more are in flight: the ramp stops at 4
			"breaks": {tokens: 5, gap: 2 * time.Millisecond, failFrom: 3},
		}),
		PoolOptions: fastTicks,
	}
	e, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.trace = func(what string, ev *probe.Event, now time.Time) {
		in := input{what: what, now: now}
		if ev != nil {
			in.ev = *ev
		}
		inputs = append(inputs, in)
	}
	res, err := e.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}

	// The screen's path over the same inputs, with fake pools and the screen's settle.
	var parts []Part
	for _, ep := range cfg.Endpoints {
		parts = append(parts, Part{Endpoint: ep, Control: &fakeCtl{}})
	}
	screen, err := New(Config{Ramp: cfg.Ramp, Settle: SettleCapacity}, parts)
	if err != nil {
		t.Fatal(err)
	}
	var notices []Notice
	for _, in := range inputs {
		switch in.what {
		case "start":
			screen.StartRamp([]int{0, 1}, in.now) // `a` then `r`
		case "event":
			screen.Handle(in.ev)
		case "step":
			notices = append(notices, screen.Step(in.now)...)
		}
	}

	for i := range cfg.Endpoints {
		bl, sl := e.Book(i).Levels(), screen.Book(i).Levels()
		if len(bl) == 0 || !reflect.DeepEqual(bl, sl) {
			t.Errorf("endpoint %d: levels differ\nbench  %+v\nscreen %+v", i, bl, sl)
		}
		if b, s := e.Book(i).Capacity(), screen.Book(i).Capacity(); b != s {
			t.Errorf("endpoint %d: capacity bench %d, screen %d", i, b, s)
		}
		if b, s := e.Outcome(i), screen.Outcome(i); !reflect.DeepEqual(b, s) {
			t.Errorf("endpoint %d: totals bench %+v, screen %+v", i, b, s)
		}
		if b, s := res.Ramps[i], screen.End(i); b != s {
			t.Errorf("endpoint %d: ramp ended bench %+v, screen %+v", i, b, s)
		}
	}
	if got := res.Ramps[0]; got.Kind != EndFinished {
		t.Errorf("steady endpoint: ramp %+v, want finished", got)
	}
	if got := res.Ramps[1]; got.Kind != EndStopped || got.Users > 4 || got.Stop.ErrorRate <= StopErrorRate {
		t.Errorf("breaking endpoint: ramp %+v, want stopped on its errors by 4 users", got)
	}
	if b, s := noticeKinds(res.Notices), noticeKinds(notices); b != s {
		t.Errorf("notices differ\nbench  %s\nscreen %s", b, s)
	}
	// Every request the breaking endpoint ended, and every error, is in one of its levels.
	o := e.Outcome(1)
	requests, failed := 0, 0
	for _, l := range e.Book(1).Levels() {
		requests += l.Requests
		failed += l.Requests - l.Succeeded
	}
	if requests != o.Requests || failed != o.Requests-o.Succeeded || failed == 0 {
		t.Errorf("levels hold %d requests, %d failed; the run ended %d, %d failed", requests, failed, o.Requests, o.Requests-o.Succeeded)
	}
	t.Logf("%s", report.Summary(res.Report))
}

// noticeKinds is what each notice said, without how the endpoint settled (bench drains
// at 0 users, the screen settles at the capacity), and without the diagnosis's notices:
// bench says those as progress notes, not among its Result's notices, and a run that
// lasts past a second (a level held until decided) has them on the screen's path.
func noticeKinds(ns []Notice) string {
	s := ""
	for _, n := range ns {
		if n.Kind != LevelStarted && n.Kind != Diagnosed {
			s += fmt.Sprintf("[%d %s %d %v] ", n.Kind, n.Name, n.Users, n.Stop)
		}
	}
	return s
}
