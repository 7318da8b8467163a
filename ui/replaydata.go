package ui

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output/timeseries"
	"github.com/tpsmon/tpsmon/probe/selfwatch"
)

// replayHistory bounds the buckets replay keeps per endpoint (the live screen's too).
const replayHistory = model.DefaultHistory

// replayEndpoint is one endpoint as the recorded lines so far show it: what the live
// screen reads from the run engine, rebuilt from the time series.
type replayEndpoint struct {
	name, model    string
	api            string // the endpoint's API when it is not chat
	host           string // host[:port] of its URL, from its first line ("" in older recordings)
	simulated      bool
	rate           bool                           // rate mode: the levels and the target are arrival rates (requests/s)
	buckets        []model.Bucket                 // oldest first
	levels         map[replayKey]model.LevelStats // the levels of both modes: levelList reads those of the mode shown
	stopped        map[bool]int                   // per mode (rate), the level a stop rule ended, as recorded
	target         int
	active         int
	paused         bool
	requests, ok   int
	errors         map[model.ErrorKind]int
	lastErr        string
	tokenSource    string
	ramp           *timeseries.Ramp
	targetUserTPS  float64
	elapsed        time.Duration
	slo            *model.ReportSLO   // the criteria, from the endpoint's first line (nil: older recordings)
	minRequests    int                // the level rule's floor, from the same line (0: a fixed schedule, or an older recording)
	trace          *model.ReportTrace // a trace run's trace, from its first line: the levels are its windows
	reasoning      bool               // a request sent reasoning first: TTFO beside TTFT
	ttfo50, ttfo95 time.Duration
	hasTTFO        bool
	server         *timeseries.Server // the server's view of the newest line (nil: not scraped)
	findings       []model.Finding    // the diagnosis of the newest line
	seen           []model.Finding    // every kind of finding the lines so far held, as it told most (Finding.Outweighs)
	errWin         errorWindow        // the error totals of the last minute's lines, for the status's ranking
	self           *timeseries.Self   // tpsmon's own load at the newest line (nil: not known)
	interrupted    bool               // a line so far said the run was interrupted
	told           []model.Statement  // the run's diagnosis from its End line (nil: not reached, or an older recording)
}

// replayKey is a recorded level of one mode: users, or an arrival rate.
type replayKey struct {
	rate bool
	n    int
}

func newReplayEndpoint() *replayEndpoint {
	return &replayEndpoint{levels: map[replayKey]model.LevelStats{}, stopped: map[bool]int{}}
}

// apply takes one recorded line of this endpoint.
func (r *replayEndpoint) apply(l *timeseries.Line) {
	if l.End { // no bucket: the run's judgement, once it was over
		r.told = make([]model.Statement, 0, len(l.RunDiagnosis))
		for _, t := range l.RunDiagnosis {
			r.told = append(r.told, t.Statement())
		}
		return
	}
	r.name, r.model, r.api, r.simulated, r.rate = l.Endpoint, l.Model, l.API, l.Simulated, l.TargetRate != nil
	if l.Trace != nil {
		r.trace = l.Trace
	}
	if l.Cleared {
		clear(r.levels)
		clear(r.stopped)
	}
	r.buckets = append(r.buckets, bucketOf(l))
	if n := len(r.buckets); n > replayHistory {
		r.buckets = slices.Delete(r.buckets, 0, n-replayHistory)
	}
	for i := range l.Levels {
		lv := &l.Levels[i]
		k := replayKey{rate: lv.Rate != nil, n: lv.Users}
		r.levels[k] = levelStatsOf(lv)
		if lv.Stopped {
			r.stopped[k.rate] = k.n
		} else if r.stopped[k.rate] == k.n {
			delete(r.stopped, k.rate)
		}
	}
	r.target, r.active, r.paused = l.TargetUsers, l.Active, l.Paused
	r.requests, r.ok, r.errors = l.Requests, l.Succeeded, maps.Clone(l.ErrorsTotal)
	if l.Cleared {
		r.errWin.Reset()
	}
	r.errWin.Add(l.At(), r.errors)
	r.lastErr = l.LastError
	r.tokenSource, r.ramp, r.targetUserTPS = l.TokenSource, l.Ramp, l.TargetUserTPS
	r.elapsed = time.Duration(l.ElapsedS * float64(time.Second))
	if l.SLO != nil {
		r.slo, r.minRequests = l.SLO, l.MinRequests
	}
	r.reasoning = r.reasoning || l.Reasoning
	r.interrupted = r.interrupted || l.Interrupted
	r.hasTTFO = l.TTFOP50 != nil && l.TTFOP95 != nil
	if r.hasTTFO {
		r.ttfo50, r.ttfo95 = msDur(*l.TTFOP50), msDur(*l.TTFOP95)
	}
	r.server, r.findings, r.self = l.Server, l.Diagnosis, l.Self
	for _, f := range l.Diagnosis {
		if k := slices.IndexFunc(r.seen, func(g model.Finding) bool { return g.Rule == f.Rule }); k >= 0 {
			if r.seen[k].Outweighs(f) {
				r.seen[k] = f
			}
		} else {
			r.seen = append(r.seen, f)
		}
	}
}

