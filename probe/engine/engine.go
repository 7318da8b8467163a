package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/selfwatch"
)

// Control is the load control of one endpoint. *probe.Pool satisfies it.
type Control interface {
	SetConcurrency(n int)
	Concurrency() int
	Active() int
	Pause()
	Resume()
	Paused() bool
	Stop()
}

var _ Control = (*probe.Pool)(nil)

// Book is one endpoint's level book, live series and totals. *model.Tracker satisfies it.
type Book interface {
	AddSample(s *model.Sample)
	AddTick(tk *model.Tick)
	UpdateSegment(seg model.Segment)
	Reset(now time.Time)
	MarkShort(users int)
	MarkUndecided(users int, terms []string)
	MarkRefined(users int)
	Levels() []model.LevelStats
	Level(users int) (model.LevelStats, bool)
	Buckets(n int) []model.Bucket
	Live() model.Live
	TokenSource() string
	Totals() (requests, succeeded int, errors map[model.ErrorKind]int)
	LastError() (msg string, at time.Time)
	Capacity() int
	ReportEndpoint(info model.EndpointInfo) model.ReportEndpoint
	// SetRateMode sets the mode whose levels Levels, Level, MarkShort, Capacity and
	// ReportEndpoint read (rate levels when on); each mode keeps its own levels.
	SetRateMode(on bool)
	// ReportMode is ReportEndpoint of one mode's levels; ok says it has a level with
	// requests or one being measured.
	ReportMode(info model.EndpointInfo, rate bool) (e model.ReportEndpoint, ok bool)
}

var _ Book = (*model.Tracker)(nil)

// SettleCapacity, as Config.Settle, settles each endpoint at its capacity after its ramp.
const SettleCapacity = -1

// MaxUsers bounds the users the engine sets, all endpoints together: probe.StreamCap,
// the one cap for flags, config and keys (Config.MaxStreams may lower it).
const MaxUsers = probe.StreamCap

// Config is a run: its ramp, criteria and bounds, and (for Start) its endpoints.
type Config struct {
	Endpoints []client.Endpoint
	Ramp      Ramp      // empty Levels means DefaultRamp
	SLO       model.SLO // zero value means model.DefaultSLO

	// Settle is what an endpoint holds once its ramp finished or a stop rule ended it:
	// SettleCapacity (its capacity level), 0 (stop the load) or a number of users.
	// Run (bench) always settles at 0 and drains.
	Settle int
	// FullRamp walks every level: a stop rule only warns (RampWarned).
	FullRamp bool
	// MinRequests, when above MinFloor, is the floor of steady requests every level
	// holds at least, beside the sequential rule (a fixed floor for those who want one).
	MinRequests int
	// Refine bisects the capacity once the ramp has a meeting level below a failing one
	// (see refine.go): users, or requests/s in rate mode, until the gap is within 10% or
	// one. Off, the walk still confirms the capacity's level. Not on a fixed schedule.
	Refine bool
	// MaxDuration bounds the whole run, counted from the first StartRamp or Step
	// (0: no bound). When it is over, the ramp ends and the load stops.
	MaxDuration time.Duration
	// MaxStreams bounds the users of all endpoints together: what this process can hold
	// (probe.MaxStreams). 0 or more than MaxUsers means MaxUsers.
	MaxStreams int

	// Drain bounds Run's wait for in-flight requests after the ramp: they are cut once
	// no stream delivered a token for Drain (or after MaxDrain in all). Zero means the
	// longest endpoint Timeout (default 60 s) plus 5 s.
	Drain time.Duration

	// Shard, when set, makes this run one shard of a load split over several processes
	// (see shard.go): it holds its share of each level's users, recorded under the whole
	// level's. It needs StartAt.
	Shard *model.ReportShard
	// StartAt, when set, is the wall-clock moment Run starts the ramp, which then walks
	// a fixed schedule (Ramp.Fixed): the stop rules only warn.
	StartAt time.Time
	// OpenLoop, when set, says the pools run in rate mode (probe.WithOpenLoop in
	// PoolOptions): the ramp's levels are arrival rates. The engine reports it.
	OpenLoop *OpenLoop
	// RateLevels are the rates the ramp walks after the screen switches a users-mode
	// run to rate mode (SetRateMode); empty means DefaultRamp's levels.
	RateLevels []int
	// Workload describes the requests' workload for the report ("" for the default).
	Workload string
	// InProcessSim says the built-in simulator runs in this process: tpsmon's own CPU
	// figure then holds the simulator's ("tpsmon+sim"), and the CPU rule is off. A
	// tpsmon sim in another process is simulated too, but its CPU is not ours.
	InProcessSim bool
	// Trace, when set, is the trace the pools replay (probe.WithTrace): the ramp is
	// TraceRamp's windows, and the report names them (trace.go).
	Trace *model.ReportTrace
	// Turns, History and Think describe conversations for the report (see
	// model.ReportSettings; "" when requests stand alone).
	Turns, History string
	Think          time.Duration

	Version string           // the report's tool_version
	Now     func() time.Time // wall clock for the report's timestamps; nil means time.Now

	// Start only.
	// Start is what every endpoint starts at, users or (in rate mode) a rate: the live
	// screen's --users; 0 when the load starts from the ramp (bench). The connections
	// are sized for it too (Connections).
	Start       int
	Conns       int             // connections per endpoint; 0 means Connections decides
	NewStreamer NewStreamerFunc // nil means DefaultNewStreamer
	PoolOptions []probe.Option  // e.g. probe.WithTickEvery
	// ServerMetrics is each endpoint's metrics source, by position: "" (or no entry) the
	// base URL's origin + /metrics, ServerMetricsOff none, else the metrics URL.
	ServerMetrics []string
	ServerEvery   time.Duration // how often to scrape; 0 means servermetrics.DefaultEvery

	// Observers see every event once Handle applied it (the time series, the metrics
	// exporter): see Observer.
	Observers []Observer
}

