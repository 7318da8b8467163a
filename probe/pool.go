package probe

import (
	"context"
	"sync"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// Event is what a pool reports: exactly one of Sample, Tick or Segment is set.
//
// Order: every Segment state of a segment is sent before the Samples of the requests
// sent in it, and the states of one segment arrive in the order they happened (open,
// running updates, steady, closed). A Tick may count a request that ended in its bucket
// before that request's Sample arrives.
type Event struct {
	Endpoint int
	Sample   *model.Sample
	Tick     *model.Tick
	Segment  *model.Segment
}

// DefaultBuffer is the capacity of the event channel a pool makes for itself.
const DefaultBuffer = 4096

// Option configures a Pool.
type Option func(*Pool)

// WithTickEvery sets the live bucket width (default 1 s). Non-positive values are ignored.
func WithTickEvery(d time.Duration) Option {
	return func(p *Pool) {
		if d > 0 {
			p.tickEvery = d
		}
	}
}

// WithOutput makes the pool send its events on ch (shared by several pools) instead of
// a channel of its own; the pool never closes a channel it did not make. Use Done to
// learn when such a pool has finished. A nil ch is ignored.
func WithOutput(ch chan Event) Option {
	return func(p *Pool) {
		if ch != nil {
			p.out, p.ownOut = ch, false
		}
	}
}

// withTicks replaces the collector's ticker by c (tests drive ticks by hand).
func withTicks(c <-chan time.Time) Option { return func(p *Pool) { p.ticks = c } }

// flight is one request in flight: its live Progress, the pool's bookkeeping, and
// finally its Sample (one allocation per request for all of it).
type flight struct {
	prog   Progress
	sample model.Sample

	idx       int   // position in Pool.active
	last      int64 // Chunks at the previous tick
	firstSeen bool  // its TTFT already went into a Tick

	segment, concurrency int
	warmup               bool
}

// Pool is a closed-loop worker pool for one endpoint: each worker sends a request, reads
// the whole stream, and sends the next. A collector goroutine turns the streams in
// flight into one model.Tick per bucket (WithTickEvery) and reports the segments
// (levels) that model.LevelRule keeps.
//
// Events leave on one channel (Run). The consumer must read it until it is closed: a
// Sample is never dropped, so when the consumer falls behind and the buffer is full,
// workers block on sending their Sample (and send no new request meanwhile) and ticks
// are delayed. Errors are Samples with an error kind; nothing a request does stops
// the pool.
//
// Ticks come every bucket, also while paused or at concurrency 0; the final Tick covers
// the time since the previous one and is usually shorter. A Segment state is sent when a
// segment opens, when it becomes steady, at every tick while it is open (with its
// running SteadyChunks) and when it closes (a concurrency change, Pause, Stop or ctx).
//
// The per-token path is the Streamer's own Progress.Chunks.Add(1); the pool does its
// bookkeeping once per request (under one mutex) and once per tick (O(active)).
//
// All methods are safe for concurrent use and none of them blocks on the consumer.
type Pool struct {
	endpoint  int
	stream    Streamer
	tickEvery time.Duration
	ticks     <-chan time.Time // test hook; nil means a ticker of tickEvery
	out       chan Event
	ownOut    bool

	wake    chan struct{} // a segment state is waiting to be sent (cap 1)
	stopCh  chan struct{} // closed by Stop: wakes workers backing off
	allDone chan struct{} // closed once stopped and every worker has returned
	done    chan struct{} // closed after the last event was sent
	wg      sync.WaitGroup

	// emitMu orders the sends on out: it is taken before mu by whoever sends.
	emitMu sync.Mutex

	mu       sync.Mutex
	ctx      context.Context // the workers' context (derived from Run's)
	cancel   context.CancelFunc
	rule     *model.LevelRule
	target   int
	label    int // the users the open segment is recorded under (SetLevel); the target unless set
	workers  int
	running  bool
	paused   bool
	stopped  bool
	finished bool // allDone closed
	active   []*flight
	segs     []model.Segment // segment states not sent yet, oldest first

	delivered      int64 // chunks of every ended request
	lastTick       int64 // Mono() at the previous tick
	lastDelivered  int64 // delivered total at the previous tick
	started, ended int   // requests sent and ended since the previous tick
	ttfts          []time.Duration
}

// NewPool returns a stopped pool of concurrency 0 for the endpoint with index endpoint.
func NewPool(endpoint int, s Streamer, opts ...Option) *Pool {
	p := &Pool{
		endpoint:  endpoint,
		stream:    s,
		tickEvery: time.Second,
		ownOut:    true,
		wake:      make(chan struct{}, 1),
		stopCh:    make(chan struct{}),
		allDone:   make(chan struct{}),
		done:      make(chan struct{}),
		rule:      model.NewLevelRule(endpoint),
	}
	for _, o := range opts {
		o(p)
	}
	if p.out == nil {
		p.out = make(chan Event, DefaultBuffer)
	}
	return p
}

// Run starts the collector (and the workers, when the concurrency is already set) and
// returns the event channel, closed once Stop (or ctx) has ended every worker and the
// final segment and tick were sent. Cancelling ctx cuts the requests in flight (their
// Samples, of kind model.ErrCanceled, are still sent) and stops the pool. Run starts
// a pool once: later calls return the same channel and start nothing.
func (p *Pool) Run(ctx context.Context) <-chan Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running {
		return p.out
	}
	p.running = true
	p.ctx, p.cancel = context.WithCancel(ctx)
	now := Mono()
	p.lastTick = now
	if p.stopped {
		p.checkDoneLocked()
	} else if !p.paused && p.target > 0 {
		p.beginLocked(true, now)
		p.spawnLocked()
	}
	go p.collect(ctx)
	return p.out
}

