package timeseries

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// Writer writes the time series as the run goes. It is a engine.Observer: on every live
// tick of an endpoint it writes that endpoint's line in one Write call (nothing is kept
// back in the process), so a crash or Ctrl-C loses at most the line being written. It
// does no other work per event: it is cheap enough for the engine's goroutine.
type Writer struct {
	w      io.Writer
	t0     time.Time
	eps    map[int]*epState
	server func(endpoint int) (model.ServerPoint, bool)
	lines  int
	err    error
	buf    bytes.Buffer  // one line, encoded
	enc    *json.Encoder // into buf, with <, > and & as they are (said's "errors 30% > 5%")
}

// epState is what the previous line of one endpoint said, to write what changed.
type epState struct {
	seg      model.Segment
	requests int
	errs     map[model.ErrorKind]int
	levels   map[levelKey]levelMark
	sloSent  bool   // the criteria (and the recorded keys) went out on a line
	said     []Said // notices heard since the previous line
	// The latest line's time, elapsed seconds and target (the End line repeats them).
	lastT      string
	lastS      float64
	lastTarget int
}

// levelKey is a level of one mode: users, or an arrival rate (the book keeps both apart).
type levelKey struct {
	rate bool
	n    int
}

// levelMark is what a level showed at the previous line.
type levelMark struct {
	requests, steady     int
	open, short, stopped bool
	dur                  time.Duration
	undecided            string // the criteria it stayed undecided on, joined
	refined              bool
}

var _ engine.NoticeObserver = (*Writer)(nil)

// NewWriter writes the time series to w (a file opened for appending or truncated).
func NewWriter(w io.Writer) *Writer {
	wr := &Writer{w: w, eps: map[int]*epState{}}
	wr.enc = json.NewEncoder(&wr.buf)
	wr.enc.SetEscapeHTML(false)
	return wr
}

// SetServer gives the writer the server's newest per-second point of an endpoint (its
// /metrics, when scraped); lines then carry a server object. Call it before the run.
func (w *Writer) SetServer(f func(endpoint int) (model.ServerPoint, bool)) { w.server = f }

// Lines is the number of lines written.
func (w *Writer) Lines() int { return w.lines }

// Err is the first write error; the writer stops writing after it.
func (w *Writer) Err() error { return w.err }

// Observe keeps the newest segment of each endpoint and writes a line on each tick.
func (w *Writer) Observe(e *engine.Engine, ev *probe.Event) {
	switch {
	case ev.Segment != nil:
		w.state(ev.Endpoint).seg = *ev.Segment
	case ev.Tick != nil && w.err == nil:
		if w.t0.IsZero() {
			w.t0 = ev.Tick.Start
		}
		l := w.line(e, ev.Endpoint, ev.Tick)
		if w.write(l) == nil {
			st := w.state(ev.Endpoint)
			st.lastT, st.lastS, st.lastTarget = l.Time, l.ElapsedS, l.TargetUsers
		}
	}
}

// End writes, once the run is over, each endpoint's End line: what the run's judgement
// (rep's, model.JudgeEndpoint, as bench's Markdown and the reports judge it) said of its
// diagnosis, so that replay ends on the run's diagnosis, not on its last second's.
func (w *Writer) End(rep *model.Report) {
	if rep == nil || w.err != nil {
		return
	}
	for i := range rep.Endpoints {
		st, ok := w.eps[i]
		if !ok {
			continue // no line of it was written
		}
		j := model.JudgeEndpoint(&rep.Settings, &rep.Endpoints[i], rep.Interrupted, false)
		l := &Line{Schema: Schema, Time: st.lastT, ElapsedS: st.lastS, Endpoint: rep.Endpoints[i].Name, Index: i,
			TargetUsers: st.lastTarget, End: true, RunDiagnosis: []Told{}}
		for _, d := range j.Diagnosis {
			l.RunDiagnosis = append(l.RunDiagnosis, Told{Kind: d.Kind, Severity: d.Severity, Words: d.Text, Evidence: d.Evidence, Held: d.Held})
		}
		if w.write(l) != nil {
			return
		}
	}
}

// write writes line l; the first error stops the writer.
func (w *Writer) write(l *Line) error {
	w.buf.Reset()
	err := w.enc.Encode(l) // ends the line with '\n'
	if err == nil {
		_, err = w.w.Write(w.buf.Bytes())
	}
	if err != nil {
		w.err = err
		return err
	}
	w.lines++
	return nil
}

