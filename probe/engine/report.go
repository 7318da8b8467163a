package engine

import (
	"slices"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
)

// Settings is the report's settings of the run in the mode in use: see SettingsOf.
func (e *Engine) Settings() model.ReportSettings { return e.SettingsOf(e.rate) }

// SettingsOf is the report's settings of the run's levels of one mode (rate levels when
// rate): the ramp of that mode, the criteria, the workload of the first endpoint, and the
// shard and start time when set.
func (e *Engine) SettingsOf(rate bool) model.ReportSettings {
	r := e.cfg.Ramp
	if rate != e.rate { // the other mode's ramp waits in userLevels or rateLevels
		r.Levels = e.userLevels
		if rate {
			r.Levels = e.rateLevels
		}
	}
	s := model.ReportSettings{
		Ramp:     append([]int(nil), r.Levels...),
		HoldS:    r.Hold.Seconds(),
		MaxHoldS: r.MaxHoldOr().Seconds(),
		SLO:      e.cfg.SLO.Report(),
		Workload: e.cfg.Workload,
	}
	if rate {
		s.Mode, s.Arrival = "rate", "poisson"
		if o := e.cfg.OpenLoop; o != nil {
			s.Arrival, s.MaxConcurrency = o.Arrival, o.MaxConcurrency
		}
	}
	if t := e.cfg.Trace; t != nil {
		s.Mode, s.Arrival, s.Trace = "trace", "", t
		s.MaxHoldS = s.HoldS
	}
	s.Turns, s.History, s.ThinkS = e.cfg.Turns, e.cfg.History, e.cfg.Think.Seconds()
	if sh := e.cfg.Shard; sh != nil {
		s.Shard = &model.ReportShard{Index: sh.Index, Count: sh.Count}
	}
	if r.Fixed {
		s.MaxHoldS = s.HoldS // every level lasts exactly the hold
	} else {
		s.MinRequests = max(MinFloor, e.cfg.MinRequests) // the sequential rule's floor (LevelNeed)
	}
	if !e.cfg.StartAt.IsZero() {
		s.StartAt = e.cfg.StartAt.UTC().Format(model.WindowLayout)
	}
	if len(e.eps) > 0 {
		ep := e.eps[0].ep
		s.API = apiOf(ep)
		s.MaxTokens = ep.MaxTokens
		s.PromptTokens = ep.PromptTokens
		s.IgnoreEOS = ep.IgnoreEOS
		s.TimeoutS = ep.Timeout.Seconds()
		s.Seed = ep.PromptSeed
		if ep.Timeout == 0 {
			s.TimeoutS = client.DefaultTimeout.Seconds()
		}
		for k := range ep.ExtraBody { // keys only: values may hold secrets
			s.ExtraBodyKeys = append(s.ExtraBodyKeys, k)
		}
		slices.Sort(s.ExtraBodyKeys)
	}
	if e.cfg.Trace != nil {
		s.MaxTokens, s.PromptTokens = 0, 0 // each line of the trace has its own
	}
	return s
}

// Report is the report of every endpoint as of now, of its levels in the mode in use:
// bench's results (a bench holds one mode). See Reports for every mode of a session.
func (e *Engine) Report(interrupted bool) *model.Report {
	return e.reportOf(e.rate, interrupted)
}

// Reports is one report per mode the session measured, users first (the live screen's
// snapshots and quit summary): a session that held 2 users and later 2 requests/s keeps
// both, each with its own settings, curve and claims. A mode with no level to report
// is left out; with none in either, it is the report of the mode in use.
func (e *Engine) Reports(interrupted bool) []*model.Report {
	var out []*model.Report
	for _, rate := range []bool{false, true} {
		if r := e.reportOf(rate, interrupted); hasLevels(r) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		out = append(out, e.Report(interrupted))
	}
	return out
}

// hasLevels reports whether some endpoint of r has a level.
func hasLevels(r *model.Report) bool {
	for i := range r.Endpoints {
		if len(r.Endpoints[i].Levels) > 0 {
			return true
		}
	}
	return false
}

