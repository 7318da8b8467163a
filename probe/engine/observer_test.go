package engine

import (
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
)

// TestObserversSeeEveryEventAfterTheBook: an observer gets each event Handle took, in
// order, once the endpoint's book has it; events of no endpoint are not passed on.
func TestObserversSeeEveryEventAfterTheBook(t *testing.T) {
	var seen []string
	var requestsSeen []int
	obs := ObserverFunc(func(e *Engine, ev *probe.Event) {
		req, _, _ := e.Book(ev.Endpoint).Totals()
		requestsSeen = append(requestsSeen, req)
		switch {
		case ev.Sample != nil:
			seen = append(seen, "sample")
		case ev.Tick != nil:
			seen = append(seen, "tick")
		case ev.Segment != nil:
			seen = append(seen, "segment")
		}
	})
	e, err := New(Config{Observers: []Observer{obs}}, []Part{{Endpoint: client.Endpoint{Name: "a"}, Control: &fakeCtl{}}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	e.Handle(probe.Event{Segment: &model.Segment{Concurrency: 1, Start: t0, Open: true}})
	e.Handle(probe.Event{Sample: &model.Sample{Concurrency: 1, Send: t0, End: t0.Add(time.Second), Err: model.ErrTimeout}})
	e.Handle(probe.Event{Tick: &model.Tick{Start: t0, End: t0.Add(time.Second)}})
	e.Handle(probe.Event{Endpoint: 3, Tick: &model.Tick{}})
	if got := seen; len(got) != 3 || got[0] != "segment" || got[1] != "sample" || got[2] != "tick" {
		t.Errorf("observer saw %v, want segment, sample, tick", got)
	}
	if requestsSeen[1] != 1 {
		t.Errorf("at the sample the book counted %d requests, want 1 (observers run after the book)", requestsSeen[1])
	}
}

// TestNoticeShownIsWhatTheStatusLineSays: the status line (and so the time series'
// said, for replay) says the ramp's and the server's notices and an outage's start and
// end, not a level's start nor the other findings (the diagnosis line has them).
func TestNoticeShownIsWhatTheStatusLineSays(t *testing.T) {
	for _, c := range []struct {
		n    Notice
		want bool
	}{
		{Notice{Kind: LevelStarted}, false},
		{Notice{Kind: LevelShort}, true},
		{Notice{Kind: RampStopped}, true},
		{Notice{Kind: ServerNote}, true},
		{Notice{Kind: Diagnosed, Rule: model.DiagDown}, true},
		{Notice{Kind: Diagnosed, Rule: model.DiagBack}, true},
		{Notice{Kind: Diagnosed, Rule: model.DiagQueue}, false},
	} {
		if got := c.n.Shown(); got != c.want {
			t.Errorf("notice kind %v rule %q: Shown %v, want %v", c.n.Kind, c.n.Rule, got, c.want)
		}
	}
}
