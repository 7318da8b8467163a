package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

// sample hands the engine one request of endpoint 0 that ended at end.
func (r *rig) sample(end time.Time, err model.ErrorKind, status int, msg string) {
	s := &model.Sample{Concurrency: 1, Send: end.Add(-50 * time.Millisecond), End: end, Err: err, Status: status, ErrMsg: msg}
	if err == model.ErrNone {
		s.Headers, s.First, s.Last, s.Tokens, s.Chunks, s.Finish = s.Send.Add(time.Millisecond), s.Send.Add(10*time.Millisecond), end, 10, 10, "stop"
	}
	r.e.Handle(probe.Event{Sample: s})
}

// TestDiagnosisOutageThroughTheEngine: an outage is said once as it first holds (a
// notice), "back" once it ends, and the report holds it in the past tense, with when
// it began and ended; the live findings are gone once the server is back for 30 s.
func TestDiagnosisOutageThroughTheEngine(t *testing.T) {
	r := newRig(t, Config{}, 1)
	r.e.Step(at(0))
	var said []string
	step := func(d time.Duration) {
		for _, n := range r.e.Step(at(d)) {
			if n.Kind == Diagnosed {
				said = append(said, n.String())
			}
		}
	}
	for ms := 0; ms < 20000; ms += 250 {
		r.sample(at(time.Duration(ms)*time.Millisecond), model.ErrNone, 200, "")
		if ms%1000 == 0 {
			step(time.Duration(ms) * time.Millisecond)
		}
	}
	refused := "connect: connection refused 127.0.0.1:8000: is the server running on that port?"
	for ms := 20000; ms < 30000; ms += 250 {
		r.sample(at(time.Duration(ms)*time.Millisecond), model.ErrConnect, 0, refused)
		if ms%1000 == 0 {
			step(time.Duration(ms) * time.Millisecond)
		}
	}
	if r.e.Fatal(0) {
		t.Error("an outage is not fatal: the server may come back")
	}
	for ms := 30000; ms < 40000; ms += 250 {
		r.sample(at(time.Duration(ms)*time.Millisecond), model.ErrNone, 200, "")
		if ms%1000 == 0 {
			step(time.Duration(ms) * time.Millisecond)
		}
	}
	want := []string{
		"ep0: diagnosis: the server is down: connections refused for 2 s, 9 requests in a row (its last answer at 20 s)",
		"ep0: diagnosis: the server is back after 10 s down: requests succeed again since 30 s (connections refused from 20 s, 40 requests failed)",
	}
	if strings.Join(said, "\n") != strings.Join(want, "\n") {
		t.Errorf("said:\n%s\nwant:\n%s", strings.Join(said, "\n"), strings.Join(want, "\n"))
	}
	step(70 * time.Second)
	if now := r.e.Diagnosis(0); len(now) != 0 {
		t.Errorf("70 s, the server back for 40 s: %+v", now)
	}
	rep := r.e.Report(false).Endpoints[0].Diagnosis
	var kinds []string
	for _, f := range rep {
		kinds = append(kinds, f.Rule)
	}
	if len(rep) != 2 || rep[0].Rule != model.DiagDown || rep[1].Rule != model.DiagBack ||
		rep[0].Text != "the server was down for 10 s: connections refused from 20 s to 30 s, 40 requests failed" ||
		rep[0].FirstS != 20 || rep[0].LastS != 30 || rep[1].FirstS != 30 || rep[1].LastS != 39 {
		t.Errorf("report's diagnosis %+v", rep)
	}
}

// TestDiagnosisFatal: every request answered 401: fatal (the screen stops loading).
func TestDiagnosisFatal(t *testing.T) {
	r := newRig(t, Config{}, 1)
	r.e.Step(at(0))
	for k := range 4 {
		r.sample(at(time.Duration(k)*200*time.Millisecond), model.HTTPError(401), 401, "http 401 Unauthorized: the server wants an API key and none was sent")
	}
	r.e.Step(at(time.Second))
	if r.e.Fatal(0) {
		t.Error("4 refusals: too few to stop")
	}
	r.sample(at(time.Second), model.HTTPError(401), 401, "http 401 Unauthorized: the server wants an API key and none was sent")
	r.e.Step(at(2 * time.Second))
	if !r.e.Fatal(0) {
		t.Error("5 refusals of 5: fatal")
	}
	if d := r.e.Diagnosis(0); len(d) != 1 || d[0].Text != "authentication refused: HTTP 401 on all 5 requests: no API key was sent" {
		t.Errorf("diagnosis %+v", d)
	}
}