// reportOf is the report of every endpoint's levels of one mode as of now (the one
// place a model.Report is built). A run that its maximum duration ended is reported as
// interrupted (its capacity may be higher). How a ramp ended belongs to the mode it
// walked, and the settings name a ramp only when one walked that mode's levels since the
// latest Reset (the live screen's levels may all be set by hand). A level the load
// passed through before any request ended (] ] in a second) is left out, as the screen
// leaves it out.
func (e *Engine) reportOf(rate, interrupted bool) *model.Report {
	r := &model.Report{
		Schema:      model.Schema,
		ToolVersion: e.cfg.Version,
		StartedAt:   e.started.UTC().Format(time.RFC3339),
		FinishedAt:  e.cfg.Now().UTC().Format(time.RFC3339),
		Interrupted: interrupted || e.over,
		Settings:    e.SettingsOf(rate),
	}
	if !e.ramped(rate) {
		r.Settings.Ramp, r.Settings.HoldS, r.Settings.MaxHoldS = []int{}, 0, 0
	}
	for i, ep := range e.eps {
		info := ep.info
		info.Interrupted = r.Interrupted
		info.Clock = e.wall
		re, _ := ep.book.ReportMode(info, rate)
		for j := range re.Levels {
			if sv, ok := ep.server.series.Level(serverKey(rate, re.Levels[j].Concurrency)); ok {
				re.Levels[j].Server = sv.Report()
			}
		}
		re.ServerMetrics = ep.server.status.URL // "" when nothing is scraped
		re.Diagnosis, re.Diagnosed = e.findingsOf(i, rate), true
		if ep.rampRate == rate {
			re.RampEnd = ep.rampEnd(r.Interrupted)
		}
		e.MarkStopped(i, rate, re.Levels)
		if e.done { // the run is over: a level it left unfinished is no longer being measured
			for j := range re.Levels {
				re.Levels[j].Open = false
			}
		}
		if e.cfg.Trace == nil { // a trace's windows are all listed, an idle one too
			re.Levels = slices.DeleteFunc(re.Levels, passedThrough)
		}
		e.traceLevels(&re)
		re.SetClaims(&r.Settings, r.Interrupted) // with the run's level rule
		r.Endpoints = append(r.Endpoints, re)
	}
	r.Settings.Trace = e.traceSettings(r)
	return r
}

// passedThrough reports whether the load passed through level l without a request
// ending there nor a token counted in a steady window, and it is not being measured:
// a row of dashes that says nothing.
func passedThrough(l model.ReportLevel) bool {
	return l.Requests == 0 && !l.Open && l.SteadyTokens == 0
}

// ramped reports whether a ramp walked the levels of one mode since the latest Reset:
// it walks them now, or its end is recorded.
func (e *Engine) ramped(rate bool) bool {
	for _, ep := range e.eps {
		if ep.rampRate == rate && (ep.walk != nil || ep.end.Kind != NotEnded) {
			return true
		}
	}
	return false
}

// rampEnd is the report's ramp_end of the endpoint: why its latest ramp ended ("" when
// none ran, or one still runs in a report that is not the run's last word).
func (ep *endpoint) rampEnd(interrupted bool) string {
	end := ep.end
	if ep.walk != nil {
		if !interrupted {
			return ""
		}
		end.Kind = EndInterrupt
	}
	switch end.Kind {
	case EndFinished:
		return model.RampEndFinished
	case EndStopped:
		return model.RampEndStopped + ": " + end.Stop.String()
	case EndUser:
		return model.RampEndManual
	case EndDuration:
		return model.RampEndMaxDuration
	case EndInterrupt:
		return model.RampEndInterrupted
	}
	return ""
}

// Outcome is what happened to one endpoint's requests over the whole run (warm-up
// included), beyond what the report shows.
type Outcome struct {
	Requests  int // requests that ended, those we canceled excluded
	Succeeded int
	Errors    map[model.ErrorKind]int
	LastError string // message of the newest failure when no later request succeeded
}

// Unusable reports whether the endpoint answered no request successfully.
func (o Outcome) Unusable() bool { return o.Succeeded == 0 && o.Requests > 0 }

// Outcome is endpoint i's outcome so far.
func (e *Engine) Outcome(i int) Outcome {
	b := e.eps[i].book
	_, succeeded, errs := b.Totals()
	msg, _ := b.LastError()
	failed := countErrors(errs)
	return Outcome{Requests: succeeded + failed, Succeeded: succeeded, Errors: errs, LastError: msg}
}

// countErrors sums the failures by kind, leaving out our own cancellations.
func countErrors(errs map[model.ErrorKind]int) int {
	n := 0
	for kind, c := range errs {
		if kind != model.ErrCanceled {
			n += c
		}
	}
	return n
}

// MarkStopped marks, among endpoint i's levels of the mode given (rate or users), the
// level a stop rule ended (ReportLevel.Stopped), so that the live screen's verdict,
// judged from its levels, says what the report's will: the level bounds the capacity
// and the run's levels met none of the criteria ("capacity none"), not "not measured".
func (e *Engine) MarkStopped(i int, rate bool, levels []model.ReportLevel) {
	n, ok := e.StoppedLevel(i, rate)
	for j := range levels {
		levels[j].Stopped = ok && levels[j].Concurrency == n
	}
}

// StoppedLevel is the level (users, or requests/s in rate mode) of endpoint i's ramp in
// the mode given that a stop rule ended, once the ramp is over; false when none did.
func (e *Engine) StoppedLevel(i int, rate bool) (int, bool) {
	ep := e.eps[i]
	if ep.rampRate != rate || ep.end.Kind != EndStopped || ep.walk != nil {
		return 0, false
	}
	return ep.end.Users, true
}
