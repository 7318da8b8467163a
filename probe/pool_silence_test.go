package probe

import (
	"context"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// frozenStreamer delivers one token, then nothing until it is canceled: a frozen server.
type frozenStreamer struct{}

func (frozenStreamer) Stream(ctx context.Context, p *Progress) model.Sample {
	now := Mono()
	p.Send.Store(now)
	p.First.Store(now)
	p.Chunks.Add(1)
	<-ctx.Done()
	return model.Sample{Err: model.ErrCanceled, End: time.Now()}
}

// TestPoolTicksCountSilentStreams: streams that receive no token for more than
// model.SilentAfter are counted in the tick, with the longest silence.
func TestPoolTicksCountSilentStreams(t *testing.T) {
	ticks := make(chan time.Time)
	p := NewPool(0, frozenStreamer{}, withTicks(ticks))
	p.SetConcurrency(3)
	ctx, cut := context.WithCancel(context.Background())
	defer cut()
	events := p.Run(ctx)
	got := make(chan *model.Tick, 16)
	go func() {
		for ev := range events {
			if ev.Tick != nil {
				got <- ev.Tick
			}
		}
		close(got)
	}()
	tick := func() *model.Tick {
		ticks <- time.Now()
		return <-got
	}
	for p.Active() < 3 {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	tick()
	if tk := tick(); tk.Silent != 0 { // the streams just spoke
		t.Errorf("%d silent streams, want 0", tk.Silent)
	}
	time.Sleep(model.SilentAfter + 300*time.Millisecond)
	if tk := tick(); tk.Silent != 3 || tk.SilentFor < model.SilentAfter { // no token since
		t.Errorf("%d silent for %v, want 3 silent for more than %v", tk.Silent, tk.SilentFor, model.SilentAfter)
	}
	p.Stop()
	cut()
	for range got {
	}
}