// serverData is the recorded server view, tpsmon's own load and the diagnosis as the
// server panel shows them; diagnosed is whether the recording holds the diagnosis (an
// older one does not: its panel says so rather than that nothing was wrong).
func (r *replayEndpoint) serverData(diagnosed bool) serverData {
	d := serverData{Findings: r.findings, Requests: r.requests, Failed: sumKinds(r.errWin.Recent(r.errors)),
		Status:     engine.ServerStatus{State: engine.ServerOff},
		Unrecorded: !diagnosed, Told: r.told}
	if u := r.self; u != nil {
		d.Self.Use = selfwatch.Use{CPU: u.CPUPct / 100, Cores: u.Cores, Sched: msDur(u.SchedMs), Known: true}
		d.Self.WithSim = u.WithSim
	}
	if s := r.server; s != nil {
		p := model.ServerPoint{}
		set := func(v *float64, dst *float64, sig model.ServerSignal) {
			if v != nil {
				*dst, p.Has = *v, p.Has|sig
			}
		}
		set(s.Running, &p.Running, model.SigRunning)
		set(s.Waiting, &p.Waiting, model.SigWaiting)
		if s.KVPct != nil {
			p.KV, p.Has = *s.KVPct/100, p.Has|model.SigKV
		}
		if s.GenTPS != nil {
			p.GenTPS, p.Rate, p.Has = *s.GenTPS, true, p.Has|model.SigGenerated
		}
		kind := s.Kind
		if kind == "" {
			kind = "metrics" // an older recording: which server it was is not recorded
		}
		d.Status = engine.ServerStatus{State: engine.ServerUp, Kind: kind, HasLast: true, Last: p}
		if s.PreemptPerS != nil && s.PreemptedTotal != nil && p.Rate {
			p.Has |= model.SigPreemptions
			d.Status.Last, d.Status.PreemptPerS, d.Status.Preempted = p, *s.PreemptPerS, *s.PreemptedTotal
		}
	}
	return d
}

// bucketOf is a line's live bucket.
func bucketOf(l *timeseries.Line) model.Bucket {
	width := time.Duration(l.WidthS * float64(time.Second))
	b := model.Bucket{
		Start: l.At().Add(-width), Width: width, AggregateTPS: l.AggregateTPS,
		Active: l.Active, Target: l.TargetUsers, Started: l.Started, Finished: l.Finished,
	}
	if l.UserTPS != nil {
		b.UserTPS, b.HasUser, b.UserCarried = *l.UserTPS, true, l.UserCarried
	}
	if l.TTFTP50 != nil && l.TTFTP95 != nil {
		b.TTFTP50, b.TTFTP95, b.HasTTFT = msDur(*l.TTFTP50), msDur(*l.TTFTP95), true
	}
	for _, n := range l.Errors {
		b.Errors += n
	}
	return b
}

// levelStatsOf is a recorded level as the table and the curve read it (the recorded
// quantiles only: the distributions' other fields are zero).
func levelStatsOf(lv *timeseries.Level) model.LevelStats {
	ls := model.LevelStats{
		Concurrency: lv.Users, Requests: lv.Requests, Succeeded: lv.Succeeded, Steady: lv.SteadyRequests,
		Cooldown:  lv.Cooldown,
		ErrorRate: lv.ErrorRate, Duration: time.Duration(lv.SteadyS * float64(time.Second)),
		AggregateTPS: lv.AggregateTPS, Open: lv.Open, Short: lv.Short, OpenLoop: lv.Rate != nil || lv.Arrivals > 0,
		Undecided: lv.Undecided, Refined: lv.Refined,
	}
	if lv.CI95 != nil {
		ls.CI = *lv.CI95
	}
	if lv.Arrivals > 0 {
		ls.Wait = model.WaitStats{Arrivals: lv.Arrivals, Late: lv.Late, Capped: lv.Capped}
		if lv.WaitMaxMs != nil {
			ls.Wait.Max = *lv.WaitMaxMs
		}
	}
	n := max(lv.SteadyRequests, 1)
	if lv.UserTPSP50 != nil {
		ls.UserTPS = model.Dist{Count: n, P50: *lv.UserTPSP50}
		if lv.UserTPSP10 != nil {
			ls.UserTPS.P10 = *lv.UserTPSP10
		}
	}
	if lv.TTFTP50 != nil && lv.TTFTP95 != nil {
		ls.TTFT = model.Dist{Count: n, P50: *lv.TTFTP50, P95: *lv.TTFTP95}
	}
	if lv.TTFOP50 != nil && lv.TTFOP95 != nil {
		ls.TTFO = model.Dist{Count: n, P50: *lv.TTFOP50, P95: *lv.TTFOP95}
	}
	return ls
}

