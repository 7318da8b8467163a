package model

import (
	"testing"
	"time"
)

// TestTrackerLiveTTFO: TTFO stands beside TTFT once a request sent reasoning tokens
// before its answer; its percentiles cover the trailing window.
func TestTrackerLiveTTFO(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := NewTracker(TrackerOptions{TTFTWindow: 10 * time.Second})
	answer := func(end time.Time, reasoning, ttfo time.Duration) *Sample {
		send := end.Add(-5 * time.Second)
		return &Sample{Concurrency: 1, Send: send, First: send.Add(reasoning), FirstAnswer: send.Add(ttfo),
			Last: end, End: end, Tokens: 10, Chunks: 10, Finish: "stop"}
	}
	tr.AddSample(answer(t0, 100*time.Millisecond, 100*time.Millisecond)) // no reasoning
	tr.AddTick(&Tick{Start: t0.Add(-time.Second), End: t0.Add(time.Second)})
	if l := tr.Live(); l.Reasoning || !l.HasTTFO {
		t.Fatalf("plain answer: Reasoning %v HasTTFO %v; want false, true", l.Reasoning, l.HasTTFO)
	}
	for i := range 20 {
		tr.AddSample(answer(t0.Add(time.Second), 200*time.Millisecond, time.Duration(i+1)*100*time.Millisecond))
	}
	tr.AddTick(&Tick{Start: t0.Add(time.Second), End: t0.Add(2 * time.Second)})
	l := tr.Live()
	if !l.Reasoning || l.TTFOP95 != 1900*time.Millisecond || l.TTFOP50 != time.Second {
		t.Errorf("Live = reasoning %v, TTFO p50 %v p95 %v; want true, 1s, 1.9s", l.Reasoning, l.TTFOP50, l.TTFOP95)
	}
	tr.AddTick(&Tick{Start: t0.Add(20 * time.Second), End: t0.Add(21 * time.Second)})
	if l := tr.Live(); l.HasTTFO || !l.Reasoning {
		t.Errorf("after the window: HasTTFO %v Reasoning %v; want false, true", l.HasTTFO, l.Reasoning)
	}
	tr.Reset(t0.Add(22 * time.Second))
	if l := tr.Live(); l.Reasoning {
		t.Error("Reasoning survives Reset")
	}
}