// TestSchedulingDelayMustHold: the diagnosis reads tpsmon's scheduling delay only once
// it held for schedHold readings in a row (the lowest of them): one slow second of a
// busy machine is not tpsmon as the limit.
func TestSchedulingDelayMustHold(t *testing.T) {
	e := &Engine{}
	for _, c := range []struct {
		scheds []time.Duration
		want   time.Duration
	}{
		{nil, 0},
		{[]time.Duration{30 * time.Millisecond, 30 * time.Millisecond}, 0},
		{[]time.Duration{time.Millisecond, 25 * time.Millisecond, 2 * time.Millisecond}, time.Millisecond},
		{[]time.Duration{25 * time.Millisecond, 40 * time.Millisecond, 30 * time.Millisecond}, 25 * time.Millisecond},
	} {
		e.scheds = c.scheds
		if got := e.heldSched(); got != c.want {
			t.Errorf("readings %v: held %v, want %v", c.scheds, got, c.want)
		}
	}
}

// TestRunKeepsTheDelayBeforeTheServerAtItsLongest: TTFT at 3 s with no queue on the
// server (a proxy holding requests past its limit, as a ramp to 16 users meets it),
// then 600 ms as the bisection comes back down: the run keeps the words of the rise at
// its highest ("TTFT rises to 3.00 s"), not as it ended; the screen says it as it is.
func TestRunKeepsTheDelayBeforeTheServerAtItsLongest(t *testing.T) {
	r := newRig(t, Config{}, 1)
	r.steady(0, 16, at(0))
	var gen float64
	feed := func(from, to int, ttft time.Duration) {
		for s := from; s < to; s++ {
			start := at(time.Duration(s) * time.Second)
			r.e.Handle(probe.Event{Tick: &model.Tick{Start: start, End: start.Add(time.Second), Target: 16, Active: 16,
				Chunks: 280, FirstTokens: []time.Duration{ttft, ttft, ttft}}})
			gen += 280
			r.e.HandleServer(scrape(time.Duration(s+1)*time.Second, 4, 0, 0.07, gen))
			r.e.Step(start.Add(time.Second))
		}
	}
	feed(0, 5, 20*time.Millisecond)
	feed(5, 20, 3*time.Second)
	feed(20, 40, 600*time.Millisecond)
	var now, run string
	for _, f := range r.e.Diagnosis(0) {
		if f.Rule == model.DiagNoQueue {
			now = f.Text
		}
	}
	for _, f := range r.e.Findings(0) {
		if f.Rule == model.DiagNoQueue {
			run = f.Text
		}
	}
	if !strings.HasPrefix(now, "TTFT rises to 600 ms (20 ms at low load) with no queue on the server") {
		t.Errorf("now: %q, want the rise as it is (600 ms)", now)
	}
	if !strings.HasPrefix(run, "TTFT rises to 3.00 s (20 ms at low load) with no queue on the server: the time is spent between tpsmon and the server") {
		t.Errorf("run: %q, want the rise at its highest (3.00 s)", run)
	}
}

// TestDiagnosisServerStopsAsTheRunEnds: a server that goes down at 20 s, under a stop
// rule that ends the ramp at once (tpsmon sim --down-after 20s, bench at 1 user: a
// stream cut, then two connections refused 50 ms apart, 3 errors of 10 > 5%): too
// brief for an outage, it is said as what the run ended on, never "no cause was named";
// while the load goes on, such a blip is not said.
func TestDiagnosisServerStopsAsTheRunEnds(t *testing.T) {
	r := newRig(t, Config{}, 1)
	r.e.Step(at(0))
	for k := 1; k <= 7; k++ {
		r.sample(at(time.Duration(k)*2800*time.Millisecond), model.ErrNone, 200, "")
		r.e.Step(at(time.Duration(k) * 2800 * time.Millisecond))
	}
	r.sample(at(20*time.Second), model.ErrTruncated, 200, "truncated: the connection broke after 38 chunks (unexpected EOF)")
	refused := "connect: connection refused 127.0.0.1:19310: is the server running on that port?"
	r.sample(at(20050*time.Millisecond), model.ErrConnect, 0, refused)
	r.sample(at(20150*time.Millisecond), model.ErrConnect, 0, refused)
	r.e.Step(at(20200 * time.Millisecond))
	for _, f := range r.e.Findings(0) {
		t.Errorf("while the load goes on, two refusals in 100 ms are a blip: %+v", f)
	}
	r.e.Cut()
	r.e.Step(at(20300 * time.Millisecond))
	rep := r.e.Report(false).Endpoints[0]
	want := "the server stopped answering as the run ended: the last 2 requests failed (connections refused) from 20 s " +
		"(its last answer at 20 s); the run ended before tpsmon could tell for how long"
	if len(rep.Diagnosis) != 1 || rep.Diagnosis[0].Rule != model.DiagStopped || rep.Diagnosis[0].Text != want ||
		rep.Diagnosis[0].Severity != model.SevProblem || rep.Diagnosis[0].FirstS != 20.1 {
		t.Errorf("report's diagnosis %+v\nwant %q", rep.Diagnosis, want)
	}
}