// Done is closed after the pool sent its last event (useful with WithOutput).
func (p *Pool) Done() <-chan struct{} { return p.done }

// Stop ends the run: no new requests; in-flight requests finish (cancel ctx to cut them).
// The open segment closes now. It is idempotent and does not block; the event channel
// closes when all is over.
func (p *Pool) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	close(p.stopCh)
	if p.running {
		p.beginLocked(false, Mono())
		p.checkDoneLocked()
	}
}

// beginLocked closes the open segment and opens one at the target (recorded under the
// label) when open is true, queueing the segment states for the collector.
func (p *Pool) beginLocked(open bool, now int64) {
	closed, had, opened := p.rule.Begin(p.label, open, p.deliveredLocked(), MonoTime(now))
	if had {
		p.segs = append(p.segs, closed)
	}
	if opened.Open {
		p.segs = append(p.segs, opened)
	}
	p.wakeCollector()
}

func (p *Pool) wakeCollector() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// spawnLocked starts workers up to the target. Surplus workers (after a shrink) are
// counted in p.workers until they exit, so they are reused rather than doubled.
func (p *Pool) spawnLocked() {
	for p.workers < p.target {
		p.workers++
		p.wg.Add(1)
		go p.worker(p.ctx)
	}
}

// checkDoneLocked closes allDone once the pool is stopped and no worker is left.
func (p *Pool) checkDoneLocked() {
	if p.stopped && p.workers == 0 && !p.finished {
		p.finished = true
		close(p.allDone)
	}
}

// deliveredLocked is the cumulative number of chunks delivered by all streams: those
// that ended plus the live counts of those in flight. It is O(active).
func (p *Pool) deliveredLocked() int64 {
	n := p.delivered
	for _, f := range p.active {
		n += f.prog.Chunks.Load()
	}
	return n
}

func (p *Pool) worker(ctx context.Context) {
	defer p.wg.Done()
	var backoff time.Duration
	for {
		if backoff > 0 && !p.sleep(ctx, backoff) {
			backoff = 0 // woken by Stop or ctx: the check below ends the worker
		}
		p.mu.Lock()
		if p.stopped || p.paused || p.workers > p.target || ctx.Err() != nil {
			p.workers--
			p.checkDoneLocked()
			p.mu.Unlock()
			return
		}
		f := p.sendLocked()
		p.mu.Unlock()

		f.sample = p.stream.Stream(ctx, &f.prog)

		p.mu.Lock()
		p.endLocked(f)
		p.mu.Unlock()

		s := &f.sample
		s.Endpoint, s.Segment, s.Concurrency, s.Warmup = p.endpoint, f.segment, f.concurrency, f.warmup
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
	f := &flight{idx: len(p.active)}
	f.segment, f.concurrency, f.warmup = p.rule.Send(MonoTime(now))
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
	if p.rule.Done(f.segment, t) {
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
