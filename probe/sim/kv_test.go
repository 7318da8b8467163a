package sim

import (
	"testing"
	"time"
)

func TestKVBudgetPreemptsWhenOutgrown(t *testing.T) {
	// 8 slots, but 8 sequences of 10 + 40 tokens need 400 tokens of KV at their end:
	// the budget of 100 admits them all at first, then preempts as they grow.
	cfg := Config{Slots: 8, StepMs: 2, KVTokens: 100} // steps long enough that all 8 arrive first
	var seqs []*seq
	for range 8 {
		seqs = append(seqs, newSeq(10, 40, 0))
	}
	r := runSeqsWithScheduler(t, cfg, seqs)
	if r.peak > 100 {
		t.Errorf("KV use reached %d tokens, over the budget of 100", r.peak)
	}
	if r.preemptions == 0 {
		t.Error("no preemption although the batch outgrew the budget")
	}
	// A preempted sequence keeps the tokens it sent: nothing is generated twice.
	if r.generated != 8*40 {
		t.Errorf("%d tokens generated, want exactly 8 x 40", r.generated)
	}
}

func TestKVBudgetNeverStopsTheLastSequence(t *testing.T) {
	// One answer longer than the whole cache still ends.
	q := newSeq(10, 200, 0)
	r := runSeqsWithScheduler(t, Config{Slots: 4, StepMs: 0.05, KVTokens: 100}, []*seq{q})
	if r.preemptions != 0 || r.generated != 200 {
		t.Errorf("%d preemptions, %d tokens; want 0 and 200", r.preemptions, r.generated)
	}
}

func TestNoKVBudgetAdmitsBySlots(t *testing.T) {
	var seqs []*seq
	for range 6 {
		seqs = append(seqs, newSeq(5000, 100, 0))
	}
	r := runSeqsWithScheduler(t, Config{Slots: 6, StepMs: 2}, seqs)
	if r.preemptions != 0 || r.peak < 6*5000 {
		t.Errorf("without a budget: %d preemptions, peak %d; want none and all 6 held at once", r.preemptions, r.peak)
	}
}

// kvRun is what a scheduler did with a set of sequences: the highest KV use seen, the
// preemptions and the tokens generated.
type kvRun struct{ peak, preemptions, generated int64 }

// runSeqsWithScheduler drives a scheduler directly with seqs and waits until each has
// generated all its tokens.
func runSeqsWithScheduler(t *testing.T, cfg Config, seqs []*seq) kvRun {
	t.Helper()
	quit, done := make(chan struct{}), make(chan struct{})
	sc := newScheduler(cfg.withDefaults(), quit)
	go sc.run(done)
	var r kvRun
	func() {
		defer func() { close(quit); <-done }()
		for _, q := range seqs {
			sc.submit <- q
			if !<-q.verdict {
				t.Fatal("a sequence was rejected")
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			r.peak = max(r.peak, sc.kv.used.Load())
			finished := 0
			for _, q := range seqs {
				if int(q.gen.Load()) == q.target {
					finished++
				}
			}
			if finished == len(seqs) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d sequences finished in 10 s", finished, len(seqs))
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	r.preemptions, r.generated = sc.kv.preemptions.Load(), sc.kv.generated.Load()
	return r
}

// TestProfileKVBudgets checks the arithmetic the profiles' comment promises, with the
// TUI's default request (128-token prompt, about 136 tokens with the chat template).
func TestProfileKVBudgets(t *testing.T) {
	const prompt = 136
	for _, name := range ProfileNames() {
		c, _ := Profile(name)
		if c.KVTokens <= 0 {
			t.Errorf("%s: no KV budget", name)
			continue
		}
		full := c.Slots * (prompt + 256)
		if fits := full <= c.KVTokens; fits == (name == "flaky") {
			t.Errorf("%s: %d slots x %d tokens = %d against a budget of %d", name, c.Slots, prompt+256, full, c.KVTokens)
		}
	}
	d, _ := Profile(DefaultProfile)
	// With 1024-token answers the mean sequence holds the prompt and 512 tokens.
	if n := d.KVTokens / (prompt + 512); n >= d.Slots || n < d.Slots/2 {
		t.Errorf("%s with 1024-token answers fits %d sequences, want fewer than its %d slots (a KV knee)", DefaultProfile, n, d.Slots)
	}
}
