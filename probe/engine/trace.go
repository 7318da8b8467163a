package engine

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// A trace run (Config.Trace) replays a recorded load on its schedule: the pools run in
// rate mode with probe.WithTrace, and the ramp is a fixed schedule of the trace's
// windows, level n being window n (each held exactly the window, in wall time: the
// window over the speed). Its report names the windows instead of rates; its judgement
// says whether the endpoint held the trace's load, with no capacity and no saturation
// (there is no ramp to find them on), and how late the client fell behind the trace.

// TraceRamp is the ramp of a trace run: one level per window of the trace, numbered
// from 1, each lasting the window over the speed.
func TraceRamp(t *model.ReportTrace) Ramp {
	wall := time.Duration(t.WindowS / t.Speed * float64(time.Second))
	n := max(int(math.Ceil(t.DurationS/t.WindowS-1e-9)), 1)
	levels := make([]int, n)
	for i := range levels {
		levels[i] = i + 1
	}
	return Ramp{Levels: levels, Hold: wall, Fixed: true}
}

// traceLefter is a Control that replays a trace (*probe.Pool).
type traceLefter interface{ TraceLeft() int }

// holdsLastWindow reports whether endpoint ep's walk must stay in its last window: the
// trace has lines not sent yet (late ones, or one due at the window's very end), and
// ending the window would drop them.
func (e *Engine) holdsLastWindow(ep *endpoint) bool {
	if e.cfg.Trace == nil || ep.walk == nil {
		return false
	}
	idx, _ := ep.walk.Level()
	tl, ok := ep.ctl.(traceLefter)
	return ok && idx == len(e.cfg.Ramp.Levels)-1 && tl.TraceLeft() > 0
}

// TraceMode reports whether the engine replays a trace.
func (e *Engine) TraceMode() bool { return e.cfg.Trace != nil }

// Trace is the trace the engine replays (a copy; nil when none): its levels are the
// trace's windows.
func (e *Engine) Trace() *model.ReportTrace {
	if e.cfg.Trace == nil {
		return nil
	}
	t := *e.cfg.Trace
	return &t
}

// traceSettings is the trace of the report's settings, with how late its requests left
// (from every endpoint's levels); nil when the run replays none.
func (e *Engine) traceSettings(r *model.Report) *model.ReportTrace {
	if e.cfg.Trace == nil {
		return nil
	}
	t := *e.cfg.Trace
	for _, ep := range r.Endpoints {
		for _, l := range ep.Levels {
			if w := l.ClientWaitMs; w != nil {
				t.Late += w.Late
				t.Capped += w.Capped
				t.LateMaxMs = max(t.LateMaxMs, w.Max)
			}
		}
	}
	if t.Late == 0 {
		t.LateMaxMs = 0
	}
	return &t
}

// traceLevels names an endpoint's levels as windows of the trace and takes away the
// rate of each level (a window is no arrival rate). A window is short when it has fewer
// steady requests than a window needs, counting those that ended after it (its load is
// the requests it sent, whatever they take). The capacity and the saturation a trace
// run cannot say are the judgement's to leave out (model.JudgeEndpoint).
func (e *Engine) traceLevels(re *model.ReportEndpoint) {
	t := e.cfg.Trace
	if t == nil {
		return
	}
	for j := range re.Levels {
		l := &re.Levels[j]
		from, to := t.Window(l.Concurrency)
		l.TraceWindowS, l.Rate = []float64{from, to}, nil
		l.Short = !l.Open && l.Steady < model.MinSteady(1)
	}
}

// TraceSetup is what a trace run needs, from a trace read from file: the pools'
// option (probe.WithTrace), the ramp of its windows and the report's trace.
type TraceSetup struct {
	Option probe.Option
	Ramp   Ramp
	Info   *model.ReportTrace
}

// DefaultTraceWindow is the window of a trace when none is given: a tenth of the
// trace, at least 10 s of it (the whole trace when shorter).
func DefaultTraceWindow(t *workload.Trace) time.Duration {
	return min(max(t.Duration()/10, 10*time.Second), max(t.Duration(), time.Second))
}

// evenWindow is the window nearest to window that splits a trace of span d into equal
// windows, so that the last window is not a shorter one with an idle tail (a trace of
// one moment is one window of a second).
func evenWindow(d, window time.Duration) time.Duration {
	if d <= 0 {
		return time.Second
	}
	n := max(math.Ceil(float64(d)/float64(window)-1e-9), 1)
	return time.Duration(math.Round(float64(d) / n))
}

// MaxTraceSpeed bounds how much faster than recorded a trace may be replayed.
const MaxTraceSpeed = 1000

// PlanTrace prepares the replay of trace t (read from file) at speed (1: as recorded)
// in windows of window of the trace (0: DefaultTraceWindow), its prompts drawn from
// seed, with at most maxConcurrency requests in flight (0: no cap). It refuses a speed
// or window that cannot be replayed, as a *probe/client.FieldError naming trace_speed
// or trace_window.
func PlanTrace(t *workload.Trace, file string, speed float64, window time.Duration, seed uint64, maxConcurrency int) (*TraceSetup, error) {
	if speed <= 0 || speed > MaxTraceSpeed || math.IsNaN(speed) {
		return nil, fieldErr(FieldTraceSpeed, strconv.FormatFloat(speed, 'g', -1, 64),
			fmt.Sprintf("want a number above 0 and at most %d (2 replays twice as fast as recorded, 0.5 half as fast)", MaxTraceSpeed))
	}
	if window < 0 {
		return nil, fieldErr(FieldTraceWindow, window.String(), "want a positive duration of the trace, e.g. 60s")
	}
	if window == 0 {
		window = DefaultTraceWindow(t)
	}
	info := &model.ReportTrace{File: file, Requests: len(t.Entries), DurationS: t.Duration().Seconds(), Speed: speed,
		WindowS: evenWindow(t.Duration(), window).Seconds()}
	ramp := TraceRamp(info)
	if ramp.Hold < 100*time.Millisecond {
		return nil, fieldErr(FieldTraceWindow, window.String(),
			fmt.Sprintf("a window of %s at %gx speed lasts under 100 ms: give a longer window", window, speed))
	}
	opt := probe.WithTrace(workload.NewTraceSource(t, seed), t.Times(speed), maxConcurrency)
	return &TraceSetup{Option: opt, Ramp: ramp, Info: info}, nil
}