// OpenLoop is rate mode's settings, as reported.
type OpenLoop struct {
	Arrival        string // "poisson" or "constant"
	MaxConcurrency int    // 0: no cap
}

// Part is one endpoint as New takes it: its settings, load control and level book.
type Part struct {
	Endpoint client.Endpoint
	Control  Control
	Book     Book // nil means a new model.Tracker
}

// Engine is one run. It is a single-threaded state machine with no locks: one goroutine
// (bench's loop, or the screen's Update) calls Handle for every pool event, Step on a
// timer, the controls and the reads.
type Engine struct {
	cfg     Config
	fleet   *Fleet
	eps     []*endpoint
	started time.Time                                         // wall clock, for the report
	t0      time.Time                                         // first StartRamp or Step: MaxDuration counts from it
	over    bool                                              // MaxDuration ended the run
	done    bool                                              // the load was cut for good (Cut, or bench's end): no level is being measured
	stopped bool                                              // Interrupt was called: Ctrl-C, a signal, or quitting mid-ramp
	wall    model.WallClock                                   // the report's wall clock (Run sets it at the ramp's start)
	trace   func(what string, ev *probe.Event, now time.Time) // tests: record the inputs

	scrape                 *scrapers          // the server metrics scrapers Start built (nil: none)
	watch                  *selfwatch.Watcher // tpsmon's own load, read once a second by Step
	self                   SelfUse
	scheds                 []time.Duration // the scheduling delays of the latest readings, oldest first (heldSched)
	diagAt                 time.Time       // the latest diagnosis
	rate                   bool            // rate mode: levels are arrival rates (ratemode.go)
	userLevels, rateLevels []int           // the ramp's levels of the mode not in use
	stepAt                 time.Time       // the latest Step
	switches               []modeSwitch    // every switch of mode, oldest first (modespans.go)
}

// endpoint is one endpoint's state in the engine.
type endpoint struct {
	ep      client.Endpoint
	info    model.EndpointInfo
	ctl     Control
	book    Book
	walk    *Walk        // nil when the ramp does not drive it
	end     RampEnd      // how its latest ramp ended
	short   map[int]bool // levels that reached the maximum hold first
	warned  map[int]bool // levels a stop rule tripped at under FullRamp
	server  *serverView  // the server's own view (its /metrics) and the diagnosis
	stop    *Stop        // the stop rule that ended the ramp's climb (the refinement may go on)
	refined int          // levels the refinement added to the current walk
	byHand  bool         // the current walk is a refinement started by hand (StartRefine)
	probes  []int        // the levels the current bisection explored, in order
	// rampRate says the latest ramp walked rate levels: its end, stop rule and levels
	// belong to the rate mode's report.
	rampRate bool
}

