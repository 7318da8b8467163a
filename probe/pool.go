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

// flight is one request in flight: its live Progress, the pool's bookkeeping, and
// finally its Sample (one allocation per request for all of it).
type flight struct {
	prog   Progress
	sample model.Sample

	idx       int   // position in Pool.active
	last      int64 // Chunks at the previous tick
	heard     int64 // Mono() at the tick its chunk count last grew, or at its send (silence)
	firstSeen bool  // its TTFT already went into a Tick

	segment, concurrency int
	warmup               bool
	seq                  uint64 // its sequence number at the level rule
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
	firstSends     []time.Time // when each request of ttfts was sent

	open     *openLoop // rate mode (openpool.go); nil in the closed loop
	arrivals openLoop  // how rate mode paces arrivals when SetOpenLoop turns it on
	// openRunning counts rate mode's goroutines (its dispatcher and its requests),
	// apart from the closed loop's workers.
	openRunning int
	openGen     uint64 // counts rate mode's dispatchers: arrivals of an ended one are dropped

	talk *talkMode // conversations (pool_talk.go); nil: each request stands alone
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
		arrivals:  openLoop{seed: 1},
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
	p.rule.SetOpenLoop(p.open != nil)
	closed, had, opened := p.rule.Begin(p.label, open, p.deliveredLocked(), MonoTime(now))
	if had {
		p.segs = append(p.segs, closed)
	}
	if opened.Open {
		p.segs = append(p.segs, opened)
	}
	p.wakeCollector()
	if p.open != nil {
		p.steerLocked()
	}
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
	if p.open != nil {
		return // the dispatcher starts the requests (steerLocked)
	}
	for p.workers < p.target {
		p.workers++
		p.wg.Add(1)
		go p.worker(p.ctx)
	}
}

// checkDoneLocked closes allDone once the pool is stopped and no worker is left.
func (p *Pool) checkDoneLocked() {
	if p.stopped && p.workers == 0 && p.openRunning == 0 && !p.finished {
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