// judge is the recorded levels' judgement, as the live screen said it (the criteria of
// the recording's first line; the default ones for an older recording without them).
func (r *replayEndpoint) judge() model.EndpointJudgement {
	s := model.ReportSettings{MinRequests: r.minRequests}
	if r.slo != nil {
		s.SLO = *r.slo
	}
	if r.rate {
		s.Mode = "rate"
	}
	if r.trace != nil {
		s.Mode, s.Trace = "trace", r.trace
	}
	e := model.ReportEndpoint{Name: r.name, Levels: model.ReportLevels(r.levelList())}
	if n, ok := r.stopped[r.rate]; ok { // as the live screen marks it (engine.MarkStopped)
		for j := range e.Levels {
			e.Levels[j].Stopped = e.Levels[j].Concurrency == n
		}
	}
	if r.interrupted {
		e.RampEnd = model.RampEndInterrupted
	}
	return model.JudgeEndpoint(&s, &e, r.interrupted, r.ramp != nil)
}

// levelList is the levels of the mode shown (rate levels in rate mode), in increasing
// users or rate.
func (r *replayEndpoint) levelList() []model.LevelStats {
	out := make([]model.LevelStats, 0, len(r.levels))
	var ns []int
	for k := range r.levels {
		if k.rate == r.rate {
			ns = append(ns, k.n)
		}
	}
	slices.Sort(ns)
	for _, c := range ns {
		out = append(out, r.levels[replayKey{rate: r.rate, n: c}])
	}
	return out
}

// live is the newest bucket's values.
func (r *replayEndpoint) live() model.Live {
	if len(r.buckets) == 0 {
		return model.Live{}
	}
	b := r.buckets[len(r.buckets)-1]
	return model.Live{At: b.Start.Add(b.Width), AggregateTPS: b.AggregateTPS, UserTPS: b.UserTPS, HasUser: b.HasUser,
		TTFTP50: b.TTFTP50, TTFTP95: b.TTFTP95, HasTTFT: b.HasTTFT, Active: b.Active, Target: b.Target,
		Reasoning: r.reasoning, TTFOP50: r.ttfo50, TTFOP95: r.ttfo95, HasTTFO: r.hasTTFO}
}

// newest is up to n newest buckets, oldest first.
func (r *replayEndpoint) newest(n int) []model.Bucket {
	return r.buckets[max(len(r.buckets)-n, 0):]
}

// rampText is the recorded ramp state as the live screen's header words it.
func (r *replayEndpoint) rampText() string {
	p := r.ramp
	if p == nil {
		return ""
	}
	at := engine.LevelWord(r.rate, p.Users)
	if r.trace != nil { // the header is short of room: the table names its span
		at = "window " + strconv.Itoa(p.Users)
	}
	s := fmt.Sprintf("%d/%d at %s, %d/%d requests", p.Level, p.Levels, at, p.Steady, p.Need)
	switch {
	case p.Warming:
		return s + ", warming up"
	case p.LeftS > 0:
		return s + fmt.Sprintf(", %ds left", int(p.LeftS+0.999))
	}
	return s + ", up to " + (time.Duration(p.MaxLeftS) * time.Second).String()
}

// progress is the recorded ramp level as the table shows it (zero without a ramp).
func (r *replayEndpoint) progress() levelProgress {
	p := r.ramp
	if p == nil {
		return levelProgress{}
	}
	return levelProgress{Users: p.Users, Steady: p.Steady, Need: p.Need, Warming: p.Warming,
		Left: time.Duration(p.LeftS * float64(time.Second)), MaxLeft: time.Duration(p.MaxLeftS * float64(time.Second))}
}

func msDur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
