package ui

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// simPool is a load generator at the edge of the screen's tests: it holds users (closed
// loop) or an arrival rate (open loop) against a server whose answers take ttft then
// dec, on a clock the test moves, and reports what a probe.Pool reports (its segments
// by model.LevelRule, samples, one tick a second). The screen's engine and level books
// are the real ones.
type simPool struct {
	now     time.Time
	target  int
	open    bool // rate mode
	paused  bool
	stopped bool

	ttft, dec time.Duration
	tokRate   float64                        // tokens/s of one stream once its first token came
	fail      func(conc int, open bool) bool // the server answers HTTP 500 at once

	rule      *model.LevelRule
	flights   []*simFlight
	workers   int       // closed-loop workers (each has one request in flight)
	next      time.Time // rate mode: the next arrival
	delivered float64   // chunks delivered by every stream so far
	events    []probe.Event

	tickAt            time.Time // start of the current bucket
	chunks            float64
	started, finished int
	firsts            []time.Duration
}

type simFlight struct {
	send, first, end time.Time
	seg, conc        int
	seq              uint64
	warm, open, fail bool
	chunks           float64
}

func newSimPool(now time.Time) *simPool {
	return &simPool{now: now, tickAt: now, rule: model.NewLevelRule(0), ttft: 100 * time.Millisecond,
		dec: 900 * time.Millisecond, tokRate: 50, fail: func(int, bool) bool { return false }}
}

