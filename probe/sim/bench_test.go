package sim

import (
	"testing"
	"time"
)

// BenchmarkEvent formats one single-token chat event into a reused buffer: the
// simulator's per-event cost on the handler side.
func BenchmarkEvent(b *testing.B) {
	f := newStreamFormat(true, 42, 1700000000, []byte(`"sim-14b-h100"`), 3)
	buf := make([]byte, 0, 1024)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		buf = f.appendTokens(buf[:0], i, i+1, false, "")
		i++
	}
}

// BenchmarkEvent4 formats one 4-token chat event (the fast profile).
func BenchmarkEvent4(b *testing.B) {
	f := newStreamFormat(true, 42, 1700000000, []byte(`"sim-8b-fast"`), 3)
	buf := make([]byte, 0, 1024)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		buf = f.appendTokens(buf[:0], i, i+4, false, "")
		i += 4
	}
}

// BenchmarkStep1000 runs one decode step's bookkeeping over 1,000 decoding sequences
// (the scheduler's per-step cost without the sleep); ns/op divided by 1,000 is the
// scheduler's cost per token.
func BenchmarkStep1000(b *testing.B) {
	const n = 1000
	sc := newScheduler(Config{Slots: n, TokensPerChunk: 1}.withDefaults(), nil)
	for range n {
		sc.active = append(sc.active, newSeq(100, 1<<40, 0))
	}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		sc.step(now, true)
		for _, q := range sc.active { // a reader took the notification
			select {
			case <-q.notify:
			default:
			}
		}
	}
	if len(sc.active) != n {
		b.Fatalf("%d sequences left the batch", n-len(sc.active))
	}
}
