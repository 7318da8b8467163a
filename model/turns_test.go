package model

import (
	"testing"
	"time"
)

// First turns and later turns are measured apart; requests outside a conversation and
// failed turns are left out; a level without conversations has no turn figures.
func TestTurnsSplitFirstAndLaterTurns(t *testing.T) {
	tr := NewTraffic(DefaultSLO.Goodput())
	if tr.Stats(time.Second).Turns != nil {
		t.Fatal("turn figures without a conversation")
	}
	for i := range 10 {
		first := req(800*time.Millisecond+time.Duration(i)*time.Millisecond, 50, time.Second)
		first.Turn = 1
		later := req(90*time.Millisecond, 50, time.Second)
		later.Turn = 2 + i%3
		tr.Add(first)
		tr.Add(later)
	}
	single := req(5*time.Second, 50, time.Second) // not a conversation
	failed := req(5*time.Second, 50, time.Second)
	failed.Turn, failed.Err = 2, ErrTruncated
	tr.Add(single)
	tr.Add(failed)
	st := tr.Stats(time.Second).Turns
	if st == nil || st.First.Count != 10 || st.Later.Count != 10 {
		t.Fatalf("turns %+v, want 10 first and 10 later", st)
	}
	if st.First.P50 < 800 || st.First.P50 > 810 || st.Later.P95 < 89.9 || st.Later.P95 > 90.1 {
		t.Errorf("first p50 %v ms, later p95 %v ms", st.First.P50, st.Later.P95)
	}
	if got, want := st.Words(), "first turns: TTFT p50 804 ms, p95 809 ms (10 turns); later turns: TTFT p50 90 ms, p95 90 ms (10 turns)"; got != want {
		t.Errorf("words %q, want %q", got, want)
	}
}
