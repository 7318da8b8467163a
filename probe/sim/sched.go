package sim

import (
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// minStep is the shortest decode step, so that a zero-cost configuration does not spin.
const minStep = 50 * time.Microsecond

// seq is one request's life in the scheduler. The handler fills the first block before
// submitting it; after that the two sides share only the atomics and channels.
type seq struct {
	prompt  int // prompt tokens (prefill cost)
	target  int // output tokens to generate
	stallAt int // after this many tokens the sequence stalls once (0 = never)

	gen     atomic.Int64  // tokens generated, published at event boundaries
	notify  chan struct{} // cap 1: gen moved; never blocks the scheduler
	gone    atomic.Bool   // the handler left (client gone, drop, close): free the place
	verdict chan bool     // cap 1: accepted, or false when rejected (queue full)

	// Scheduler-private.
	n        int
	stalled  bool
	resumeAt time.Time
}

func newSeq(prompt, target, stallAt int) *seq {
	return &seq{
		prompt: prompt, target: target, stallAt: stallAt,
		notify: make(chan struct{}, 1), verdict: make(chan bool, 1),
	}
}

// scheduler is the simulated GPU: one goroutine owns the batch and the FIFO queue.
type scheduler struct {
	cfg    Config
	rng    *rand.Rand // step jitter
	submit chan *seq
	quit   <-chan struct{}

	queue  []*seq // FIFO of requests waiting for a slot
	active []*seq // sequences holding a slot (decoding or stalled)

	queueLen atomic.Int64 // published for stats
	activeN  atomic.Int64

	kv kvState // the KV-cache budget and the /metrics counters (kv.go)
}

func newScheduler(cfg Config, quit <-chan struct{}) *scheduler {
	return &scheduler{
		cfg:    cfg,
		rng:    rand.New(rand.NewPCG(uint64(cfg.Seed), 0x5eed)),
		submit: make(chan *seq, 256),
		quit:   quit,
		active: make([]*seq, 0, cfg.Slots),
	}
}

// run is the scheduler loop: admit from the queue, run one decode step (sleeping its
// duration while still taking submissions), hand out one token per decoding sequence.
// Steps are timed against absolute deadlines so that wake-up latency does not
// accumulate: a late step is followed by a shorter one, unless the scheduler is more
// than one step behind, in which case it resets rather than bursting.
func (sc *scheduler) run(done chan<- struct{}) {
	defer close(done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var deadline time.Time
	for {
		sc.sweepQueue()
		sc.kvPreempt()
		prefill := sc.admit()
		sc.publish()
		if len(sc.active) == 0 {
			deadline = time.Time{}
			select {
			case q := <-sc.submit:
				sc.enqueue(q)
			case <-sc.quit:
				return
			}
			continue
		}
		now := time.Now()
		decoding := sc.decoding()
		if decoding == 0 {
			// Every slot holder is stalled: wait for the first to resume.
			deadline = sc.firstResume()
		} else {
			d := sc.stepDuration(decoding, prefill)
			if deadline.IsZero() || deadline.Before(now.Add(-d)) {
				deadline = now
			}
			deadline = deadline.Add(d)
		}
		timer.Reset(time.Until(deadline))
	wait:
		for {
			select {
			case <-timer.C:
				break wait
			case q := <-sc.submit:
				sc.enqueue(q)
			case <-sc.quit:
				timer.Stop()
				return
			}
		}
		sc.step(time.Now(), decoding > 0)
	}
}

// stepDuration is StepMs + StepMsPerSeq*decoding + the prefill of the sequences admitted
// for this step, with seeded relative jitter.
func (sc *scheduler) stepDuration(decoding int, prefillMs float64) time.Duration {
	ms := sc.cfg.StepMs + sc.cfg.StepMsPerSeq*float64(decoding) + prefillMs
	if sc.cfg.Jitter > 0 {
		ms *= 1 + sc.cfg.Jitter*(2*sc.rng.Float64()-1)
	}
	return max(time.Duration(ms*float64(time.Millisecond)), minStep)
}

// enqueue accepts q into the FIFO queue, or rejects it when MaxQueue requests already
// wait beyond the free slots.
func (sc *scheduler) enqueue(q *seq) {
	waiting := len(sc.queue) - (sc.cfg.Slots - len(sc.active))
	if sc.cfg.MaxQueue > 0 && waiting >= sc.cfg.MaxQueue {
		q.verdict <- false
		return
	}
	sc.queue = append(sc.queue, q)
	sc.queueLen.Store(int64(len(sc.queue)))
	q.verdict <- true
}

// sweepQueue drops queued requests whose client has gone.
func (sc *scheduler) sweepQueue() {
	kept := sc.queue[:0]
	for _, q := range sc.queue {
		if !q.gone.Load() {
			kept = append(kept, q)
		}
	}
	clear(sc.queue[len(kept):])
	sc.queue = kept
}

// admit moves queued requests into free slots, in order, and returns their prefill cost.
func (sc *scheduler) admit() (prefillMs float64) {
	n := 0
	for n < len(sc.queue) && len(sc.active) < sc.cfg.Slots && sc.kvReserve(sc.queue[n]) {
		q := sc.queue[n]
		n++
		if q.gone.Load() {
			continue
		}
		sc.active = append(sc.active, q)
		prefillMs += sc.cfg.PrefillMsPerToken * float64(q.kvHeld()) // a preempted sequence prefills its tokens again
	}
	if n > 0 {
		rest := copy(sc.queue, sc.queue[n:])
		clear(sc.queue[rest:])
		sc.queue = sc.queue[:rest]
	}
	return prefillMs
}

func (sc *scheduler) publish() {
	sc.queueLen.Store(int64(len(sc.queue)))
	sc.activeN.Store(int64(len(sc.active)))
}

// decoding counts the slot holders that take part in the next step (not stalled).
func (sc *scheduler) decoding() int {
	n := 0
	for _, q := range sc.active {
		if !q.stalled {
			n++
		}
	}
	return n
}

func (sc *scheduler) firstResume() time.Time {
	var t time.Time
	for _, q := range sc.active {
		if q.stalled && (t.IsZero() || q.resumeAt.Before(t)) {
			t = q.resumeAt
		}
	}
	return t
}

// step ends a decode step at now: with emit, every decoding sequence gets one token,
// published to its handler at event boundaries (every TokensPerChunk tokens and the
// last). Finished and abandoned sequences leave their slot; a sequence reaching its
// stall point keeps its slot but sits out of the batch for StallMs.
func (sc *scheduler) step(now time.Time, emit bool) {
	k := sc.cfg.TokensPerChunk
	kept := sc.active[:0]
	for _, q := range sc.active {
		if q.gone.Load() {
			continue
		}
		if q.stalled {
			if !now.Before(q.resumeAt) {
				q.stalled = false
			}
			kept = append(kept, q)
			continue
		}
		if !emit {
			kept = append(kept, q)
			continue
		}
		q.n++
		sc.kv.generated.Add(1)
		if q.n%k == 0 || q.n == q.target {
			q.gen.Store(int64(q.n))
			select {
			case q.notify <- struct{}{}:
			default:
			}
		}
		if q.n >= q.target {
			continue
		}
		if q.n == q.stallAt {
			q.stalled = true
			q.resumeAt = now.Add(time.Duration(sc.cfg.StallMs * float64(time.Millisecond)))
		}
		kept = append(kept, q)
	}
	clear(sc.active[len(kept):])
	sc.active = kept
}
