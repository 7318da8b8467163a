package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

// switchCtl is a fake pool that can switch between users and rate mode.
type switchCtl struct {
	fakeCtl
	open bool
}

func (s *switchCtl) SetOpenLoop(on bool, n int) { s.open = on; s.SetConcurrency(n) }

// TestModesReportedApart: a session that held 8 users (a ramp the switch stopped) and
// then a rate reports each mode apart: its own levels, the server's view of each level
// (8 users and the rate are two server levels, and a paused scrape is in none), and how
// the ramp ended only in the users report, whose settings alone name a ramp. The switch
// starts rate mode at what 8 users achieved: with no live second read, by Little's law
// over the level's answers (8 users of 150 ms answers: 53 requests/s).
func TestModesReportedApart(t *testing.T) {
	ctl := &switchCtl{}
	r := newRig(t, Config{}, 1)
	r.e.eps[0].ctl = ctl
	r.e.StartRamp([]int{0}, at(0))
	r.e.StopRamp()
	ctl.conc = 8
	r.steady(0, 8, at(0))
	r.e.HandleServer(scrape(1*time.Second, 8, 2, 0.4, 100))
	r.e.HandleServer(scrape(2*time.Second, 8, 4, 0.6, 400))
	r.segs[0] = nil // the answers end without the level's steady window moving on: no level's rate to read
	r.done(0, 8, 20, 0, 50*time.Millisecond, at(2*time.Second))
	starts, ok := r.e.SwitchMode(true)
	if !ok || starts[0].N != 53 || starts[0].How != SeenLittle || !ctl.open || ctl.conc != 53 {
		t.Fatalf("SwitchMode: %+v %v; pool open %v at %d", starts, ok, ctl.open, ctl.conc)
	}
	// The pool closes the users segment and opens the rate one.
	r.e.Handle(probe.Event{Segment: &model.Segment{ID: r.seg, Concurrency: 8,
		Start: at(0), SteadyAt: at(0), End: at(3 * time.Second)}})
	r.seg++
	r.e.Handle(probe.Event{Segment: &model.Segment{ID: r.seg, Open: true, OpenLoop: true, Concurrency: 53,
		Start: at(3 * time.Second), SteadyAt: at(3 * time.Second), End: at(3 * time.Second)}})
	r.e.HandleServer(scrape(4*time.Second, 9, 30, 0.9, 900))
	ctl.paused = true
	r.e.HandleServer(scrape(5*time.Second, 0, 90, 0.9, 950)) // paused: no level
	ctl.paused = false
	for k := range 5 {
		send := at(4 * time.Second)
		r.e.Handle(probe.Event{Sample: &model.Sample{Segment: r.seg, Concurrency: 53, OpenLoop: true, Send: send,
			First: send.Add(time.Duration(k) * time.Millisecond), Last: send.Add(time.Second), End: send.Add(time.Second),
			Tokens: 10, Chunks: 10, Usage: true, Finish: "stop", Status: 200}})
	}
	if sv, ok := r.e.ServerLevel(0, 53); !ok || sv.Scrapes != 1 {
		t.Errorf("rate level 53: server view %+v (ok %v), want its one unpaused scrape", sv, ok)
	}
	rs := r.e.Reports(false)
	if len(rs) != 2 || rs[0].Settings.Mode != "" || rs[1].Settings.Mode != "rate" {
		t.Fatalf("Reports: %d reports", len(rs))
	}
	users, rate := rs[0].Endpoints[0], rs[1].Endpoints[0]
	if len(users.Levels) != 1 || users.Levels[0].Concurrency != 8 || users.Levels[0].Rate != nil ||
		users.Levels[0].Server == nil || users.Levels[0].Server.Scrapes != 2 || users.RampEnd != model.RampEndManual ||
		len(rs[0].Settings.Ramp) == 0 {
		t.Errorf("users report: levels %+v, ramp end %q, settings ramp %v", users.Levels, users.RampEnd, rs[0].Settings.Ramp)
	}
	if len(rate.Levels) != 1 || rate.Levels[0].Rate == nil || rate.Levels[0].Requests != 5 ||
		rate.Levels[0].Server == nil || rate.Levels[0].Server.Scrapes != 1 || rate.RampEnd != "" || len(rs[1].Settings.Ramp) != 0 {
		t.Errorf("rate report: levels %+v, ramp end %q, settings ramp %v", rate.Levels, rate.RampEnd, rs[1].Settings.Ramp)
	}
	if rep := r.e.Report(false); rep.Settings.Mode != "rate" || len(rep.Endpoints[0].Levels) != 1 || rep.Endpoints[0].Levels[0].Rate == nil {
		t.Errorf("Report is the mode in use's: %+v", rep.Settings)
	}
	r.e.Reset(at(6 * time.Second)) // c: the rate level being measured stays, empty
	if rs := r.e.Reports(false); len(rs) != 1 || rs[0].Settings.Mode != "rate" || len(rs[0].Endpoints[0].Levels) != 1 {
		t.Errorf("after Reset: %d reports, want the rate mode's with its open level", len(rs))
	}
	r.e.Cut() // the run ends before a request ends in it: no level to report, no empty users table
	if rs := r.e.Reports(true); len(rs) != 1 || rs[0].Settings.Mode != "rate" || len(rs[0].Endpoints[0].Levels) != 0 {
		t.Errorf("after Cut: %d reports, want the rate mode's, empty", len(rs))
	}
}

