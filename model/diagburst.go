package model

import (
	"container/heap"
	"fmt"
	"slices"
	"time"
)

// The rule for requests sent together (DiagnoseTTFT, DiagTogether).
const (
	// togetherGap: requests sent one after another at most this far apart may have been
	// sent together (a level's new users, users in step): within a few ms on an idle
	// machine, with gaps of 17 ms seen on a busy one (31 sends over 19 ms, the server
	// prefilling both sides of the gap in one step).
	togetherGap = 25 * time.Millisecond
	// togetherMin is the fewest requests of a burst of sends that may explain a TTFT by
	// the prefill of the whole burst.
	togetherMin = 4
	// togetherDense: a burst's sends come at least this many times closer together, on
	// average, than the window's: at hundreds of requests/s, sends a few ms apart are the
	// load's own spacing, not requests sent together.
	togetherDense = 10
	// togetherShare is the share of the recent slow first tokens that must belong to
	// such bursts for them to explain the rise.
	togetherShare = 0.75
)

// FirstToken is one request's first token as the diagnosis reads it: when the request
// was sent and its TTFT (the first token came at Send + TTFT).
type FirstToken struct {
	Send time.Time
	TTFT time.Duration
}

// sendBurst is what DiagnoseTTFT says of requests sent together: the most requests
// ahead of a slow first token it explains (n requests, in bursts bursts of sends, sent
// from the first to the last within span), and how many of the recent slow first
// tokens the bursts explain.
type sendBurst struct {
	n, bursts      int
	span           time.Duration
	slow, together int
	bar            time.Duration // a first token this slow or slower is slow
}

// sentTogether reports whether the recent slow first tokens (those the recent TTFT is
// made of, recentFrom; TTFT at least twice base and 250 ms above it, base in seconds)
// mostly, at least 75% and 3 of them, belong to requests sent together: in a burst of
// at least 4 sends at most 25 ms apart one after another, 10 times as close on average
// as the window's sends, with a TTFT within what prefilling the requests that could
// be ahead of it may take: those of its own burst, and those of earlier bursts still
// without a first token when it was sent (the server admits them first), times the
// low-load TTFT (each prompt's prefill is at most the TTFT of a request alone). The
// server then prefills them in one go, or burst after burst when it admits a burst in
// two groups and the users go on in step: the first tokens wait for the server's own
// work, not the network's. A delay before the server that lengthens first tokens
// beyond that bound, or those of requests sent alone, is not explained. O(n log n) in
// the window's first tokens.
func sentTogether(in *DiagInput, base float64) (sendBurst, bool) {
	if len(in.Firsts) < togetherMin || base <= 0 {
		return sendBurst{}, false
	}
	fs := slices.Clone(in.Firsts)
	slices.SortFunc(fs, func(a, b FirstToken) int { return a.Send.Compare(b.Send) })
	low := time.Duration(base * float64(time.Second))
	b := sendBurst{bar: max(time.Duration(riseFactor*float64(low)), low+time.Duration(riseMin*float64(time.Second)))}
	from := recentFrom(in)
	spacing := fs[len(fs)-1].Send.Sub(fs[0].Send) / time.Duration(len(fs)-1) // the window's mean
	var q aheadQueue
	for i := 0; i < len(fs); {
		j := i + 1
		for j < len(fs) && fs[j].Send.Sub(fs[j-1].Send) <= togetherGap {
			j++
		}
		n := j - i
		if n >= togetherMin && togetherDense*fs[j-1].Send.Sub(fs[i].Send) <= spacing*time.Duration(n-1) {
			b.count(fs[i:j], &q, from, low)
			q.add(fs[i:j])
		} else {
			b.count(fs[i:j], nil, from, low)
		}
		i = j
	}
	return b, b.slow >= failMin && float64(b.together) >= togetherShare*float64(b.slow)
}

// recentFrom is when the first tokens behind the recent TTFT begin: the trailing
// window (diagTTFTSpan) of the oldest of the last diagRecent seconds with a TTFT (one
// a second, the newest at Now). Seconds without a first token do not count: after the
// last first tokens, the rise they made holds on and is still theirs. Zero (all of the
// window) without Now or with fewer seconds.
func recentFrom(in *DiagInput) time.Time {
	k := 0
	for i := len(in.TTFT) - 1; i >= 0 && !in.Now.IsZero(); i-- {
		if in.TTFT[i] <= 0 {
			continue
		}
		if k++; k == diagRecent {
			return in.Now.Add(-time.Duration(len(in.TTFT)-1-i+diagTTFTSpan) * time.Second)
		}
	}
	return time.Time{}
}

// count adds a run of sends at most togetherGap apart (one request alone, or several)
// to b: its slow first tokens that came from on, and those the prefill of the requests
// ahead of them may explain, when the run was sent together (q, the earlier bursts'
// requests; nil when not together).
func (b *sendBurst) count(burst []FirstToken, q *aheadQueue, from time.Time, low time.Duration) {
	n := len(burst)
	for _, f := range burst {
		if q != nil {
			q.drop(f.Send)
		}
		if f.TTFT < b.bar || f.Send.Add(f.TTFT).Before(from) {
			continue
		}
		b.slow++
		if q == nil {
			continue
		}
		ahead := n + q.len()
		if f.TTFT > time.Duration(ahead)*low {
			continue
		}
		b.together++
		if ahead > b.n {
			first := burst[0].Send
			if q.len() > 0 {
				first = q.first()
			}
			b.n, b.bursts, b.span = ahead, 1+q.bursts(), burst[n-1].Send.Sub(first)
		}
	}
}

