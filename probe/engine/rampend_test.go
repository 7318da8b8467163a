package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/output/report"
)

// TestReportSaysWhyTheRampEnded: each endpoint's report says why its ramp ended, in the
// JSON (ramp_end) and the Markdown.
func TestReportSaysWhyTheRampEnded(t *testing.T) {
	endOf := func(r *rig, interrupted bool) string { return r.e.Report(interrupted).Endpoints[0].RampEnd }
	cfg := Config{Ramp: Ramp{Levels: []int{1, 2}, Hold: time.Second}}

	r := newRig(t, cfg, 1)
	if got := endOf(r, false); got != "" {
		t.Errorf("no ramp: %q, want none", got)
	}
	r.e.StartRamp([]int{0}, at(0))
	if got := endOf(r, false); got != "" {
		t.Errorf("a snapshot mid-ramp: %q, want none", got)
	}
	if got := endOf(r, true); got != model.RampEndInterrupted {
		t.Errorf("a report cut mid-ramp: %q, want interrupted", got)
	}
	r.e.StopRamp()
	if got := endOf(r, false); got != model.RampEndManual {
		t.Errorf("stopped by hand: %q, want manual", got)
	}

	r = newRig(t, cfg, 1)
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 1, at(0))
	r.done(0, 1, 20, 0, 100*time.Millisecond, at(time.Second))
	r.step(time.Second)
	r.steady(0, 2, at(time.Second))
	r.done(0, 2, 110, 0, 100*time.Millisecond, at(2*time.Second)) // decided at 95%: nothing to confirm
	r.step(2 * time.Second)
	if got := endOf(r, false); got != model.RampEndFinished {
		t.Errorf("every level held: %q, want finished", got)
	}

	r = newRig(t, cfg, 1)
	r.e.StartRamp([]int{0}, at(0))
	r.steady(0, 1, at(0))
	r.done(0, 1, 10, 4, 100*time.Millisecond, at(time.Second))
	r.step(time.Second)
	rep := r.e.Report(false)
	if got := rep.Endpoints[0].RampEnd; got != "stopped: errors 40% > 5% (10 requests)" {
		t.Errorf("a stop rule: %q", got)
	}
	js, _ := json.Marshal(rep)
	if !strings.Contains(string(js), `"ramp_end":"stopped: errors 40% \u003e 5% (10 requests)"`) {
		t.Errorf("JSON: %s", js)
	}
	if md := report.Summary(rep); !strings.Contains(md, "- ramp stopped early by a stop rule at 1 user: errors 40% > 5% (10 requests) when it stopped; not measured: 2 users") ||
		!strings.Contains(md, "**Verdict**: capacity none: no level measured in full meets the criteria (1 user: errors 40% > 1%)") {
		t.Errorf("Markdown:\n%s", md)
	}

	r = newRig(t, Config{Ramp: cfg.Ramp, MaxDuration: time.Minute}, 1)
	r.e.StartRamp([]int{0}, at(0))
	r.step(time.Minute)
	if got := endOf(r, false); got != model.RampEndMaxDuration {
		t.Errorf("max duration: %q", got)
	}

	r = newRig(t, cfg, 1)
	r.e.StartRamp([]int{0}, at(0))
	if !r.e.Interrupt() || r.e.Ramping() || endOf(r, true) != model.RampEndInterrupted {
		t.Errorf("Interrupt: ramping %v, end %q", r.e.Ramping(), endOf(r, true))
	}
}

// TestReportRecordsSeed: the settings carry the prompts' seed, so a run can be repeated.
func TestReportRecordsSeed(t *testing.T) {
	e, err := New(Config{}, []Part{{Endpoint: client.Endpoint{PromptSeed: 42}, Control: &fakeCtl{}}})
	if err != nil {
		t.Fatal(err)
	}
	if s := e.Settings(); s.Seed != 42 {
		t.Errorf("seed %d, want 42", s.Seed)
	}
	if md := report.Summary(e.Report(false)); !strings.Contains(md, "prompt seed 42") {
		t.Errorf("Markdown does not name the seed:\n%s", md)
	}
}
