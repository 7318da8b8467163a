package probe

import (
	"context"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// worker sends requests one after another until the pool stops, is paused, shrinks below
// it, or ctx ends; after a failure that delivered no token it backs off first.
func (p *Pool) worker(ctx context.Context) {
	defer p.wg.Done()
	var backoff time.Duration
	var talk *workload.Talk // the user's conversation (WithConversations)
	for {
		if backoff > 0 && !p.sleep(ctx, backoff) {
			backoff = 0 // woken by Stop or ctx: the check below ends the worker
		}
		var call *Call
		if p.talk != nil {
			var think time.Duration
			call, talk, think = p.talk.nextTurn(talk)
			if think > 0 {
				p.sleep(ctx, think) // woken early by Stop or ctx: the check below ends the worker
			}
		}
		p.mu.Lock()
		if p.stopped || p.paused || p.workers > p.target || p.open != nil || ctx.Err() != nil {
			p.workers--
			p.checkDoneLocked()
			p.mu.Unlock()
			return
		}
		f := p.sendLocked()
		p.mu.Unlock()

		f.sample = p.streamOne(ctx, &f.prog, call)

		p.mu.Lock()
		p.endLocked(f)
		p.mu.Unlock()

		s := &f.sample
		s.Endpoint, s.Segment, s.Concurrency, s.Warmup = p.endpoint, f.segment, f.concurrency, f.warmup
		if call != nil {
			talk = p.talk.answered(talk, call, s)
		}
		p.emitMu.Lock()
		p.emitSegments()
		p.out <- Event{Endpoint: p.endpoint, Sample: s}
		p.emitMu.Unlock()
		backoff = nextBackoff(backoff, s)
	}
}

// Backoff after failures that delivered no token: a worker whose request failed fast
// (connection refused, HTTP 4xx/5xx before any token) waits before its next send instead
// of hammering a down endpoint thousands of times a second. The wait is taken before
// t_send, so it never enters TTFT; it doubles from minBackoff to maxBackoff and ends at
// the first request that succeeds or delivers a token.
const (
	minBackoff = 50 * time.Millisecond
	maxBackoff = time.Second
)

// nextBackoff is the wait before the next send after sample s, given the current wait.
func nextBackoff(cur time.Duration, s *model.Sample) time.Duration {
	if s.OK() || s.Err == model.ErrCanceled || s.Chunks > 0 {
		return 0
	}
	if cur < minBackoff {
		return minBackoff
	}
	return min(2*cur, maxBackoff)
}

// sleep waits d; it returns false when Stop or ctx ended the wait early.
func (p *Pool) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-p.stopCh:
		return false
	}
}

// sendLocked registers a new request in the active set and with the level rule.
func (p *Pool) sendLocked() *flight {
	now := Mono()
	f := &flight{idx: len(p.active), heard: now}
	f.segment, f.concurrency, f.warmup, f.seq = p.rule.Send(MonoTime(now))
	p.active = append(p.active, f)
	p.started++
	return f
}

// endLocked removes an ended request from the active set, keeps its final chunk count
// and its TTFT if no tick reported it yet, and tells the level rule.
func (p *Pool) endLocked(f *flight) {
	now := Mono()
	p.delivered += f.prog.Chunks.Load()
	if !f.firstSeen {
		if ttft, ok := f.ttft(f.prog.First.Load()); ok {
			p.ttfts = append(p.ttfts, ttft)
			p.firstSends = append(p.firstSends, MonoTime(f.prog.Send.Load()))
			f.firstSeen = true
		}
	}
	p.ended++
	last := len(p.active) - 1
	moved := p.active[last]
	p.active[f.idx] = moved
	moved.idx = f.idx
	p.active[last] = nil
	p.active = p.active[:last]

	t := MonoTime(now)
	if p.rule.Done(f.segment, f.seq, t) {
		// The steady moment: snapshot the delivered total now (O(active), once per segment).
		p.rule.Delivered(p.deliveredLocked(), t)
		if seg, ok := p.rule.Current(t); ok {
			p.segs = append(p.segs, seg)
		}
		p.wakeCollector()
	}
}

// ttft is the request's TTFT as model.Sample.TTFT defines it: t_first - t_send, not
// measured (false) while either is unknown. The live TTFT window and the level's
// distribution hold the same number for the same request.
func (f *flight) ttft(first int64) (time.Duration, bool) {
	send := f.prog.Send.Load()
	if send == 0 || first == 0 {
		return 0, false
	}
	return time.Duration(first - send), true
}
