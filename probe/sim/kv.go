package sim

import (
	"slices"
	"sync/atomic"
)

// kvState is the scheduler's KV-cache budget (Config.KVTokens) and the counters that
// GET /metrics publishes.
//
// A sequence holding a slot holds KV cache for its prompt and the tokens generated so
// far. Before each decode step every decoding sequence needs room for one more token;
// when the budget cannot give it, the most recently admitted sequences are preempted
// back to the front of the queue, as vLLM does (recompute mode): they keep the tokens
// already sent, and when a slot and room come back their prompt and those tokens are
// prefilled again. A queued request is admitted only when its tokens fit with one token
// to spare. One sequence always runs, even alone over the budget, so that an answer
// longer than the whole cache still ends. So with long answers the batch stops growing
// before the slots are full, and the curve's knee comes from KV pressure, as on GPUs.
type kvState struct {
	// Scheduler-private, recomputed before each admission round.
	held int // tokens held by the slot holders
	dec  int // slot holders that will decode in the next step

	used        atomic.Int64 // published: held after admission
	generated   atomic.Int64 // tokens generated since start (a counter: never reset)
	preemptions atomic.Int64 // sequences preempted since start
}

// kvHeld is the KV cache a sequence holds: its prompt and the tokens generated so far.
func (q *seq) kvHeld() int { return q.prompt + q.n }

// kvPreempt recomputes the cache held and, over budget, preempts the newest slot
// holders to the front of the queue until every decoding sequence has room for its
// next token (never the last one).
func (sc *scheduler) kvPreempt() {
	kv := &sc.kv
	kv.held, kv.dec = 0, 0
	for _, q := range sc.active {
		kv.held += q.kvHeld()
		if !q.stalled {
			kv.dec++
		}
	}
	budget := sc.cfg.KVTokens
	var out []*seq
	for budget > 0 && kv.held+kv.dec > budget && len(sc.active) > 1 {
		q := sc.active[len(sc.active)-1]
		sc.active[len(sc.active)-1] = nil
		sc.active = sc.active[:len(sc.active)-1]
		kv.held -= q.kvHeld()
		if !q.stalled {
			kv.dec--
		}
		out = append(out, q)
	}
	if len(out) > 0 {
		slices.Reverse(out) // the earliest admitted first, as they were
		sc.queue = slices.Insert(sc.queue, 0, out...)
		kv.preemptions.Add(int64(len(out)))
	}
	kv.used.Store(int64(kv.held))
}

// kvReserve reports whether q fits in the budget beside the slot holders, with room for
// every decoding sequence's next token and its own, and if so counts it in. Without a
// budget, or with no slot holder, it always fits.
func (sc *scheduler) kvReserve(q *seq) bool {
	kv := &sc.kv
	if sc.cfg.KVTokens > 0 && len(sc.active) > 0 && kv.held+kv.dec+q.kvHeld()+1 > sc.cfg.KVTokens {
		return false
	}
	kv.held += q.kvHeld()
	kv.dec++
	kv.used.Store(int64(kv.held))
	return true
}