// aheadQueue holds the requests of earlier bursts of sends until their first token:
// those the server may still have to prefill before a request sent now.
type aheadQueue struct {
	firsts  firstHeap // when each request's first token came, and its burst
	pending []int     // per burst added, its requests still without a first token
	sends   []time.Time
	lo      int // the oldest burst with a request still pending
	live    int // the bursts with a request still pending
}

// add puts a burst's requests in q.
func (q *aheadQueue) add(burst []FirstToken) {
	k := len(q.pending)
	q.pending = append(q.pending, len(burst))
	q.sends = append(q.sends, burst[0].Send)
	q.live++
	for _, f := range burst {
		heap.Push(&q.firsts, aheadFirst{at: f.Send.Add(f.TTFT), burst: k})
	}
}

// drop takes out of q the requests whose first token came by t.
func (q *aheadQueue) drop(t time.Time) {
	for len(q.firsts) > 0 && !q.firsts[0].at.After(t) {
		f := heap.Pop(&q.firsts).(aheadFirst)
		if q.pending[f.burst]--; q.pending[f.burst] == 0 {
			q.live--
		}
	}
	for q.lo < len(q.pending) && q.pending[q.lo] == 0 {
		q.lo++
	}
}

func (q *aheadQueue) len() int    { return len(q.firsts) }
func (q *aheadQueue) bursts() int { return q.live }

// first is the first send of the oldest burst with a request in q.
func (q *aheadQueue) first() time.Time { return q.sends[q.lo] }

// aheadFirst is a request's first token in aheadQueue: when it came, and the burst
// the request was sent in.
type aheadFirst struct {
	at    time.Time
	burst int
}

// firstHeap is a min-heap of first tokens by when they came (container/heap).
type firstHeap []aheadFirst

func (h firstHeap) Len() int           { return len(h) }
func (h firstHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h firstHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *firstHeap) Push(x any)        { *h = append(*h, x.(aheadFirst)) }
func (h *firstHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// finding is the rise explained by b: rise its words, evidence its figures so far, now
// the TTFT it rose to and base the low-load TTFT (seconds); span the server's last
// scrapes with a waiting gauge (the burst's own admission may show in one or two).
func (b *sendBurst) finding(rise string, evidence []string, now, base float64, span []ServerPoint) Finding {
	queue := " with no queue on the server"
	waits := fmt.Sprintf("no request waiting on the server in its last %d scrapes", len(span))
	var peak float64
	var at int
	for _, p := range span {
		peak = max(peak, p.Waiting)
		if p.Waiting > 0 {
			at++
		}
	}
	if peak > 0 {
		queue = fmt.Sprintf(" with no lasting queue on the server (at most %.0f waiting, at %d of its last %d scrapes)", peak, at, len(span))
		waits = fmt.Sprintf("waiting on the server: under %.0f on average over its last %d scrapes, at most %.0f in its last %d, no more than the burst", queueMin, diagRecent, peak, len(span))
	}
	return Finding{Rule: DiagTogether, Severity: SevInfo, Evidence: append(evidence, waits, b.evidence(base)), Strength: now,
		Text: rise + queue + ": " + b.words()}
}

// words says the requests behind the slowest first tokens explained: "tpsmon sent 31
// requests within 3 ms of each other, and the server prefills them together", or, over
// several bursts, "tpsmon sent 31 requests in 2 bursts within 45 ms, and the server
// prefills them burst after burst".
func (b *sendBurst) words() string {
	if b.bursts > 1 {
		return fmt.Sprintf("tpsmon sent %d requests in %d bursts within %s, and the server prefills them burst after burst", b.n, b.bursts, spanWords(b.span))
	}
	return fmt.Sprintf("tpsmon sent %d requests within %s of each other, and the server prefills them together", b.n, spanWords(b.span))
}

// evidence is the figures behind words.
func (b *sendBurst) evidence(low float64) string {
	base := time.Duration(low * float64(time.Second))
	return fmt.Sprintf("%d of the %d recent first tokens slower than %s came to requests sent in bursts (%d or more, at most %s apart, %dx as close as the window's sends), "+
		"none later than prefilling the requests ahead of each may take (those of its burst and of earlier bursts still without a first token when it was sent, "+
		"x the low-load TTFT: up to %s for the most, %d requests in %s)",
		b.together, b.slow, FormatMs(b.bar), togetherMin, spanWords(togetherGap), togetherDense, FormatMs(time.Duration(b.n)*base), b.n, Plural(b.bursts, "burst"))
}

// spanWords is a span of sends in whole milliseconds, at least 1: "3 ms".
func spanWords(d time.Duration) string {
	return fmt.Sprintf("%d ms", max((d+time.Millisecond-1)/time.Millisecond, 1))
}

// diagRing keeps the newest items added, up to its size.
type diagRing[T any] struct {
	items []T
	next  int
}

func (r *diagRing[T]) add(v T, size int) {
	if len(r.items) < size {
		r.items = append(r.items, v)
		return
	}
	r.items[r.next] = v
	r.next = (r.next + 1) % size
}

// each calls f on the items, oldest first.
func (r *diagRing[T]) each(f func(*T)) {
	for k := range r.items {
		f(&r.items[(r.next+k)%len(r.items)])
	}
}

func (r *diagRing[T]) reset() { *r = diagRing[T]{items: r.items[:0]} }