// newSimRoot builds the screen over a run engine (real level books, observed by obs)
// with one simulated pool, a ramp and a fixed start clock.
func newSimRoot(t testing.TB, ramp engine.Ramp, obs ...engine.Observer) (*root, *simPool) {
	t.Helper()
	p := newSimPool(t0)
	eng, err := engine.New(engine.Config{Ramp: ramp, Settle: engine.SettleCapacity, SLO: model.DefaultSLO,
		Version: "test", Now: func() time.Time { return t0 }, InProcessSim: true, Observers: obs},
		[]engine.Part{{Endpoint: client.Endpoint{Name: "sim", BaseURL: "http://127.0.0.1:8000/v1", Model: "sim-llama-8b", Simulated: true}, Control: p}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := newRoot(context.Background(), nil, eng, config{SnapshotDir: t.TempDir(), Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	return m, p
}

// run moves the clock by d in steps of 100 ms: the pool sends and ends requests, ticks
// every second, and the screen takes its events and its render tick (the engine steps).
func (p *simPool) run(m *root, d time.Duration) {
	const step = 100 * time.Millisecond
	for end := p.now.Add(d); p.now.Before(end); {
		p.advance(p.now.Add(step))
		if p.now.Sub(p.tickAt) >= time.Second {
			p.tick()
		}
		if len(p.events) > 0 {
			evs := p.events
			p.events = nil
			m.Update(eventsMsg{events: evs})
		}
		m.Update(tickMsg(p.now))
	}
}

// advance delivers the chunks of [now, to), ends the requests due and sends the new ones.
func (p *simPool) advance(to time.Time) {
	for {
		var due *simFlight
		for _, f := range p.flights {
			if !f.end.After(to) && (due == nil || f.end.Before(due.end)) {
				due = f
			}
		}
		at := to
		if due != nil {
			at = due.end
		}
		if p.open && !p.paused && !p.stopped && p.target > 0 && p.next.Before(at) {
			p.deliver(p.next)
			p.send()
			p.next = p.next.Add(time.Duration(float64(time.Second) / float64(p.target)))
			continue
		}
		p.deliver(at)
		if due == nil {
			return
		}
		p.end(due)
	}
}

// deliver moves the clock to t, counting the chunks every stream delivered meanwhile.
func (p *simPool) deliver(t time.Time) {
	for _, f := range p.flights {
		from, to := maxTime(p.now, f.first), minTime(t, f.end)
		if f.fail || !to.After(from) {
			continue
		}
		n := to.Sub(from).Seconds() * p.tokRate
		f.chunks += n
		p.delivered += n
		p.chunks += n
	}
	p.now = t
	p.rule.Delivered(int64(p.delivered), t)
}

func (p *simPool) send() {
	seg, conc, warm, seq := p.rule.Send(p.now)
	f := &simFlight{send: p.now, seg: seg, seq: seq, conc: conc, warm: warm, open: p.open, fail: p.fail(conc, p.open)}
	f.first, f.end = p.now.Add(p.ttft), p.now.Add(p.ttft+p.dec)
	if f.fail {
		f.end = p.now.Add(10 * time.Millisecond)
	}
	p.flights = append(p.flights, f)
	p.started++
}

func (p *simPool) end(f *simFlight) {
	for i, g := range p.flights {
		if g == f {
			p.flights = append(p.flights[:i], p.flights[i+1:]...)
			break
		}
	}
	if p.rule.Done(f.seg, f.seq, p.now) {
		p.rule.Delivered(int64(p.delivered), p.now)
	}
	s := &model.Sample{Segment: f.seg, Concurrency: f.conc, Warmup: f.warm, OpenLoop: f.open, Send: f.send, End: f.end}
	if f.fail {
		s.Status, s.Err, s.ErrMsg = 500, model.HTTPError(500), "http_500: simulated"
	} else {
		s.First, s.FirstAnswer, s.Last = f.first, f.first, f.end
		s.Tokens, s.Chunks, s.Usage, s.Status, s.Finish = int(f.chunks)+1, int(f.chunks)+1, true, 200, "stop"
		p.firsts = append(p.firsts, f.first.Sub(f.send))
	}
	p.events = append(p.events, probe.Event{Sample: s})
	p.finished++
	if !f.open {
		if p.open || p.paused || p.stopped || p.workers > p.target {
			p.workers--
		} else {
			p.send()
		}
	}
}

// tick ends the bucket, as the pool's collector does: the open segment's state, then the tick.
func (p *simPool) tick() {
	if seg, ok := p.rule.Current(p.now); ok {
		p.events = append(p.events, probe.Event{Segment: &seg})
	}
	tk := &model.Tick{Start: p.tickAt, End: p.now, Target: p.target, Active: len(p.flights), Paused: p.paused,
		Chunks: int64(math.Round(p.chunks)), FirstTokens: p.firsts, Started: p.started, Finished: p.finished}
	for _, f := range p.flights {
		if !f.fail && !f.first.After(p.tickAt) {
			tk.UserChunks = append(tk.UserChunks, int32(p.tokRate))
		}
	}
	p.events = append(p.events, probe.Event{Tick: tk})
	p.tickAt, p.chunks, p.started, p.finished, p.firsts = p.now, 0, 0, 0, nil
}

// begin closes the open segment and opens one at the target (none when paused or 0),
// then starts what the new load asks for.
func (p *simPool) begin() {
	p.rule.SetOpenLoop(p.open)
	closed, had, opened := p.rule.Begin(p.target, !p.paused && !p.stopped && p.target > 0, int64(p.delivered), p.now)
	if had {
		p.events = append(p.events, probe.Event{Segment: &closed})
	}
	if opened.Open {
		p.events = append(p.events, probe.Event{Segment: &opened})
	}
	if p.paused || p.stopped {
		return
	}
	if p.open {
		p.next = p.now.Add(50 * time.Millisecond) // the first arrival, a little after the change
		return
	}
	for p.workers < p.target {
		p.workers++
		p.send()
	}
}

func (p *simPool) SetConcurrency(n int) {
	if n = max(n, 0); n != p.target {
		p.target = n
		p.begin()
	}
}
func (p *simPool) SetOpenLoop(on bool, n int) { p.open, p.target = on, max(n, 0); p.begin() }
func (p *simPool) Concurrency() int           { return p.target }
func (p *simPool) Active() int                { return len(p.flights) }
func (p *simPool) Paused() bool               { return p.paused }
func (p *simPool) Pause() {
	if !p.paused {
		p.paused = true
		p.begin()
	}
}
func (p *simPool) Resume() {
	if p.paused {
		p.paused = false
		p.begin()
	}
}
func (p *simPool) Stop() {
	if !p.stopped {
		p.stopped = true
		p.begin()
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
