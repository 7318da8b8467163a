package model

import (
	"testing"
	"time"
)

// TestModesKeptApart: 2 users and later 2 requests/s are two levels, never merged. A
// closed-loop request still in flight when the load switched to rate mode ends in the
// users level; the reads follow SetRateMode; ReportMode reads either mode and says
// whether it has a level; Reset forgets both.
func TestModesKeptApart(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	sample := func(seg int, rate bool, send, end float64) *Sample {
		return &Sample{Segment: seg, Concurrency: 2, OpenLoop: rate, Send: at(send), First: at(send + 0.1),
			Last: at(end), End: at(end), Tokens: 20, Chunks: 20, Usage: true, Status: 200, Finish: "stop"}
	}
	tr.UpdateSegment(Segment{ID: 1, Concurrency: 2, Start: at(0), SteadyAt: at(0), End: at(10), SteadyChunks: 400})
	for i := range 10 {
		tr.AddSample(sample(1, false, float64(i), float64(i)+0.9))
	}
	tail := sample(1, false, 9.5, 11) // sent at 2 users, ends after the switch
	tr.UpdateSegment(Segment{ID: 2, Concurrency: 2, OpenLoop: true, Start: at(10), SteadyAt: at(11), End: at(20), Open: true, SteadyChunks: 300})
	tr.AddSample(tail)
	for i := range 6 {
		tr.AddSample(sample(2, true, 12+float64(i), 12.5+float64(i)))
	}

	users := tr.Levels()
	if len(users) != 1 || users[0].Concurrency != 2 || users[0].OpenLoop || users[0].Requests != 11 {
		t.Fatalf("users levels: %+v, want one level of 2 users with 11 requests", users)
	}
	tr.SetRateMode(true)
	rate := tr.Levels()
	if len(rate) != 1 || !rate[0].OpenLoop || rate[0].Requests != 6 || rate[0].Duration != 9*time.Second {
		t.Fatalf("rate levels: %+v, want one level of 2 requests/s with 6 requests over 9 s", rate)
	}
	if e := tr.ReportEndpoint(EndpointInfo{Name: "a"}); len(e.Levels) != 1 || e.Levels[0].Rate == nil {
		t.Errorf("ReportEndpoint in rate mode: %+v", e.Levels)
	}
	ue, ok := tr.ReportMode(EndpointInfo{Name: "a"}, false)
	if !ok || len(ue.Levels) != 1 || ue.Levels[0].Rate != nil || ue.Levels[0].Requests != 11 {
		t.Errorf("ReportMode(users): ok %v %+v", ok, ue.Levels)
	}
	tr.Reset(at(21))
	if _, ok := tr.ReportMode(EndpointInfo{}, false); ok {
		t.Errorf("after Reset: the users book still has a level")
	}
	if l, ok := tr.Level(2); !ok || !l.Open || l.Requests != 0 {
		t.Errorf("after Reset: the open rate level is %+v (ok %v), want kept open and empty", l, ok)
	}
}

// TestLevelRuleStampsTheMode: a segment carries the mode it was opened in, to its close.
func TestLevelRuleStampsTheMode(t *testing.T) {
	r := NewLevelRule(0)
	now := time.Unix(1000, 0)
	r.SetOpenLoop(true)
	if _, _, opened := r.Begin(4, true, 0, now); !opened.OpenLoop {
		t.Fatal("a segment opened in rate mode is not OpenLoop")
	}
	r.SetOpenLoop(false)
	if cur, _ := r.Current(now.Add(time.Second)); !cur.OpenLoop {
		t.Error("the open segment changed mode")
	}
	closed, had, opened := r.Begin(4, true, 0, now.Add(2*time.Second))
	if !had || !closed.OpenLoop || opened.OpenLoop {
		t.Errorf("closed %+v (had %v), opened %+v: want the rate segment closed and a users one opened", closed, had, opened)
	}
}