// TestDiagnosisOutageWithNoLoad: the screen's ramp stops on the errors of a server gone
// down at 20 s (users 0); the server comes back at 30 s and its /metrics answers. The
// diagnosis says what the requests last met, never "the server is down ... for 2 min"
// counted on while nothing was sent; and that /metrics answers again.
func TestDiagnosisOutageWithNoLoad(t *testing.T) {
	r := newRig(t, Config{}, 1)
	r.e.Step(at(0))
	var gen float64
	second := func(s, target int, up bool) {
		start := at(time.Duration(s) * time.Second)
		tick := &model.Tick{Start: start, End: start.Add(time.Second), Target: target, Active: target}
		if up {
			tick.Chunks = 90 * int64(target)
		}
		r.e.Handle(probe.Event{Tick: tick})
		if up {
			gen += 90 * float64(target)
			r.e.HandleServer(scrape(time.Duration(s+1)*time.Second, float64(target), 0, 0.01, gen))
		}
		r.e.Step(start.Add(time.Second))
	}
	for s := range 20 {
		r.sample(at(time.Duration(s)*time.Second+500*time.Millisecond), model.ErrNone, 200, "")
		second(s, 1, true)
	}
	refused := "connect: connection refused 127.0.0.1:19330: is the server running on that port?"
	for ms := 20000; ms < 23000; ms += 250 {
		r.sample(at(time.Duration(ms)*time.Millisecond), model.ErrConnect, 0, refused)
	}
	second(20, 1, false)
	second(21, 1, false)
	second(22, 1, false)
	if d := r.e.Diagnosis(0); len(d) == 0 || !strings.HasPrefix(d[0].Text, "the server is down: connections refused for 3 s, 12 requests in a row") {
		t.Errorf("23 s, the requests refused: %+v", d)
	}
	for s := 23; s < 30; s++ {
		second(s, 0, false) // the ramp stopped: no users
	}
	tail := ": 12 requests in a row failed (connections refused) from 20 s (its last answer at 20 s)"
	want := "the server was down when last tried at 23 s" + tail
	if d := r.e.Diagnosis(0); len(d) != 1 || d[0].Text != want || d[0].Severity != model.SevProblem {
		t.Errorf("30 s, no users: %+v\nwant %q", d, want)
	}
	for s := 30; s < 150; s++ {
		second(s, 0, true) // back: its /metrics answers
	}
	want = "the server was down when last tried at 23 s; its /metrics answers again" + tail
	if d := r.e.Diagnosis(0); len(d) != 1 || d[0].Text != want || d[0].Severity != model.SevWarning {
		t.Errorf("150 s, /metrics back: %+v\nwant %q", d, want)
	}
	// A user again (+): its first request finds the server back. When it came back
	// between 23 s and 150 s is unknown: never "back after 2 min 10 s down".
	r.sample(at(151*time.Second), model.ErrNone, 200, "")
	second(150, 1, true)
	want = "the server is back: requests succeed again since 2 min 31 s (connections refused from 20 s to 23 s, 12 requests failed)"
	if d := r.e.Diagnosis(0); len(d) != 1 || d[0].Text != want {
		t.Errorf("151 s, a request answered: %+v\nwant %q", d, want)
	}
	rep := r.e.Report(false).Endpoints[0].Diagnosis
	want = "the server was down from 20 s, back by 2 min 31 s: connections refused from 20 s to 23 s, 12 requests failed"
	if len(rep) == 0 || rep[0].Text != want {
		t.Errorf("report: %+v\nwant %q", rep, want)
	}
}