// New builds an engine over parts (endpoint index = position). It validates the ramp
// and the settings and returns *client.FieldError for what is wrong.
func New(cfg Config, parts []Part) (*Engine, error) {
	if len(parts) == 0 {
		return nil, fieldErr(FieldEndpoints, "", "no endpoint to measure")
	}
	if len(cfg.Ramp.Levels) == 0 {
		cfg.Ramp.Levels = DefaultRamp.Levels
		if cfg.Ramp.Hold == 0 {
			cfg.Ramp.Hold = DefaultRamp.Hold
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.SLO == (model.SLO{}) {
		cfg.SLO = model.DefaultSLO
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if !cfg.StartAt.IsZero() {
		cfg.Ramp.Fixed = true
	}
	e := &Engine{cfg: cfg, started: cfg.Now()}
	e.self.WithSim = cfg.InProcessSim
	e.initRate()
	for i, p := range parts {
		book := p.Book
		if book == nil {
			book = model.NewTracker(model.TrackerOptions{Endpoint: i, SLO: cfg.SLO, MinRequests: max(MinFloor, cfg.MinRequests)})
		}
		book.SetRateMode(e.rate)
		e.eps = append(e.eps, &endpoint{
			ep: p.Endpoint, ctl: p.Control, book: book, short: map[int]bool{}, warned: map[int]bool{}, server: newServerView(),
			// The URL goes into reports and snapshots: never with its user:password part.
			info: model.EndpointInfo{Name: client.EndpointLabel(p.Endpoint), URL: client.RedactedURL(p.Endpoint.BaseURL),
				Model: p.Endpoint.Model, API: apiOf(p.Endpoint), Simulated: p.Endpoint.Simulated},
		})
	}
	return e, nil
}

func (c *Config) validate() error {
	if err := c.Ramp.Validate(); err != nil {
		return err
	}
	if c.Settle < SettleCapacity || c.Settle > MaxUsers {
		return fieldErr(FieldSettle, "", fmt.Sprintf("want the capacity, 0 (stop the load) or a number of users up to %d", MaxUsers))
	}
	if c.MaxDuration < 0 {
		return fieldErr(FieldMaxDuration, c.MaxDuration.String(), "want a positive duration, or 0 for none")
	}
	return c.validateShard()
}

// Start builds a Fleet over cfg.Endpoints (pools running at 0 users) and an engine over
// it. Read its events from Events and hand each to Handle; Close it when done.
func Start(ctx context.Context, cfg Config) (*Engine, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, fieldErr(FieldEndpoints, "", "no endpoint to measure")
	}
	if err := (&Config{Ramp: cfg.Ramp, Settle: cfg.Settle, MaxDuration: cfg.MaxDuration, Shard: cfg.Shard, StartAt: cfg.StartAt}).validateOrDefault(); err != nil {
		return nil, err
	}
	fleet, err := NewFleet(ctx, cfg.Endpoints, FleetOptions{Conns: cfg.Connections(), NewStreamer: cfg.NewStreamer, PoolOptions: cfg.PoolOptions})
	if err != nil {
		return nil, err
	}
	parts := make([]Part, len(cfg.Endpoints))
	for i, ep := range cfg.Endpoints {
		parts[i] = Part{Endpoint: ep, Control: fleet.Pools[i]}
	}
	e, err := New(cfg, parts)
	if err != nil {
		fleet.Close()
		return nil, err
	}
	e.fleet = fleet
	if err := e.startScrapers(ctx); err != nil {
		fleet.Close()
		return nil, err
	}
	return e, nil
}

// Connections is the HTTP connections each endpoint's pool keeps, decided here and
// nowhere else: Conns when set; in rate mode the cap on requests in flight, else room
// for a few seconds of the highest rate (8 per request/s, at least 64); otherwise the
// largest level of this process's share, or the users it starts at, at least 64.
func (c *Config) Connections() int {
	if c.Conns > 0 {
		return c.Conns
	}
	top := max(c.Start, 1)
	for _, l := range c.Ramp.Levels {
		top = max(top, c.share(l))
	}
	if c.OpenLoop != nil {
		if c.OpenLoop.MaxConcurrency > 0 {
			return c.OpenLoop.MaxConcurrency
		}
		return max(64, 8*top)
	}
	return max(64, top)
}

// validateOrDefault validates c with an empty ramp meaning the default one.
func (c *Config) validateOrDefault() error {
	if len(c.Ramp.Levels) == 0 {
		c.Ramp = DefaultRamp
	}
	return c.validate()
}

// Events is the merged event channel of the pools Start built (nil for New).
func (e *Engine) Events() <-chan probe.Event {
	if e.fleet == nil {
		return nil
	}
	return e.fleet.Events()
}

// Close cuts what is in flight and waits for the pools Start built to end. Idempotent.
func (e *Engine) Close() {
	if e.fleet != nil {
		e.fleet.Close()
	}
	e.scrape.stop()
}

// Handle hands one pool event to its endpoint's level book and ramp walk.
func (e *Engine) Handle(ev probe.Event) {
	if e.trace != nil {
		e.trace("event", &ev, time.Time{})
	}
	if ev.Endpoint < 0 || ev.Endpoint >= len(e.eps) {
		return
	}
	ep := e.eps[ev.Endpoint]
	switch {
	case ev.Sample != nil:
		ep.book.AddSample(ev.Sample)
		ep.server.diag.rec.Add(ev.Sample)
	case ev.Tick != nil:
		ep.book.AddTick(ev.Tick)
		ep.server.diag.rec.AddFirsts(ev.Tick.FirstSends, ev.Tick.FirstTokens)
	case ev.Segment != nil:
		ep.book.UpdateSegment(*ev.Segment)
		ep.server.onSegment(*ev.Segment)
		if ep.walk != nil {
			ep.walk.Observe(ev.Segment)
		}
	}
	for _, o := range e.cfg.Observers {
		o.Observe(e, &ev)
	}
}

// clock starts the run's clock (MaxDuration) at its first reading.
func (e *Engine) clock(now time.Time) {
	if e.t0.IsZero() {
		e.t0 = now
	}
	e.stepAt = now
}

// apiOf is the API an endpoint calls ("chat" when unset).
func apiOf(ep client.Endpoint) string {
	if ep.API == "" {
		return client.DefaultAPI
	}
	return ep.API
}
