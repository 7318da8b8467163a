package settings

import (
	"fmt"
	"slices"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// Plan is what a run measures, resolved from the flags, the config file and the
// environment before anything touches the network.
type Plan struct {
	Command   Command
	Endpoints []client.Endpoint // empty when Simulate (until the simulator is started)
	Sources   []string          // where each endpoint was configured, for messages
	KeyEnvs   []string          // the variable each endpoint's key comes from, for hints
	Simulate  bool              // no endpoint configured: measure the built-in simulator
	Template  client.Endpoint   // the workload (and API) every request sends
	Profile   string            // the simulator's profile
	Rate      RateMode          // rate mode: the ramp's levels are arrival rates
	Workload  string            // the workload in words, for the report ("" for the default)
	Ramp      engine.Ramp
	SLO       model.SLO

	Settle      int // engine.SettleCapacity, 0 (stop the load) or users
	MaxDuration time.Duration
	FullRamp    bool
	MinRequests int  // a fixed floor of steady requests per level (0: the rule's own)
	Refine      bool // bisect the capacity once the ramp's levels are held
	Users       int  // the live screen's start

	Streams int // the most streams of all endpoints together (StreamLimit.Max)
	// ServerMetrics is each endpoint's metrics source for the engine ("" the default,
	// engine.ServerMetricsOff, or a URL); one entry for the simulator.
	ServerMetrics []string
	Shard         *model.ReportShard // bench --shard: this process sends its share of each level
	StartAt       time.Time          // bench --start-at: the fixed schedule's start

	Notes []string // settings that do nothing, said before the run

	// Trace is a trace replayed on its schedule (its windows the ramp), Talk a run of
	// conversations (traffic.go); traceConns is the HTTP connections the trace needs.
	Trace      *engine.TraceSetup
	Talk       *Talk
	traceConns int

	metrics  []Value[string] // each endpoint's server_metrics, for ServerMetrics
	walkFrom string          // where the levels were written, for messages
}

// Input is what Resolve reads besides the flags: the environment, the streams this
// process can hold (asked last, as it raises the open-files limit), and the time.
type Input struct {
	Getenv func(string) string
	Limit  func() StreamLimit
	Now    time.Time
}

// Resolve merges the layers (defaults < environment < config file < flags given) and
// checks every setting, building the plan. Each error is an *Error that says what is
// wrong, where it was written, and what to write.
func Resolve(f *Flags, in Input) (*Plan, error) {
	file, err := readFile(f.Given.Config.V)
	if err != nil {
		return nil, err
	}
	return resolve(f, file, in)
}

// resolve is Resolve with the config file read.
func resolve(f *Flags, file *fileConfig, in Input) (*Plan, error) {
	fileLayer, err := file.layer()
	if err != nil {
		return nil, err
	}
	below := Apply(Apply(f.Defaults, envLayer(in.Getenv)), fileLayer)
	given, err := f.sharedFlags(below.Endpoint)
	if err != nil {
		return nil, err
	}
	s := Apply(below, given)
	p := &Plan{Command: f.Command, Profile: s.Profile.V}
	if p.Shard, err = shard(s.Shard); err != nil {
		return nil, err
	}
	w, err := p.workload(s.Workload, p.Shard)
	if err != nil {
		return nil, err
	}
	if err := checkAPI(s.Endpoint.API); err != nil {
		return nil, err
	}
	if err := p.ramp(s.Ramp); err != nil {
		return nil, err
	}
	if p.SLO, err = slo(s.SLO); err != nil {
		return nil, err
	}
	if err := p.rate(s.Ramp, s.Workload.Traffic.Trace.V != ""); err != nil {
		return nil, err
	}
	if err := p.traffic(s, &w); err != nil {
		return nil, err
	}
	if s.Endpoints.V == nil {
		err = p.simulated(s, w)
	} else {
		err = p.endpoints(s, below.Endpoint, given.Endpoint, w, in.Getenv)
	}
	if err != nil {
		return nil, err
	}
	if err := p.serverMetrics(given.Endpoint.ServerMetrics); err != nil {
		return nil, err
	}
	if err := p.streams(in.Limit()); err != nil {
		return nil, err
	}
	if p.Command == Bench {
		return p, p.schedule(s.Shard, s.Ramp.MaxHold, in.Now)
	}
	return p, nil
}

// checkAPI refuses an API the client does not speak.
func checkAPI(api Value[string]) error {
	if !slices.Contains(client.APIs(), api.V) {
		return errorf("%s %q: want %s%s", api.From.Where, api.V, client.APIWords, client.APIHint(api.V))
	}
	return nil
}

// simulated plans a run on the built-in simulator: no endpoint is configured.
func (p *Plan) simulated(s Settings, w client.Endpoint) error {
	p.Simulate = true
	p.Template = w
	e := s.Endpoint
	p.Template.API, p.Template.Insecure, p.Template.Headers, p.Template.ExtraBody = e.API.V, e.Insecure.V, e.Headers.V, e.ExtraBody.V
	if p.Profile == "" {
		p.Profile = sim.DefaultProfile
	}
	if _, err := sim.Profile(p.Profile); err != nil {
		return errorf("--profile: %v", err)
	}
	if e.Model.Given() {
		p.Notes = append(p.Notes, fmt.Sprintf("--model %q is ignored: no endpoint is configured (--url, $%s or --config), and the built-in simulator serves its own model", e.Model.V, BaseURLEnv))
	}
	return nil
}
