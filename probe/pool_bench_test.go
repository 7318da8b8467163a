package probe

import (
	"context"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// benchPool returns a running-state pool (no goroutines) at concurrency n with n
// requests registered, each mid-stream, as the collector sees them at 1,000 streams.
func benchPool(n int) *Pool {
	p := NewPool(0, nil, WithOutput(make(chan Event, 1)))
	p.target = n
	p.running = true
	p.lastTick = Mono()
	p.beginLocked(true, Mono())
	for i := range n {
		f := p.sendLocked()
		f.prog.Send.Store(Mono())
		f.prog.Chunks.Store(int64(10 + i%7))
		if i%10 != 0 {
			f.prog.First.Store(1) // decoding since long before the bucket
		}
	}
	<-p.wake
	p.segs = nil
	return p
}

// BenchmarkPoolRequestBookkeeping is what the pool adds per request besides the stream
// itself: register (active set, level rule) and end (final chunks, TTFT, level rule),
// with 1,000 other streams in flight.
func BenchmarkPoolRequestBookkeeping(b *testing.B) {
	p := benchPool(1000)
	b.ReportAllocs()
	for b.Loop() {
		p.mu.Lock()
		f := p.sendLocked()
		p.mu.Unlock()
		f.prog.Chunks.Add(1)
		p.mu.Lock()
		p.endLocked(f)
		p.mu.Unlock()
	}
}

// BenchmarkPoolTick1000 is one collector tick over 1,000 active streams.
func BenchmarkPoolTick1000(b *testing.B) {
	p := benchPool(1000)
	b.ReportAllocs()
	for b.Loop() {
		p.mu.Lock()
		tk := p.tickLocked(Mono())
		p.mu.Unlock()
		if tk.Active != 1000 {
			b.Fatal(tk.Active)
		}
	}
}

// instant streams one chunk and returns at once: the pool's whole per-request cost.
type instant struct{}

func (instant) Stream(_ context.Context, p *Progress) model.Sample {
	t := Mono()
	p.Send.Store(t)
	p.First.Store(t)
	p.Chunks.Add(1)
	return model.Sample{Chunks: 1, Tokens: 1}
}

// BenchmarkPoolClosedLoop runs the real workers and collector on an instant streamer at
// concurrency 8; one op is one request end to end (worker loop, bookkeeping, Sample sent
// and received).
func BenchmarkPoolClosedLoop(b *testing.B) {
	p := NewPool(0, instant{}, WithTickEvery(10*time.Millisecond))
	ch := p.Run(context.Background())
	p.SetConcurrency(8)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; {
		if ev := <-ch; ev.Sample != nil {
			n++
		}
	}
	b.StopTimer()
	p.Stop()
	for range ch {
	}
}

// BenchmarkProgressAdd is the per-token path: one atomic add on the stream's own counter.
func BenchmarkProgressAdd(b *testing.B) {
	var p Progress
	b.ReportAllocs()
	for b.Loop() {
		p.Chunks.Add(1)
	}
}
