package sim

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestArithmetic checks the simulator against its own model with jitter and prefill off:
// per-user TPS at c <= slots is 1000/(StepMs + StepMsPerSeq*c), TTFT climbs once
// c > slots (the queue), and aggregate TPS rises then saturates.
//
// A request's per-user TPS is read from the median time over 10 tokens (rateOver), not
// from its first and last token alone: at c=1 the whole answer lasts 300 ms, and one
// read of the test's own that a busy machine delays by 21 ms (or a step the scheduler
// starts that late) would move a rate from the span by 7%.
func TestArithmetic(t *testing.T) {
	const (
		slots   = 4
		stepMs  = 4.0
		perSeq  = 1.0
		nTokens = 60
	)
	inst, client := startSim(t, Config{Slots: slots, StepMs: stepMs, StepMsPerSeq: perSeq})
	body := chatBody(`"max_tokens":60,"ignore_eos":true,"stream_options":{"include_usage":true}`)

	aggregate := map[int]float64{}
	ttfts := map[int][]time.Duration{}
	for _, c := range []int{1, 2, 4, 8} {
		results := make([]*result, c)
		var wg sync.WaitGroup
		for i := range c {
			wg.Go(func() { results[i] = send(context.Background(), t, client, inst, "/chat/completions", body) })
		}
		wg.Wait()

		var userTPS []float64
		var first, last time.Time
		for _, r := range results {
			if r.status != 200 || !r.done() {
				t.Fatalf("c=%d: status %d, done %v, err %v", c, r.status, r.done(), r.readErr)
			}
			toks := r.tokenEvents(t)
			if len(toks) != nTokens {
				t.Fatalf("c=%d: %d token events, want %d", c, len(toks), nTokens)
			}
			tFirst, tLast := toks[0].at, toks[len(toks)-1].at
			userTPS = append(userTPS, rateOver(toks, 10))
			ttfts[c] = append(ttfts[c], tFirst.Sub(r.sent))
			if first.IsZero() || r.sent.Before(first) {
				first = r.sent
			}
			if tLast.After(last) {
				last = tLast
			}
		}
		aggregate[c] = float64(c*nTokens) / last.Sub(first).Seconds()
		slices.Sort(ttfts[c])
		if c > slots {
			continue
		}
		slices.Sort(userTPS)
		got := userTPS[len(userTPS)/2]
		want := 1000 / (stepMs + perSeq*float64(c))
		if math.Abs(got-want)/want > 0.07 {
			t.Errorf("c=%d: per-user TPS p50 = %.1f (from the median time over 10 tokens), want %.1f ±7%% (all: %.1f)", c, got, want, userTPS)
		}
		t.Logf("c=%d: per-user %.1f tok/s (model %.1f), aggregate %.0f tok/s, TTFT max %v", c, got, want, aggregate[c], ttfts[c][c-1])
	}

	// Queueing: at 2x slots, the second half waits for the first wave's whole answer
	// (nTokens steps of StepMs + StepMsPerSeq*slots).
	fullBatch := time.Duration(nTokens * (stepMs + perSeq*slots) * float64(time.Millisecond))
	if got := ttfts[8][slots]; got < fullBatch*6/10 {
		t.Errorf("c=8: TTFT of the first queued request = %v, want at least %v (queued behind a %v batch)", got, fullBatch*6/10, fullBatch)
	}
	if q, unqueued := ttfts[8][slots], ttfts[slots][slots-1]; q < 3*unqueued {
		t.Errorf("c=8: queued TTFT %v is not well above the TTFT at c=%d (%v)", q, slots, unqueued)
	}
	t.Logf("c=8: aggregate %.0f tok/s, TTFTs %v", aggregate[8], ttfts[8])

	// Aggregate rises (model: 200, 333, 500) then saturates (500 at 8).
	if !(aggregate[2] > 1.3*aggregate[1] && aggregate[4] > 1.2*aggregate[2]) {
		t.Errorf("aggregate does not rise with users: %v", aggregate)
	}
	if aggregate[8] > 1.15*aggregate[4] {
		t.Errorf("aggregate at 8 users (%.0f) should saturate at the 4-slot value (%.0f)", aggregate[8], aggregate[4])
	}
}

// TestPrefillSlowsTheBatch checks that a prompt's prefill is added to the step that
// admits it: a long prompt delays its own first token by about its prefill time.
func TestPrefillSlowsTheBatch(t *testing.T) {
	inst, client := startSim(t, Config{Slots: 4, StepMs: 2, PrefillMsPerToken: 1})
	long := make([]byte, 4*200) // ~200 prompt tokens: ~200 ms of prefill
	for i := range long {
		long[i] = 'a'
	}
	body := `{"model":"m","stream":true,"max_tokens":3,"ignore_eos":true,"prompt":"` + string(long) + `"}`
	r := send(context.Background(), t, client, inst, "/completions", body)
	toks := r.tokenEvents(t)
	if len(toks) != 3 {
		t.Fatalf("%d token events, want 3 (status %d)", len(toks), r.status)
	}
	if ttft := toks[0].at.Sub(r.sent); ttft < 150*time.Millisecond {
		t.Errorf("TTFT with ~200 ms of prefill = %v, want at least 150 ms", ttft)
	}
	if gap := toks[2].at.Sub(toks[0].at); gap > 150*time.Millisecond {
		t.Errorf("decode after prefill took %v for 2 steps of ~3 ms: prefill was charged again", gap)
	}
}

// rateOver is the events per second of evs, read from the median of the times that
// every run of w consecutive gaps takes. A late read (or a late step) lengthens or
// shortens only the few runs that start or end in it, and leaves the median alone; the
// single gaps alternate about the step (a timer that wakes late, a next step that catches
// up on its deadline), so a run is long enough to hold both.
func rateOver(evs []sseEvent, w int) float64 {
	var spans []time.Duration
	for i := 0; i+w < len(evs); i++ {
		spans = append(spans, evs[i+w].at.Sub(evs[i].at))
	}
	if len(spans) == 0 {
		return 0
	}
	slices.Sort(spans)
	return float64(w) / spans[len(spans)/2].Seconds()
}
