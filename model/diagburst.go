package model

import (
	"fmt"
	"slices"
	"time"
)

// The rule for requests sent together (DiagnoseTTFT, DiagTogether).
const (
	// togetherGap: requests sent one after another at most this far apart were sent
	// together (a burst of sends: a level's new users, users in step, a rate burst).
	togetherGap = 5 * time.Millisecond
	// togetherMin is the fewest requests of a burst of sends that may explain a TTFT by
	// the prefill of the whole burst.
	togetherMin = 4
	// togetherShare is the share of the recent slow first tokens that must belong to
	// such bursts for them to explain the rise.
	togetherShare = 0.75
	// togetherSpan is the seconds of first tokens the recent TTFT is made of: the last
	// diagRecent per-second p50s, each over the trailing diagTTFTSpan seconds.
	togetherSpan = (diagRecent + diagTTFTSpan) * time.Second
)

// FirstToken is one request's first token as the diagnosis reads it: when the request
// was sent and its TTFT (the first token came at Send + TTFT).
type FirstToken struct {
	Send time.Time
	TTFT time.Duration
}

// sendBurst is what DiagnoseTTFT says of requests sent together: the largest burst of
// sends with a slow first token (n requests, sent from first to last within span),
// and how many of the recent slow first tokens the bursts explain.
type sendBurst struct {
	n              int
	span           time.Duration
	slow, together int
	bar            time.Duration // a first token this slow or slower is slow
}

// sentTogether reports whether the recent slow first tokens (the last 15 s, TTFT at
// least twice base and 250 ms above it, base in seconds) mostly, at least 75% and 3 of
// them, belong to requests sent together: in a burst of at least 4 sends at most 5 ms
// apart one after another, with a TTFT within what prefilling the whole burst may take,
// its size times the low-load TTFT (each prompt's prefill is at most the TTFT of a
// request alone). The server then admits them together and prefills them in one go: the
// first tokens wait for the server's own work, not the network's. A delay before the
// server that lengthens first tokens beyond that bound, or those of requests sent
// alone, is not explained. O(n log n) in the window's first tokens.
func sentTogether(in *DiagInput, base float64) (sendBurst, bool) {
	if len(in.Firsts) < togetherMin || base <= 0 {
		return sendBurst{}, false
	}
	fs := slices.Clone(in.Firsts)
	slices.SortFunc(fs, func(a, b FirstToken) int { return a.Send.Compare(b.Send) })
	low := time.Duration(base * float64(time.Second))
	b := sendBurst{bar: max(time.Duration(riseFactor*float64(low)), low+time.Duration(riseMin*float64(time.Second)))}
	for i := 0; i < len(fs); {
		j := i + 1
		for j < len(fs) && fs[j].Send.Sub(fs[j-1].Send) <= togetherGap {
			j++
		}
		b.count(in, fs[i:j], low)
		i = j
	}
	return b, b.slow >= failMin && float64(b.together) >= togetherShare*float64(b.slow)
}

// count adds one burst of sends (one request alone, or several sent together) to b:
// its recent slow first tokens, and those its prefill may explain.
func (b *sendBurst) count(in *DiagInput, burst []FirstToken, low time.Duration) {
	n := len(burst)
	from := in.Now.Add(-togetherSpan)
	for _, f := range burst {
		if f.TTFT < b.bar || !in.Now.IsZero() && f.Send.Add(f.TTFT).Before(from) {
			continue
		}
		b.slow++
		if n >= togetherMin && f.TTFT <= time.Duration(n)*low {
			b.together++
			if n > b.n {
				b.n, b.span = n, burst[n-1].Send.Sub(burst[0].Send)
			}
		}
	}
}

// words is the cause in words: "tpsmon sent 31 requests within 3 ms of each other, and
// the server prefills them together".
func (b *sendBurst) words() string {
	return fmt.Sprintf("tpsmon sent %d requests within %s of each other, and the server prefills them together", b.n, spanWords(b.span))
}

// evidence is the figures behind words.
func (b *sendBurst) evidence(low float64) string {
	base := time.Duration(low * float64(time.Second))
	return fmt.Sprintf("%d of the %d first tokens of the last %.0f s slower than %s came to requests sent in bursts (%d or more, at most %s apart), "+
		"none later than prefilling its burst may take (its size x the low-load TTFT: up to %s for the largest, %d requests)",
		b.together, b.slow, togetherSpan.Seconds(), FormatMs(b.bar), togetherMin, spanWords(togetherGap), FormatMs(time.Duration(b.n)*base), b.n)
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
