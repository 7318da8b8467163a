package probe

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestGroupRunAll(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	gates := []*gateStreamer{newGateStreamer(), newGateStreamer()}
	own := make(chan Event, 1)
	pools := []*Pool{
		NewPool(0, gates[0]),
		NewPool(1, gates[1], WithOutput(own)), // RunAll's shared channel wins
	}
	pools[0].SetConcurrency(1)
	pools[1].SetConcurrency(2)
	log := logEvents(RunAll(context.Background(), pools))
	calls := []*gateCall{gates[0].next(t), gates[1].next(t), gates[1].next(t)}
	StopAll(pools)
	StopAll(pools)
	calls[0].emit(t, 2)
	calls[0].finish(t)
	select {
	case <-pools[0].Done():
	case <-time.After(poolWaitLimit):
		t.Fatal("first pool not done")
	}
	select {
	case <-log.closed:
		t.Fatal("shared channel closed while the second pool still runs")
	default:
	}
	calls[1].finish(t)
	calls[2].finish(t)
	evs := log.wait(t)
	if len(own) != 0 {
		t.Error("an event went to the pool's own WithOutput channel")
	}
	perEndpoint := map[int]int{}
	finalTicks := map[int]int{}
	for _, e := range evs {
		if s := e.Sample; s != nil {
			perEndpoint[e.Endpoint]++
			if s.Endpoint != e.Endpoint || !s.OK() {
				t.Errorf("sample %+v in event of endpoint %d", s, e.Endpoint)
			}
		}
		if e.Tick != nil {
			finalTicks[e.Tick.Endpoint]++
		}
	}
	if perEndpoint[0] != 1 || perEndpoint[1] != 2 {
		t.Errorf("samples per endpoint %v, want 0:1 1:2", perEndpoint)
	}
	if finalTicks[0] < 1 || finalTicks[1] < 1 {
		t.Errorf("ticks per endpoint %v, want a final tick from each", finalTicks)
	}
}

func TestGroupRunAllEmpty(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	if evs := logEvents(RunAll(context.Background(), nil)).wait(t); len(evs) != 0 {
		t.Fatalf("events %v from no pools", evs)
	}
}

func TestGroupCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := newGateStreamer()
	ctx, cancel := context.WithCancel(context.Background())
	pools := []*Pool{NewPool(0, g), NewPool(1, g)}
	for _, p := range pools {
		p.SetConcurrency(1)
	}
	log := logEvents(RunAll(ctx, pools))
	g.next(t)
	g.next(t)
	cancel()
	if n := len(sampleEvents(log.wait(t))); n != 2 {
		t.Fatalf("%d samples after cancel, want 2 (canceled ones are still sent)", n)
	}
}