// TestQuitRightAfterSwitch: m then q before an answer ends at the new rate: the rate
// level the run left unfinished has nothing to report, so the session's reports are the
// users report alone (no empty rate table beside it).
func TestQuitRightAfterSwitch(t *testing.T) {
	ctl := &switchCtl{}
	r := newRig(t, Config{}, 1)
	r.e.eps[0].ctl = ctl
	ctl.conc = 4
	r.steady(0, 4, at(0))
	r.done(0, 4, 20, 0, 50*time.Millisecond, at(2*time.Second))
	if _, ok := r.e.SwitchMode(true); !ok {
		t.Fatal("SwitchMode refused")
	}
	r.e.Handle(probe.Event{Segment: &model.Segment{ID: r.seg, Concurrency: 4,
		Start: at(0), SteadyAt: at(0), End: at(3 * time.Second)}})
	r.seg++
	r.e.Handle(probe.Event{Segment: &model.Segment{ID: r.seg, Open: true, OpenLoop: true, Concurrency: ctl.conc,
		Start: at(3 * time.Second), End: at(3 * time.Second)}})
	if rs := r.e.Reports(false); len(rs) != 2 || !rs[1].Endpoints[0].Levels[0].Open {
		t.Fatalf("before the end: %d reports, want users and the open rate level", len(rs))
	}
	r.e.Cut()
	rs := r.e.Reports(true)
	if len(rs) != 1 || rs[0].Settings.Mode != "" || len(rs[0].Endpoints[0].Levels) != 1 {
		t.Errorf("after Cut: %d reports (first mode %q), want the users report alone", len(rs), rs[0].Settings.Mode)
	}
}

// TestFindingsBelongToTheirMode: a session of 4 users for 5 s, then rate mode: each
// mode's report holds the findings that held while it was in force (one that held
// across the switch in both), so the users table's diagnosis says nothing of what went
// wrong at the rate measured after it.
func TestFindingsBelongToTheirMode(t *testing.T) {
	ctl := &switchCtl{}
	r := newRig(t, Config{}, 1)
	r.e.eps[0].ctl = ctl
	ctl.conc = 4
	r.step(0)
	r.steady(0, 4, at(0))
	r.done(0, 4, 20, 0, 50*time.Millisecond, at(2*time.Second))
	r.step(5 * time.Second)
	if _, ok := r.e.SwitchMode(true); !ok {
		t.Fatal("SwitchMode refused")
	}
	r.e.Handle(probe.Event{Segment: &model.Segment{ID: r.seg, Concurrency: 4, Start: at(0), SteadyAt: at(0), End: at(5 * time.Second)}})
	r.seg++
	send := at(6 * time.Second)
	r.e.Handle(probe.Event{Segment: &model.Segment{ID: r.seg, Open: true, OpenLoop: true, Concurrency: ctl.conc,
		Start: send, SteadyAt: send, End: send}})
	r.e.Handle(probe.Event{Sample: &model.Sample{Segment: r.seg, Concurrency: ctl.conc, OpenLoop: true, Send: send,
		First: send.Add(50 * time.Millisecond), Last: send.Add(time.Second), End: send.Add(time.Second),
		Tokens: 10, Chunks: 10, Usage: true, Finish: "stop", Status: 200}})
	run := r.e.eps[0].server.diag.run
	run[model.DiagStall] = &model.Finding{Rule: model.DiagStall, Severity: model.SevWarning, Text: "stall", FirstS: 1, LastS: 3}
	run[model.DiagDown] = &model.Finding{Rule: model.DiagDown, Severity: model.SevProblem, Text: "down", FirstS: 8, LastS: 9}
	run["both"] = &model.Finding{Rule: "both", Severity: model.SevInfo, Text: "both", FirstS: 4, LastS: 7}
	rs := r.e.Reports(false)
	if len(rs) != 2 {
		t.Fatalf("%d reports, want users and rate", len(rs))
	}
	for k, want := range []string{"stall both", "down both"} {
		var got []string
		for _, f := range rs[k].Endpoints[0].Diagnosis {
			got = append(got, f.Text)
		}
		if strings.Join(got, " ") != want || !rs[k].Endpoints[0].Diagnosed {
			t.Errorf("%s report's findings: %q, want %q", []string{"users", "rate"}[k], got, want)
		}
	}
}
