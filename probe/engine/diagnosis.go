package engine

import (
	"math"
	"slices"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// diagState is one endpoint's diagnosis: its ended requests (model.DiagRecorder), the
// findings of the latest second, and every finding the run has seen, with when it
// first and last held.
type diagState struct {
	rec   *model.DiagRecorder
	now   []model.Finding           // the latest second's findings, most telling first
	run   map[string]*model.Finding // the run's findings by kind (words as they told most: Finding.Outweighs)
	gone  map[string]time.Time      // when each finding of run last stopped holding
	fatal bool                      // every recent request was refused for good (401/403/404)
}

func newDiagState() diagState {
	return diagState{rec: model.NewDiagRecorder(), run: map[string]*model.Finding{}, gone: map[string]time.Time{}}
}

// reset forgets the requests and the live findings (the screen's clear); the run's
// findings stay: what held before the clear still held.
func (d *diagState) reset() {
	d.rec.Reset()
	d.now, d.fatal = nil, false
}

// diagnose diagnoses endpoint i at now and appends a Diagnosed notice for each finding
// that first holds (or holds again after a minute without).
func (e *Engine) diagnose(i int, now time.Time, out []Notice) []Notice {
	ep := e.eps[i]
	v := ep.server
	d := &v.diag
	in := e.diagInput(ep, now)
	d.now = e.shardFindings(model.Diagnose(in))
	d.fatal = model.Fatal(in.Requests)
	start := e.t0
	at := math.Round(max(now.Sub(start).Seconds(), 0)*10) / 10
	for _, f := range d.now {
		g, seen := d.run[f.Rule]
		if !seen {
			g = &model.Finding{FirstS: at}
			d.run[f.Rule] = g
		}
		gone, wasGone := d.gone[f.Rule]
		if !seen || wasGone && now.Sub(gone) >= diagRepeat {
			out = append(out, Notice{Kind: Diagnosed, Endpoint: i, Name: ep.info.Name, Text: f.Text, Rule: f.Rule, Severity: f.Severity})
		}
		delete(d.gone, f.Rule)
		first := g.FirstS
		if !seen || g.Outweighs(f) {
			*g = f
		}
		g.FirstS, g.LastS = first, at
	}
	for kind := range d.run {
		if _, held := d.gone[kind]; !held && !slices.ContainsFunc(d.now, func(f model.Finding) bool { return f.Rule == kind }) {
			d.gone[kind] = now
		}
	}
	return out
}

// diagInput is endpoint ep's diagnosis input at now: its live seconds, its server's
// series (while the server answers), its ended requests, first tokens and outages,
// tpsmon's own load.
func (e *Engine) diagInput(ep *endpoint, now time.Time) model.DiagInput {
	v := ep.server
	buckets := ep.book.Buckets(int(diagWindow / time.Second))
	v.updateBase(buckets)
	var points []model.ServerPoint
	if v.status.State == ServerUp { // a server down or without metrics says nothing of now
		points = v.series.Points()
	}
	cores := e.self.Cores
	if e.self.WithSim {
		cores = 0 // the CPU figure holds the simulator's: the rule would blame tpsmon for it
	}
	in := model.DiagWindow(buckets, points, diagWindow, v.base, e.self.CPU, cores)
	in.Sched = e.heldSched()
	rec := v.diag.rec
	in.Now, in.Start = now, e.t0
	in.Requests = rec.Since(now.Add(-diagWindow))
	in.Firsts = rec.FirstsSince(now.Add(-diagWindow))
	if o, _ := rec.Outage(now); o.Failed > 0 {
		in.Outage = &o
	}
	in.Ended, in.Answers, in.OKs = rec.Ended()
	in.Model, in.Served = ep.ep.Model, ep.ep.Served
	in.ErrorRateMax = e.cfg.SLO.ErrorRateMax
	in.Preempted = v.preempted
	return in
}

// Diagnosis is what the diagnosis says of endpoint i at the latest second, most
// telling first (none when nothing is wrong).
func (e *Engine) Diagnosis(i int) []model.Finding { return e.eps[i].server.diag.now }

// Findings is every finding of endpoint i's run so far, most telling first: each with
// when it first and last held (seconds since the run started) and its words from the
// holding that told most (model.Finding.Outweighs: a queue at its longest); an outage is told in the past tense once it ended, one finding per outage;
// once the load ended for good, failures to reach the server in a row too brief for an
// outage that the run ended on (model.StoppedAtEnd).
func (e *Engine) Findings(i int) []model.Finding {
	d := &e.eps[i].server.diag
	var out []model.Finding
	for kind, f := range d.run {
		if kind != model.DiagDown {
			out = append(out, *f)
		}
	}
	ended, _, _ := d.rec.Ended()
	var current *model.Outage
	o, holds := d.rec.Outage(e.diagAt)
	if holds {
		current = &o
	}
	out = append(out, model.OutageFindings(e.t0, e.diagAt, ended, current)...)
	if f, ok := model.StoppedAtEnd(e.t0, e.diagAt, o); ok && e.done {
		out = append(out, f) // the run ended as its requests stopped reaching the server
	}
	if f, ok := d.run[model.DiagDown]; ok && len(ended) == 0 && current == nil {
		out = append(out, *f) // an outage forgotten by the screen's clear
	}
	model.RankFindings(out)
	return out
}

// stoppedNotices are the Diagnosed notices, once the load ended for good, of the
// endpoints whose last requests failed to reach the server too briefly for an outage
// (model.StoppedAtEnd): bench says them as it says every finding as it first holds.
func (e *Engine) stoppedNotices() []Notice {
	var out []Notice
	for i, ep := range e.eps {
		o, _ := ep.server.diag.rec.Outage(e.diagAt)
		if f, ok := model.StoppedAtEnd(e.t0, e.diagAt, o); ok {
			out = append(out, Notice{Kind: Diagnosed, Endpoint: i, Name: ep.info.Name, Text: f.Text, Rule: f.Rule, Severity: f.Severity})
		}
	}
	return out
}

// Retry loads endpoint i again after it was stopped (a pause): its recent requests are
// forgotten, so that it is judged fatal again only once new requests are refused.
func (e *Engine) Retry(i int) {
	ep := e.eps[i]
	ep.server.diag.rec.Reset()
	ep.server.diag.now, ep.server.diag.fatal = nil, false
	ep.ctl.Resume()
}

// Fatal reports whether every recent request of endpoint i (at least 5 over the last
// 30 s) was refused for good (HTTP 401, 403 or 404), as of the latest second: loading
// it more only adds failures.
func (e *Engine) Fatal(i int) bool { return e.eps[i].server.diag.fatal }

// schedHold is how many readings in a row a scheduling delay must last for the
// diagnosis to read it: one slow second (a busy machine's blip) is not tpsmon as the
// limit.
const schedHold = 3

// heldSched is the scheduling delay that held over the latest schedHold readings (the
// lowest of them), 0 before there were as many.
func (e *Engine) heldSched() time.Duration {
	if len(e.scheds) < schedHold {
		return 0
	}
	return slices.Min(e.scheds)
}

// preemptRate is the preemptions per second over the last 5 points with a counter rate.
func preemptRate(points []model.ServerPoint) float64 {
	var pre, span float64
	n := 0
	for k := len(points) - 1; k > 0 && n < 5; k-- {
		p := points[k]
		if !p.Rate || !p.Has.Has(model.SigPreemptions) {
			continue
		}
		pre += p.Preempted
		span += p.Time.Sub(points[k-1].Time).Seconds()
		n++
	}
	if span <= 0 {
		return 0
	}
	return pre / span
}
