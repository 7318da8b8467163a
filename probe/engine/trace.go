package engine

import (
	"math"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// A trace run (Config.Trace) replays a recorded load on its schedule: the pools run in
// rate mode with probe.WithTrace, and the ramp is a fixed schedule of the trace's
// windows, level n being window n (each held exactly the window, in wall time: the
// window over the speed). Its report names the windows instead of rates, has no
// capacity and no saturation (there is no ramp to find them on) and says how late the
// client fell behind the trace.

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

// TraceMode reports whether the engine replays a trace.
func (e *Engine) TraceMode() bool { return e.cfg.Trace != nil }

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
				t.LateMaxMs = max(t.LateMaxMs, w.Max)
			}
		}
	}
	if t.Late == 0 {
		t.LateMaxMs = 0
	}
	return &t
}

// traceLevels names an endpoint's levels as windows of the trace and takes away what a
// trace run cannot say: the rate of each level, the capacity and the saturation.
func (e *Engine) traceLevels(re *model.ReportEndpoint) {
	t := e.cfg.Trace
	if t == nil {
		return
	}
	for j := range re.Levels {
		l := &re.Levels[j]
		from, to := t.Window(l.Concurrency)
		l.TraceWindowS, l.Rate = []float64{from, to}, nil
	}
	re.Capacity, re.SaturationUsers = model.ReportCap{}, nil
}
