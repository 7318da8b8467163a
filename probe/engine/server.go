package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/selfwatch"
	"github.com/tpsmon/tpsmon/probe/servermetrics"
)

// ServerMetricsOff, as an entry of Config.ServerMetrics, scrapes no /metrics for that
// endpoint.
const ServerMetricsOff = "off"

// FieldServerMetrics names the metrics URL in a *client.FieldError.
const FieldServerMetrics = "server_metrics"

// diagEvery is how often Step reads tpsmon's own load and diagnoses every endpoint;
// diagWindow is the span of live seconds the diagnosis reads.
const (
	diagEvery  = time.Second
	diagWindow = 30 * time.Second
	// diagRepeat is how long a finding must have stopped holding before it is said
	// again (Diagnosed notice) when it holds again.
	diagRepeat = time.Minute
)

// ServerState is where the scrapes of an endpoint's /metrics stand.
type ServerState int

// The states of an endpoint's server view.
const (
	ServerOff         ServerState = iota // no scraping (off, or an engine without scrapers)
	ServerWaiting                        // scraping, no answer yet
	ServerUp                             // the latest scrape answered
	ServerUnavailable                    // the scrapes fail (404, not Prometheus text, ...)
	ServerDown                           // the server answered before and now does not (refused, timeout)
)

// ServerStatus is the server's own view of one endpoint as of the latest scrape.
type ServerStatus struct {
	State   ServerState
	URL     string // the metrics URL, as it may be printed
	Kind    string // vLLM, SGLang, TGI, llama.cpp ("" before the first good scrape)
	Reason  string // why the scrapes fail (Unavailable, Down)
	Last    model.ServerPoint
	HasLast bool // Last is a point of the current series (since start or Reset)
	// PreemptPerS is the preemptions per second over the last 5 scrapes (with a
	// counter rate); Preempted the preemptions since the run started (or the screen's
	// clear). Both 0 when the server counts none.
	PreemptPerS, Preempted float64
}

// ServerUpdate is one report of an endpoint's scraper, for HandleServer.
type ServerUpdate struct {
	Endpoint int
	servermetrics.Update
}

// SelfUse is tpsmon's own load, as the diagnosis reads it.
type SelfUse struct {
	selfwatch.Use
	// WithSim is set when the built-in simulator runs in tpsmon's process: the CPU
	// figure then includes the simulator's, and the CPU rule is off.
	WithSim bool
}

// serverView is one endpoint's server metrics and diagnosis state in the engine.
type serverView struct {
	status ServerStatus
	seen   bool // a scrape answered once
	series *model.ServerSeries
	seg    model.Segment // the pool's newest segment state: the level scrapes count in
	base   time.Duration // the lowest per-second TTFT p50 seen: TTFT at low load
	baseAt time.Time     // the newest bucket read for base
	diag   diagState     // the diagnosis (diagnosis.go)
	// preempted is the preemptions the server counted since the run started (or the
	// screen's clear); recent the latest points' preemptions, for the per-second rate.
	preempted float64
}

func newServerView() *serverView {
	return &serverView{series: model.NewServerSeries(), diag: newDiagState()}
}

// level is the level a scrape now counts in (serverKey): the pool's open segment once it
// is steady and not paused; 0 in warm-up, pauses and between segments.
func (v *serverView) level(paused bool) int {
	if paused || !v.seg.Open || v.seg.SteadyAt.IsZero() {
		return 0
	}
	return serverKey(v.seg.OpenLoop, v.seg.Concurrency)
}

// serverKey is the key of a level in the server series: its users, or for a rate level
// its rate above MaxUsers (a rate is at most MaxUsers too), so that 2 users and 2
// requests/s are two levels.
func serverKey(rate bool, n int) int {
	if rate && n > 0 {
		return MaxUsers + n
	}
	return n
}

// onSegment keeps the pool's newest segment (a late state of an older one is ignored).
func (v *serverView) onSegment(s model.Segment) {
	if s.ID >= v.seg.ID {
		v.seg = s
	}
}

