package probe

import (
	"context"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// TestFlightTTFTIsSampleTTFT: the live path's TTFT of a request (flight.ttft, what the
// ticks report) is the Sample's: t_first - t_send, and not measured when t_send is
// unknown (no fallback to when the pool registered the request, no clamp).
func TestFlightTTFTIsSampleTTFT(t *testing.T) {
	base := Mono() + int64(time.Second)
	for _, tt := range []struct {
		name        string
		send, first int64
	}{
		{"measured", base, base + int64(150*time.Millisecond)},
		{"no t_send", 0, base},
		{"no first token", base, 0},
		{"same instant", base, base},
	} {
		var f flight
		f.prog.Send.Store(tt.send)
		got, ok := f.ttft(tt.first)
		s := model.Sample{Send: sampleTime(tt.send), First: sampleTime(tt.first)}
		want, wantOK := s.TTFT()
		if got != want || ok != wantOK {
			t.Errorf("%s: flight.ttft = %v, %v; Sample.TTFT = %v, %v", tt.name, got, ok, want, wantOK)
		}
	}
}

// sampleTime is a Mono reading as probe/client stamps it in a Sample: 0 is "never"
// (the zero time.Time).
func sampleTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return MonoTime(ns)
}

// noSendStreamer delivers one token without ever stamping t_send.
type noSendStreamer struct{}

func (noSendStreamer) Stream(ctx context.Context, p *Progress) model.Sample {
	now := Mono()
	p.First.Store(now)
	p.Chunks.Add(1)
	time.Sleep(time.Millisecond)
	return model.Sample{First: MonoTime(now), Last: MonoTime(now), End: time.Now(), Chunks: 1, Tokens: 1, Finish: "stop"}
}

// TestPoolTicksHoldNoUnmeasuredTTFT: requests whose t_send is unknown put no TTFT into
// the live ticks, as their Samples have none.
func TestPoolTicksHoldNoUnmeasuredTTFT(t *testing.T) {
	ticks := make(chan time.Time)
	p := NewPool(0, noSendStreamer{}, withTicks(ticks))
	p.SetConcurrency(2)
	events := p.Run(context.Background())
	samples := 0
	for ev := range events {
		switch {
		case ev.Sample != nil:
			if samples++; samples == 5 {
				ticks <- time.Now()
				p.Stop()
			}
		case ev.Tick != nil:
			if len(ev.Tick.FirstTokens) != 0 {
				t.Fatalf("a tick holds TTFTs %v of requests without t_send", ev.Tick.FirstTokens)
			}
		}
	}
	if samples < 5 {
		t.Fatalf("%d samples", samples)
	}
}
