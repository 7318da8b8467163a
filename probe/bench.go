package probe

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// NewStreamerFunc builds the Streamer of one endpoint, sized for conns concurrent streams.
type NewStreamerFunc func(ep Endpoint, conns int) (Streamer, error)

// DefaultNewStreamer builds a Client: what NewFleet and Bench use when given no
// NewStreamerFunc.
func DefaultNewStreamer(ep Endpoint, conns int) (Streamer, error) {
	c, err := NewClient(ep, conns)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Fleet is one running Pool per endpoint, with their events merged on one channel.
// The bench loop and the TUI both consume a Fleet.
type Fleet struct {
	Pools     []*Pool
	events    <-chan Event
	cancel    context.CancelFunc
	streamers []Streamer
}

// idleCloser is a Streamer with a connection pool to close when done (a Client).
type idleCloser interface{ CloseIdleConnections() }

// FleetOptions configures NewFleet.
type FleetOptions struct {
	Conns       int             // HTTP connections per endpoint (at least 1)
	NewStreamer NewStreamerFunc // nil means DefaultNewStreamer
	PoolOptions []Option        // passed to every NewPool
}

// NewFleet builds one Streamer and one Pool per endpoint (Endpoint index = position in
// eps), runs the pools under a child of ctx, and merges their events. Every pool starts
// at concurrency 0. An endpoint whose Streamer cannot be built is an error naming it.
func NewFleet(ctx context.Context, eps []Endpoint, opt FleetOptions) (*Fleet, error) {
	if len(eps) == 0 {
		return nil, errors.New("no endpoint to measure")
	}
	newStreamer := opt.NewStreamer
	if newStreamer == nil {
		newStreamer = DefaultNewStreamer
	}
	conns := max(opt.Conns, 1)
	streamers := make([]Streamer, len(eps))
	for i, ep := range eps {
		s, err := newStreamer(ep, conns)
		if err != nil {
			return nil, fmt.Errorf("endpoint %s: %w", EndpointLabel(ep), err)
		}
		streamers[i] = s
	}
	runCtx, cancel := context.WithCancel(ctx)
	f := &Fleet{cancel: cancel, streamers: streamers}
	for i, s := range streamers {
		f.Pools = append(f.Pools, NewPool(i, s, opt.PoolOptions...))
	}
	f.events = RunAll(runCtx, f.Pools)
	return f, nil
}

// Events is the merged event channel of every pool, closed once every pool has ended.
func (f *Fleet) Events() <-chan Event { return f.events }

// SetConcurrency sets every pool's target concurrency.
func (f *Fleet) SetConcurrency(n int) {
	for _, p := range f.Pools {
		p.SetConcurrency(n)
	}
}

// Stop asks every pool to end: no new requests; in-flight ones finish. It does not block.
func (f *Fleet) Stop() { StopAll(f.Pools) }

// Cut cancels the requests in flight (they end as model.ErrCanceled) and stops the pools.
func (f *Fleet) Cut() {
	f.Stop()
	f.cancel()
}

// Close cuts every request, stops reading events, waits until every pool has ended and
// closes the streamers' idle connections. It is idempotent; call it when done with the
// Fleet, also after the event channel closed.
func (f *Fleet) Close() {
	f.Cut()
	for range f.events {
	}
	for _, s := range f.streamers {
		if c, ok := s.(idleCloser); ok {
			c.CloseIdleConnections()
		}
	}
}

// EndpointLabel is how an endpoint is named in messages: its Name, else the host of its
// URL (never the URL's userinfo or query).
func EndpointLabel(ep Endpoint) string {
	if ep.Name != "" {
		return ep.Name
	}
	if u, err := url.Parse(ep.BaseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return safeRawURL(ep.BaseURL)
}

// RedactedURL is a base URL for screens and reports: scheme, host and path, without the
// userinfo (user, password, or a token in the user part) and without the query.
func RedactedURL(raw string) string { return safeRawURL(strings.TrimSpace(raw)) }

// BenchSettings is the report's settings for a run of eps over ramp judged by slo. The
// workload fields come from the first endpoint.
func BenchSettings(eps []Endpoint, ramp Ramp, slo model.SLO) model.ReportSettings {
	s := model.ReportSettings{
		Ramp:  append([]int(nil), ramp.Levels...),
		HoldS: ramp.Hold.Seconds(),
		SLO: model.ReportSLO{
			UserTPSMin:   slo.UserTPSMin,
			TTFTP95MaxMs: float64(slo.TTFTP95Max) / float64(time.Millisecond),
			ErrorRateMax: slo.ErrorRateMax,
		},
	}
	if len(eps) > 0 {
		s.API = eps[0].API
		if s.API == "" {
			s.API = "chat"
		}
		s.MaxTokens = eps[0].MaxTokens
		s.PromptTokens = eps[0].PromptTokens
	}
	return s
}

// BenchConfig is a headless run: every endpoint walks the same ramp at the same time.
type BenchConfig struct {
	Endpoints []Endpoint
	Ramp      Ramp
	SLO       model.SLO // zero value means model.DefaultSLO
	Version   string    // report's tool_version

	// Progress, when set, is called from Bench's goroutine at every level change and
	// at every live tick of every endpoint. It must not block for long.
	Progress func(BenchProgress)

	// Drain bounds the wait for in-flight requests after the last hold: they are cut
	// once no stream delivered a token for Drain (or after MaxDrain in all). Requests
	// still streaming are never cut early: they are the last level's requests, and a
	// level of long answers would otherwise keep none. Zero means the longest endpoint
	// Timeout (default 60 s) plus 5 s.
	Drain time.Duration

	Now         func() time.Time // wall clock for started_at/finished_at; nil means time.Now
	NewStreamer NewStreamerFunc  // nil means DefaultNewStreamer (a Client per endpoint)
	PoolOptions []Option         // e.g. WithTickEvery
}

// BenchProgress is the state of one endpoint during a bench, for progress lines.
type BenchProgress struct {
	Endpoint    int
	Name        string
	Level       int // 1-based index of the level being held; 0 while draining
	Levels      int
	Concurrency int
	Elapsed     time.Duration // time into the drain
	Hold        time.Duration
	Warming     bool          // the level is warming up: its hold starts once it is steady
	Left        time.Duration // hold time left once it has started
	Live        model.Live
	Active      int  // requests in flight now
	Errors      int  // failed requests so far
	LevelChange bool // this call announces a new level (or the drain)
	Draining    bool // the ramp is over; waiting for in-flight requests
}

// String is the progress line. A level change reads
// "sim: level 2/4: 4 users for 15s, 0 errors so far"; a live update
// "sim: level 2/4, 4 users, 3.2s/15s, 812 tok/s, 203.2 tok/s/user, TTFT p95 120ms, 0 errors".
func (p BenchProgress) String() string {
	var b strings.Builder
	b.WriteString(p.Name)
	b.WriteString(": ")
	switch {
	case p.Draining:
		fmt.Fprintf(&b, "ramp done, waiting for %d in-flight %s to finish (%s)", p.Active, plural(p.Active, "request"), roundDur(p.Elapsed))
	case p.LevelChange:
		fmt.Fprintf(&b, "level %d/%d: %d %s, held %s once warm-up is over, %d %s so far", p.Level, p.Levels, p.Concurrency, plural(p.Concurrency, "user"),
			roundDur(p.Hold), p.Errors, plural(p.Errors, "error"))
		return b.String()
	default:
		fmt.Fprintf(&b, "level %d/%d, %d %s, ", p.Level, p.Levels, p.Concurrency, plural(p.Concurrency, "user"))
		if p.Warming {
			b.WriteString("warming up")
		} else {
			fmt.Fprintf(&b, "%s left", roundDur(p.Left))
		}
		fmt.Fprintf(&b, ", %.0f tok/s", p.Live.AggregateTPS)
		if p.Live.HasUser {
			fmt.Fprintf(&b, ", %.1f tok/s/user", p.Live.UserTPS)
		} else {
			b.WriteString(", - tok/s/user")
		}
		if p.Live.HasTTFT {
			fmt.Fprintf(&b, ", TTFT p95 %s", roundLatency(p.Live.TTFTP95))
		} else {
			b.WriteString(", TTFT p95 -")
		}
	}
	fmt.Fprintf(&b, ", %d %s", p.Errors, plural(p.Errors, "error"))
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// roundDur rounds elapsed and hold times for progress lines.
func roundDur(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// roundLatency rounds a latency for progress lines: ms below a second.
func roundLatency(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// BenchOutcome is what happened to one endpoint's requests over the whole run
// (warm-up included), beyond what the report shows.
type BenchOutcome struct {
	Requests  int // requests that ended, those we canceled excluded
	Succeeded int
	Errors    map[model.ErrorKind]int
	LastError string // message of the newest failure when no later request succeeded
}

// Unusable reports whether the endpoint answered no request successfully.
func (o BenchOutcome) Unusable() bool { return o.Succeeded == 0 && o.Requests > 0 }

// BenchResult is a finished (or interrupted) bench.
type BenchResult struct {
	Report   *model.Report
	Outcomes []BenchOutcome // one per endpoint, in order
}

// Bench runs the ramp against every endpoint at once and returns the report. For each
// level it sets every pool's concurrency and holds it for Ramp.Hold; after the last
// level it sets concurrency 0, lets in-flight requests finish (cut once quiet for Drain)
// and stops. When ctx is canceled (Ctrl-C) it cuts the requests in flight and still returns
// the report of what was measured, with Interrupted set. The error is non-nil only when
// the run could not start.
func Bench(ctx context.Context, cfg BenchConfig) (*BenchResult, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("bench: no endpoint")
	}
	if len(cfg.Ramp.Levels) == 0 || cfg.Ramp.Hold <= 0 {
		return nil, errors.New("bench: the ramp needs at least one level and a positive hold")
	}
	for _, c := range cfg.Ramp.Levels {
		if c <= 0 {
			return nil, fmt.Errorf("bench: ramp level %d: concurrency must be at least 1", c)
		}
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	slo := cfg.SLO
	if slo == (model.SLO{}) {
		slo = model.DefaultSLO
	}
	drain := cfg.Drain
	if drain <= 0 {
		longest := time.Duration(0)
		for _, ep := range cfg.Endpoints {
			t := ep.Timeout
			if t <= 0 {
				t = 60 * time.Second
			}
			longest = max(longest, t)
		}
		drain = longest + 5*time.Second
	}

	started := now()
	fleet, err := NewFleet(ctx, cfg.Endpoints, FleetOptions{
		Conns:       maxLevel(cfg.Ramp.Levels),
		NewStreamer: cfg.NewStreamer,
		PoolOptions: cfg.PoolOptions,
	})
	if err != nil {
		return nil, err
	}
	defer fleet.Close()

	b := &benchRun{cfg: cfg, hold: cfg.Ramp.Hold, pools: fleet.Pools}
	for i := range cfg.Endpoints {
		b.trackers = append(b.trackers, model.NewTracker(model.TrackerOptions{Endpoint: i, SLO: slo}))
	}
	events := fleet.Events()
	done := ctx.Done()
	interrupted := false

	// Every endpoint walks the ramp on its own: each level is held for Hold from the
	// moment it is steady (Walk), and a slow endpoint's warm-up never cuts another's hold.
	t0 := time.Now()
	for i, p := range fleet.Pools {
		w := cfg.Ramp.Walk(t0)
		_, c := w.Level()
		p.SetConcurrency(c)
		b.walks = append(b.walks, w)
		b.progress(i, true)
	}
	step := time.NewTicker(rampStep)
	defer step.Stop()
	for b.walking() > 0 {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				break // every pool ended early (should not happen)
			}
			b.handle(ev)
		case now := <-step.C:
			for i, w := range b.walks {
				if w.Done() {
					continue
				}
				c, changed, over := w.Next(now)
				switch {
				case over:
					fleet.Pools[i].SetConcurrency(0) // its last level ends; the others go on
				case changed:
					fleet.Pools[i].SetConcurrency(c)
					b.progress(i, true)
				}
			}
		case <-done:
			interrupted = true
		}
		if interrupted || events == nil {
			break
		}
	}

	fleet.SetConcurrency(0)
	if interrupted {
		fleet.Cut()
	} else {
		fleet.Stop()
		b.draining, b.since = true, time.Now()
		for i := range b.trackers {
			b.progress(i, true)
		}
	}
	bound := time.NewTimer(drain)
	defer bound.Stop()
	hardCap := time.NewTimer(MaxDrain)
	defer hardCap.Stop()
	cut := false
	for events != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			b.handle(ev)
			if ev.Tick != nil && ev.Tick.Chunks > 0 && !cut {
				bound.Reset(drain) // tokens still flow: the drain is not quiet
			}
		case <-bound.C:
			cut = true
			fleet.Cut() // in-flight requests past the bound end as canceled
		case <-hardCap.C:
			cut = true
			fleet.Cut()
		case <-done:
			done = nil
			interrupted = true
			fleet.Cut()
		}
	}
	finished := now()

	res := &BenchResult{Report: &model.Report{
		Schema:      model.Schema,
		ToolVersion: cfg.Version,
		StartedAt:   started.UTC().Format(time.RFC3339),
		FinishedAt:  finished.UTC().Format(time.RFC3339),
		Interrupted: interrupted,
		Settings:    BenchSettings(cfg.Endpoints, cfg.Ramp, slo),
	}}
	for i, ep := range cfg.Endpoints {
		tr := b.trackers[i]
		res.Report.Endpoints = append(res.Report.Endpoints, tr.ReportEndpoint(model.EndpointInfo{
			Name:      EndpointLabel(ep),
			URL:       RedactedURL(ep.BaseURL),
			Model:     ep.Model,
			Simulated: ep.Simulated,
		}))
		_, succeeded, errs := tr.Totals()
		msg, _ := tr.LastError()
		failed := countErrors(errs)
		res.Outcomes = append(res.Outcomes, BenchOutcome{Requests: succeeded + failed, Succeeded: succeeded, Errors: errs, LastError: msg})
	}
	return res, nil
}

// MaxDrain bounds the whole drain of a bench (see BenchConfig.Drain), for servers that
// stream past max_tokens for ever.
const MaxDrain = 15 * time.Minute

// benchRun is the state of Bench's event loop (one goroutine).
type benchRun struct {
	cfg      BenchConfig
	trackers []*model.Tracker
	pools    []*Pool
	walks    []*Walk // one per endpoint
	hold     time.Duration
	since    time.Time // when the drain began
	draining bool
}

// rampStep is how often the bench loop moves the endpoints' walks on.
const rampStep = 100 * time.Millisecond

// walking is the number of endpoints still walking the ramp.
func (b *benchRun) walking() int {
	n := 0
	for _, w := range b.walks {
		if !w.Done() {
			n++
		}
	}
	return n
}

func (b *benchRun) handle(ev Event) {
	if ev.Endpoint < 0 || ev.Endpoint >= len(b.trackers) {
		return
	}
	tr := b.trackers[ev.Endpoint]
	switch {
	case ev.Sample != nil:
		tr.AddSample(ev.Sample)
	case ev.Segment != nil:
		tr.UpdateSegment(*ev.Segment)
		if ev.Endpoint < len(b.walks) {
			b.walks[ev.Endpoint].Observe(ev.Segment)
		}
	case ev.Tick != nil:
		tr.AddTick(ev.Tick)
		b.progress(ev.Endpoint, false)
	}
}

func (b *benchRun) progress(i int, change bool) {
	if b.cfg.Progress == nil {
		return
	}
	tr := b.trackers[i]
	_, _, errs := tr.Totals()
	p := BenchProgress{
		Endpoint:    i,
		Name:        EndpointLabel(b.cfg.Endpoints[i]),
		Levels:      len(b.cfg.Ramp.Levels),
		Hold:        b.hold,
		Live:        tr.Live(),
		Active:      b.pools[i].Active(),
		Errors:      countErrors(errs),
		LevelChange: change,
		Draining:    b.draining,
	}
	if b.draining {
		p.Elapsed = time.Since(b.since)
	} else if i < len(b.walks) {
		w := b.walks[i]
		idx, c := w.Level()
		p.Level, p.Concurrency = idx+1, c
		p.Warming, p.Left = w.Left(time.Now())
	}
	b.cfg.Progress(p)
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

func maxLevel(levels []int) int {
	m := 1
	for _, c := range levels {
		m = max(m, c)
	}
	return m
}