// HandleServer hands one scraper report to its endpoint's server series. It returns a
// notice when the scrapes' state changed (said once: metrics found, not available,
// server down, server back).
func (e *Engine) HandleServer(u ServerUpdate) (said Notice, ok bool) {
	defer func() {
		if ok {
			e.announce(said)
		}
	}()
	if u.Endpoint < 0 || u.Endpoint >= len(e.eps) {
		return Notice{}, false
	}
	ep := e.eps[u.Endpoint]
	v := ep.server
	st := &v.status
	n := Notice{Kind: ServerNote, Endpoint: u.Endpoint, Name: ep.info.Name}
	if u.Err != nil {
		var se *servermetrics.Error
		st.Reason = u.Err.Error()
		down := false
		if errors.As(u.Err, &se) {
			st.Reason, st.URL = se.Reason, se.URL
			down = v.seen && (se.Kind == servermetrics.ErrUnreachable || se.Kind == servermetrics.ErrTimeout)
		}
		st.State, n.Kind = ServerUnavailable, ServerTrouble
		n.Text = u.Notice
		if down {
			st.State = ServerDown
			n.Text = "server down: " + st.URL + ": " + st.Reason
		}
		return n, n.Text != ""
	}
	was := st.State
	st.State, st.Reason, st.Kind = ServerUp, "", u.Sample.Kind
	if p, ok := v.series.AddSince(u.Sample, v.level(ep.ctl.Paused()), v.seg.SteadyAt); ok {
		st.Last, st.HasLast = p, true
		if p.Rate && p.Has.Has(model.SigPreemptions) {
			v.preempted += p.Preempted
		}
		st.PreemptPerS, st.Preempted = preemptRate(v.series.Points()), v.preempted
	}
	v.seen = true
	switch {
	case was == ServerDown:
		n.Text = "server back: " + st.Kind + " at " + st.URL
	default:
		n.Text = u.Notice
	}
	return n, n.Text != ""
}

// Server is endpoint i's server view as of the latest scrape.
func (e *Engine) Server(i int) ServerStatus { return e.eps[i].server.status }

// ServerLevel is the server's view of endpoint i over its level at users (a rate in
// rate mode).
func (e *Engine) ServerLevel(i, users int) (model.ServerLevel, bool) {
	return e.eps[i].server.series.Level(serverKey(e.rate, users))
}

// ServerLast is endpoint i's newest server scrape (ok false before the first).
func (e *Engine) ServerLast(i int) (model.ServerPoint, bool) { return e.eps[i].server.series.Last() }

// ServerPoints is endpoint i's server series, oldest first (at most ten minutes).
func (e *Engine) ServerPoints(i int) []model.ServerPoint { return e.eps[i].server.series.Points() }

// Self is tpsmon's own load over the latest second.
func (e *Engine) Self() SelfUse { return e.self }

// ServerUpdates is the merged channel of the scrapers Start built (nil when none): hand
// each report to HandleServer from the engine's goroutine.
func (e *Engine) ServerUpdates() <-chan ServerUpdate {
	if e.scrape == nil {
		return nil
	}
	return e.scrape.out
}

// stepServer reads tpsmon's own load and diagnoses every endpoint, once a second.
func (e *Engine) stepServer(now time.Time) []Notice {
	if !e.diagAt.IsZero() && now.Sub(e.diagAt) < diagEvery {
		return nil
	}
	e.diagAt = now
	if e.watch == nil {
		e.watch = selfwatch.New()
	}
	e.self.Use = e.watch.Read(now)
	if e.self.Known {
		e.scheds = append(e.scheds, e.self.Sched)
		e.scheds = e.scheds[max(len(e.scheds)-schedHold, 0):]
	}
	var out []Notice
	for i := range e.eps {
		out = e.diagnose(i, now, out)
	}
	return out
}