// ObserveNotice keeps what the live screen's status line says of an endpoint (or of
// every endpoint) for its next line.
func (w *Writer) ObserveNotice(e *engine.Engine, n engine.Notice) {
	if !n.Shown() {
		return
	}
	s := Said{Text: n.String(), Warning: n.Bad(), Shorter: n.Shorter}
	for i := range e.Len() {
		if n.Endpoint < 0 || n.Endpoint == i {
			st := w.state(i)
			st.said = append(st.said, s)
		}
	}
}

func (w *Writer) state(i int) *epState {
	s := w.eps[i]
	if s == nil {
		s = &epState{levels: map[levelKey]levelMark{}}
		w.eps[i] = s
	}
	return s
}

// line is endpoint i's line for the bucket the tick tk made.
func (w *Writer) line(e *engine.Engine, i int, tk *model.Tick) *Line {
	book, ctl, info, st := e.Book(i), e.Control(i), e.Info(i), w.state(i)
	live := book.Live() // the bucket tk made (the engine handed it to the book already)
	end := tk.End
	if end.Before(tk.Start) {
		end = tk.Start
	}
	l := &Line{
		Schema: Schema, Time: end.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		ElapsedS: round(end.Sub(w.t0).Seconds(), 3), WidthS: round(end.Sub(tk.Start).Seconds(), 6),
		Endpoint: info.Name, Index: i, Model: info.Model, Simulated: info.Simulated,
		TargetUsers: tk.Target, Active: tk.Active, Paused: tk.Paused,
		AggregateTPS: round(live.AggregateTPS, 2), Started: tk.Started, Finished: tk.Finished,
		TokenSource: book.TokenSource(), Capacity: book.Capacity(),
		TargetUserTPS: e.SLO().UserTPSMin,
		Steady:        st.seg.Open && !st.seg.SteadyAt.IsZero() && st.seg.Concurrency == ctl.Concurrency(),
		Interrupted:   e.Interrupted(),
	}
	if info.API != "" && info.API != "chat" {
		l.API = info.API
	}
	trace := e.TraceMode() // a trace's windows are no rates, and have no capacity
	if trace {
		l.Capacity = 0
	}
	if e.RateMode() && !trace {
		l.TargetRate, l.CapacityRate = iptr(tk.Target), iptr(l.Capacity)
	}
	if b := book.Buckets(1); len(b) == 1 && b[0].HasUser {
		l.UserTPS, l.UserCarried = ptr(round(b[0].UserTPS, 2)), b[0].UserCarried
	}
	if live.HasTTFT {
		l.TTFTP50, l.TTFTP95 = ms(live.TTFTP50), ms(live.TTFTP95)
	}
	if l.Reasoning = live.Reasoning; live.Reasoning && live.HasTTFO {
		l.TTFOP50, l.TTFOP95 = ms(live.TTFOP50), ms(live.TTFOP95)
	}
	if !st.sloSent {
		slo := e.SLO().Report()
		l.SLO, l.MinRequests, l.Trace, l.Recorded, l.Host, st.sloSent = &slo, e.Settings().MinRequests, e.Trace(), RecordedKeys, e.Host(i), true
	}
	l.Said, st.said = st.said, nil
	if p, ok := e.Status(i, end); ok {
		l.Ramp = &Ramp{Level: p.Index + 1, Levels: p.Levels, Users: p.Users, Steady: p.Steady, Need: p.Need,
			Warming: p.Warming, LeftS: round(p.Left.Seconds(), 1), MaxLeftS: round(p.MaxLeft.Seconds(), 1)}
		if e.RateMode() && !trace {
			l.Ramp.Rate = iptr(p.Users)
		}
	}
	if p, ok := w.serverPoint(e, i); ok && end.Sub(p.Time) <= serverFresh {
		l.Server = ServerOf(p)
		ss := e.Server(i)
		l.Server.Kind = ss.Kind
		if p.Rate && p.Has.Has(model.SigPreemptions) {
			l.Server.PreemptPerS, l.Server.PreemptedTotal = ptr(round(ss.PreemptPerS, 2)), ptr(ss.Preempted)
		}
	}
	l.Self = selfOf(e.Self())
	l.Diagnosis = e.Diagnosis(i)
	w.totals(l, book, st)
	stopped, ok := e.StoppedLevel(i, e.RateMode())
	if !ok {
		stopped = -1
	}
	w.levels(l, book.Levels(), e.RateMode(), stopped, st, trace)
	return l
}

