package engine

import (
	"slices"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
)

// Settings is the report's settings of the run: the ramp, the criteria, the workload
// of the first endpoint, and the shard and start time when set.
func (e *Engine) Settings() model.ReportSettings {
	r := e.cfg.Ramp
	s := model.ReportSettings{
		Ramp:     append([]int(nil), r.Levels...),
		HoldS:    r.Hold.Seconds(),
		MaxHoldS: r.MaxHoldOr().Seconds(),
		SLO:      e.cfg.SLO.Report(),
		Workload: e.cfg.Workload,
	}
	if e.rate {
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

// Report is the report of every endpoint as of now (the one place a model.Report is
// built: bench's results, the screen's snapshots and its summary). A run that its
// maximum duration ended is reported as interrupted (its capacity may be higher).
func (e *Engine) Report(interrupted bool) *model.Report {
	r := &model.Report{
		Schema:      model.Schema,
		ToolVersion: e.cfg.Version,
		StartedAt:   e.started.UTC().Format(time.RFC3339),
		FinishedAt:  e.cfg.Now().UTC().Format(time.RFC3339),
		Interrupted: interrupted || e.over,
		Settings:    e.Settings(),
	}
	for i, ep := range e.eps {
		info := ep.info
		info.Interrupted = r.Interrupted
		info.Clock = e.wall
		re := ep.book.ReportEndpoint(info)
		for j := range re.Levels {
			if sv, ok := ep.server.series.Level(re.Levels[j].Concurrency); ok {
				re.Levels[j].Server = sv.Report()
			}
		}
		re.ServerMetrics = ep.server.status.URL // "" when nothing is scraped
		re.RampEnd = ep.rampEnd(r.Interrupted)
		re.Diagnosis, re.Diagnosed = e.Findings(i), true
		if ep.end.Kind == EndStopped && ep.walk == nil {
			for j := range re.Levels {
				re.Levels[j].Stopped = re.Levels[j].Concurrency == ep.end.Users
			}
		}
		if e.done { // the run is over: a level it left unfinished is no longer being measured
			for j := range re.Levels {
				re.Levels[j].Open = false
			}
		}
		e.traceLevels(&re)
		re.SetClaims(&r.Settings, r.Interrupted) // with the run's level rule
		r.Endpoints = append(r.Endpoints, re)
	}
	r.Settings.Trace = e.traceSettings(r)
	return r
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
