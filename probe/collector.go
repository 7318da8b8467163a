package probe

import (
	"context"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// The collector is the pool's only timed goroutine (one ticker for every stream, never
// one per worker) and, with the workers, the only sender on the event channel. Senders
// take emitMu before mu, so events leave in the order their states were taken.

// emitSegments sends the queued segment states. The caller holds emitMu.
func (p *Pool) emitSegments() {
	p.mu.Lock()
	segs := p.segs
	p.segs = nil
	p.mu.Unlock()
	p.sendSegments(segs)
}

func (p *Pool) sendSegments(segs []model.Segment) {
	for i := range segs {
		p.out <- Event{Endpoint: p.endpoint, Segment: &segs[i]}
	}
}

// collect is the pool's only timed goroutine: one ticker for all streams.
func (p *Pool) collect(ctx context.Context) {
	ticks := p.ticks
	if ticks == nil {
		t := time.NewTicker(p.tickEvery)
		defer t.Stop()
		ticks = t.C
	}
	ctxDone := ctx.Done()
	for {
		select {
		case <-ticks:
			p.emitTick()
		case <-p.wake:
			p.emitMu.Lock()
			p.emitSegments()
			p.emitMu.Unlock()
		case <-ctxDone:
			ctxDone = nil
			p.Stop()
		case <-p.allDone:
			p.wg.Wait()
			p.emitTick()
			p.cancel()
			if p.ownOut {
				close(p.out)
			}
			close(p.done)
			return
		}
	}
}

// emitTick builds the tick of the bucket since the previous one and sends it after the
// queued segment states and the open segment's running state.
func (p *Pool) emitTick() {
	p.emitMu.Lock()
	defer p.emitMu.Unlock()
	p.mu.Lock()
	tk := p.tickLocked(Mono())
	segs := p.segs
	p.segs = nil
	if seg, ok := p.rule.Current(tk.End); ok {
		segs = append(segs, seg)
	}
	p.mu.Unlock()
	p.sendSegments(segs)
	p.out <- Event{Endpoint: p.endpoint, Tick: tk}
}

// tickLocked builds the Tick for [lastTick, now) and starts the next bucket. O(active).
func (p *Pool) tickLocked(now int64) *model.Tick {
	start := p.lastTick
	tk := &model.Tick{
		Endpoint: p.endpoint,
		Start:    MonoTime(start),
		End:      MonoTime(now),
		Target:   p.target,
		Active:   len(p.active),
		Paused:   p.paused,
		Started:  p.started,
		Finished: p.ended,
	}
	fts, sends := p.ttfts, p.firstSends
	p.ttfts, p.firstSends = nil, nil
	var users []int32
	total := p.delivered
	for _, f := range p.active {
		c := f.prog.Chunks.Load()
		total += c
		if first := f.prog.First.Load(); first != 0 {
			if first < start {
				if users == nil {
					users = make([]int32, 0, len(p.active))
				}
				users = append(users, int32(c-f.last))
			}
			if ttft, ok := f.ttft(first); ok && !f.firstSeen && first < now {
				fts = append(fts, ttft)
				sends = append(sends, MonoTime(f.prog.Send.Load()))
				f.firstSeen = true
			}
		}
		if c != f.last {
			f.heard = now
		}
		if quiet := time.Duration(now - f.heard); quiet > model.SilentAfter {
			tk.Silent++
			tk.SilentFor = max(tk.SilentFor, quiet)
		}
		f.last = c
	}
	tk.Chunks = total - p.lastDelivered
	tk.UserChunks = users
	tk.FirstTokens, tk.FirstSends = fts, sends
	p.rule.Delivered(total, tk.End)
	p.lastDelivered = total
	p.lastTick = now
	p.started, p.ended = 0, 0
	return tk
}