// totals sets the line's totals, the errors since the previous line and the newest
// failure's message, and notices a clear.
func (w *Writer) totals(l *Line, book engine.Book, st *epState) {
	req, ok, errs := book.Totals()
	delete(errs, model.ErrCanceled)
	l.Requests, l.Succeeded = req, ok
	if len(errs) > 0 {
		l.ErrorsTotal = errs
	}
	if req < st.requests {
		l.Cleared = true
		st.errs = nil
		clear(st.levels)
	}
	for k, n := range errs {
		if d := n - st.errs[k]; d > 0 {
			if l.Errors == nil {
				l.Errors = map[model.ErrorKind]int{}
			}
			l.Errors[k] = d
		}
	}
	st.requests, st.errs = req, maps.Clone(errs)
	l.LastError, _ = book.LastError()
}

// levels adds the levels of the mode in use (rate) that changed since the previous line.
// A switch of mode clears nothing: each mode keeps its levels (a line's level says its
// mode by its rate).
// stopped is the level a stop rule ended (-1: none).
func (w *Writer) levels(l *Line, levels []model.LevelStats, rate bool, stopped int, st *epState, trace bool) {
	marked := 0
	for k := range st.levels {
		if k.rate == rate {
			marked++
		}
	}
	if len(levels) < marked && !l.Cleared {
		l.Cleared = true // a clear with no request since (the totals did not go down)
		clear(st.levels)
	}
	for i := range levels {
		ls := &levels[i]
		mark := levelMark{requests: ls.Requests, steady: ls.Steady, open: ls.Open, short: ls.Short,
			stopped: ls.Concurrency == stopped, dur: ls.Duration, undecided: strings.Join(ls.Undecided, ","), refined: ls.Refined}
		key := levelKey{rate: rate, n: ls.Concurrency}
		if old, ok := st.levels[key]; ok && old == mark {
			continue
		}
		st.levels[key] = mark
		lv := LevelOf(ls)
		lv.Stopped = mark.stopped
		if l.TargetRate != nil { // rate mode: a level with no request yet does not know it is a rate
			lv.Rate = iptr(ls.Concurrency)
		}
		if trace { // a window of the trace, its number in users
			lv.Rate = nil
		}
		l.Levels = append(l.Levels, lv)
	}
}

// LevelOf is a level's row as a Line carries it.
func LevelOf(ls *model.LevelStats) Level {
	lv := Level{
		Users: ls.Concurrency, Open: ls.Open, Short: ls.Short, Requests: ls.Requests, Succeeded: ls.Succeeded,
		SteadyRequests: ls.Steady, Cooldown: ls.Cooldown, ErrorRate: round(ls.ErrorRate, 6), SteadyS: round(ls.Duration.Seconds(), 3),
		AggregateTPS: round(ls.AggregateTPS, 2),
	}
	if ls.OpenLoop {
		lv.Rate = iptr(ls.Concurrency)
		if w := ls.Wait; w.Arrivals > 0 {
			lv.Arrivals, lv.Late, lv.Capped, lv.WaitMaxMs = w.Arrivals, w.Late, w.Capped, ptr(round(w.Max, 2))
		}
	}
	if ls.UserTPS.Count > 0 {
		lv.UserTPSP50, lv.UserTPSP10 = ptr(round(ls.UserTPS.P50, 2)), ptr(round(ls.UserTPS.P10, 2))
	}
	if ls.TTFT.Count > 0 {
		lv.TTFTP50, lv.TTFTP95 = ptr(round(ls.TTFT.P50, 3)), ptr(round(ls.TTFT.P95, 3))
	}
	if ls.TTFO.Count > 0 {
		lv.TTFOP50, lv.TTFOP95 = ptr(round(ls.TTFO.P50, 3)), ptr(round(ls.TTFO.P95, 3))
	}
	if ls.CI != (model.LevelCI{}) {
		ci := ls.CI.Rounded()
		lv.CI95 = &ci
	}
	lv.Undecided, lv.Refined = ls.Undecided, ls.Refined
	return lv
}

func iptr(n int) *int { return &n }

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) *float64 { return ptr(round(float64(d)/float64(time.Millisecond), 3)) }

// serverFresh is how old the server's newest scrape may be to go into a line: a server
// that stopped answering has no server object rather than its last figures.
const serverFresh = 3 * time.Second

// serverPoint is endpoint i's newest server scrape: from SetServer's function when one was
// given, else from the engine's own scrapes.
func (w *Writer) serverPoint(e *engine.Engine, i int) (model.ServerPoint, bool) {
	if w.server != nil {
		return w.server(i)
	}
	return e.ServerLast(i)
}

// selfOf is tpsmon's own load as a line records it (nil before it is known).
func selfOf(u engine.SelfUse) *Self {
	if !u.Known {
		return nil
	}
	return &Self{CPUPct: round(100*u.CPU, 1), Cores: u.Cores, SchedMs: round(float64(u.Sched)/float64(time.Millisecond), 3), WithSim: u.WithSim}
}
