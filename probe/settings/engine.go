package settings

import "github.com/tpsmon/tpsmon/probe/engine"

// Engine is the engine's configuration of the plan; the command adds its own (the
// version, the outputs' observers).
func (p *Plan) Engine() engine.Config {
	cfg := engine.Config{
		Endpoints:     p.Endpoints,
		Ramp:          p.Ramp,
		SLO:           p.SLO,
		ServerMetrics: p.ServerMetrics,
		FullRamp:      p.FullRamp,
		MinRequests:   p.MinRequests,
		Refine:        p.Refine,
		MaxDuration:   p.MaxDuration,
		MaxStreams:    p.Streams,
		PoolOptions:   p.Rate.poolOptions(),
		OpenLoop:      p.Rate.openLoop(),
		Workload:      p.Workload,
		Shard:         p.Shard,
		StartAt:       p.StartAt,
	}
	p.trafficEngine(&cfg)
	if p.Command == Screen {
		cfg.Settle, cfg.Start = p.Settle, p.Start()
		if p.Rate.On && len(p.Ramp.Levels) == 1 { // --rate R: r walks the default rates
			cfg.Ramp.Levels = engine.DefaultRamp.Levels
		}
	}
	return cfg
}

// Start is what the live screen starts at: its users, or in rate mode its first rate.
func (p *Plan) Start() int {
	if p.Rate.On {
		return p.Ramp.Levels[0]
	}
	return p.Users
}