// updateBase lowers the TTFT at low load to the lowest per-second TTFT p50 of the
// buckets not read yet.
func (v *serverView) updateBase(buckets []model.Bucket) {
	for _, b := range buckets {
		if !b.Start.After(v.baseAt) && !v.baseAt.IsZero() {
			continue
		}
		v.baseAt = b.Start
		if b.HasTTFT && b.TTFTP50 > 0 && (v.base == 0 || b.TTFTP50 < v.base) {
			v.base = b.TTFTP50
		}
	}
}

// reset forgets the series, the levels' server view, the TTFT at low load and the
// live diagnosis (the run's findings so far are kept).
func (v *serverView) reset() {
	v.series.Reset()
	v.status.Last, v.status.HasLast = model.ServerPoint{}, false
	v.status.PreemptPerS, v.status.Preempted, v.preempted = 0, 0, 0
	v.base, v.baseAt = 0, time.Time{}
	v.diag.reset()
}

// scrapers is the engine's scrapers, one per endpoint with metrics, merged.
type scrapers struct {
	out    chan ServerUpdate
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startScrapers builds a scraper per endpoint (Config.ServerMetrics: "" the base URL's
// origin + /metrics, ServerMetricsOff none) and merges their reports.
func (e *Engine) startScrapers(ctx context.Context) error {
	var list []*servermetrics.Scraper
	var index []int
	for i, ep := range e.eps {
		src := ""
		if i < len(e.cfg.ServerMetrics) {
			src = strings.TrimSpace(e.cfg.ServerMetrics[i])
		}
		if strings.EqualFold(src, ServerMetricsOff) {
			continue
		}
		if src == "" {
			if _, err := servermetrics.DefaultURL(ep.ep.BaseURL); err != nil {
				continue // no base URL to take the default from (a fake streamer): nothing to scrape
			}
		}
		s, err := newScraper(ep.ep, src)
		if err != nil {
			for _, s := range list {
				s.Close()
			}
			return err
		}
		ep.server.status = ServerStatus{State: ServerWaiting, URL: s.URL()}
		list, index = append(list, s), append(index, i)
	}
	if len(list) == 0 {
		return nil
	}
	sctx, cancel := context.WithCancel(ctx)
	sc := &scrapers{out: make(chan ServerUpdate, len(list)), cancel: cancel}
	for k, s := range list {
		ch := s.Watch(sctx, e.cfg.ServerEvery)
		sc.wg.Add(1)
		go func(i int) {
			defer sc.wg.Done()
			for u := range ch {
				select {
				case sc.out <- ServerUpdate{Endpoint: i, Update: u}:
				case <-sctx.Done():
					for range ch { // let the watcher end
					}
					return
				}
			}
		}(index[k])
	}
	go func() {
		sc.wg.Wait()
		close(sc.out)
	}()
	e.scrape = sc
	return nil
}

// newScraper is the scraper of ep's metrics at src ("" the default URL).
func newScraper(ep client.Endpoint, src string) (*servermetrics.Scraper, error) {
	cfg, err := servermetrics.FromEndpoint(ep, src)
	if err == nil {
		var s *servermetrics.Scraper
		if s, err = servermetrics.New(cfg); err == nil {
			return s, nil
		}
	}
	return nil, fieldErr(FieldServerMetrics, client.RedactedURL(src), "want an http:// or https:// URL of the server's Prometheus metrics, or off")
}

// stop ends the scrapers and waits for them.
func (sc *scrapers) stop() {
	if sc == nil {
		return
	}
	sc.cancel()
	sc.wg.Wait()
}

// handleServer hands a scraper report to the engine and says its notice (bench).
func (b *bench) handleServer(u ServerUpdate, ok bool) {
	if !ok {
		b.server = nil
		return
	}
	if n, say := b.e.HandleServer(u); say {
		b.note(n)
	}
}

// note says a server or diagnosis notice as a progress note; false for other notices.
func (b *bench) note(n Notice) bool {
	if n.Kind != ServerNote && n.Kind != ServerTrouble && n.Kind != Diagnosed {
		return false
	}
	if b.progress != nil {
		b.progress(Progress{Endpoint: n.Endpoint, Name: n.Name, Note: n.String(), NoteBad: n.Bad()})
	}
	return true
}
