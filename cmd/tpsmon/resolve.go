package main

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// plan is what a run measures, resolved from the flags, the config file and the
// environment, before anything touches the network.
type plan struct {
	endpoints []client.Endpoint // empty when simulate
	sources   []string          // where each endpoint was configured, for messages
	keyEnvs   []string          // the variable each endpoint's key comes from, for hints
	simulate  bool              // no endpoint configured: measure the built-in simulator
	template  client.Endpoint   // workload (and API) for the simulated endpoint
	profile   string
	rate      rateMode // rate mode (traffic.go): the ramp's levels are arrival rates
	workload  string   // the workload in words, for the report ("" for the default)
	ramp      engine.Ramp
	bounds    runBounds
	slo       model.SLO
	streams   int // the most streams of all endpoints together (probe.MaxStreams)
	// serverMetrics is each endpoint's metrics source for the engine ("" the default,
	// engine.ServerMetricsOff, or a URL); one entry for the simulator.
	serverMetrics []string
	shard         *model.ReportShard // bench --shard: this process sends its share of each level
	// A trace replayed on its schedule (its windows the ramp), or conversations
	// (realtraffic.go); traceConns is the HTTP connections the trace needs.
	trace      *engine.TraceSetup
	talk       *talkPlan
	traceConns int
}

// resolve validates every flag and the config file and builds the plan. Every error is
// a usage error (exit 2) that says what is wrong, where, and what to do. Each step is a
// pure function of the flags, the config and the environment; resolve prints their notes.
func (a *app) resolve(cmd *cobra.Command, f *runFlags) (*plan, error) {
	changed := cmd.Flags().Changed
	cfg, err := readConfig(f.config)
	if err != nil {
		return nil, err
	}
	if err := workloadFromConfig(f, cfg, changed); err != nil {
		return nil, err
	}
	f.real.fromConfig(cfg.Workload.realConfig, changed)
	maxTok, promptTok, dist, err := resolveLengths(f)
	if err != nil {
		return nil, err
	}
	f.maxTokens, f.promptTokens = int(maxTok.Mean()), int(promptTok.Mean())
	w, err := resolveWorkload(f, cfg.Workload, changed)
	if err != nil {
		return nil, err
	}
	shard, err := parseShardFlags(&f.shard, changed, a.getenv)
	if err != nil {
		return nil, err
	}
	w.PromptSeed = shardSeed(w.PromptSeed, shard)
	f.traffic.seed = w.PromptSeed // --seed (or the config's, or a random one): arrivals and draws too
	if w.Workload, err = workloadSource(f, w, maxTok, promptTok, dist); err != nil {
		return nil, err
	}
	shared, err := resolveShared(f)
	if err != nil {
		return nil, err
	}
	ramp, err := resolveRamp(f, cfg, changed)
	if err != nil {
		return nil, err
	}
	bounds, err := resolveBounds(f, cfg, changed)
	if err != nil {
		return nil, err
	}
	slo, err := resolveSLO(f.slo, cfg)
	if err != nil {
		return nil, err
	}
	p := &plan{profile: f.profile, ramp: ramp, bounds: bounds, slo: slo, workload: workloadWords(f, dist), shard: shard}
	if err := p.resolveRate(f, cfg, changed); err != nil {
		return nil, err
	}
	if err := p.resolveReal(f, &w, changed); err != nil {
		return nil, err
	}
	specs, err := endpointSpecs(f, cfg, shared, changed, a.getenv)
	if err != nil {
		return nil, err
	}
	var notes []string
	if len(specs) == 0 {
		notes, err = p.simulated(f, w, shared, changed)
	} else {
		notes, err = p.real(f, w, specs, changed, a.getenv)
	}
	if err != nil {
		return nil, err
	}
	if p.serverMetrics, err = resolveServerMetrics(f.serverMetrics, cfg, len(specs), changed); err != nil {
		return nil, err
	}
	if err := a.checkStreams(p, f.users, rampFrom(cfg, changed)); err != nil {
		return nil, err
	}
	for _, n := range notes {
		fmt.Fprintf(a.stderr, "tpsmon: note: %s\n", n)
	}
	return p, nil
}

// readConfig loads the --config file, or an empty config when there is none.
func readConfig(path string) (*fileConfig, error) {
	if path == "" {
		return &fileConfig{}, nil
	}
	cfg, err := loadConfig(path)
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: err.Error()}
	}
	return cfg, nil
}

// resolveWorkload is the request every endpoint sends: the flags' defaults, then the
// config's workload, then the flags given.
func resolveWorkload(f *runFlags, wc workloadConfig, changed func(string) bool) (client.Endpoint, error) {
	w := client.Endpoint{
		API:          "chat",
		MaxTokens:    f.maxTokens,
		Prompt:       f.prompt,
		PromptTokens: f.promptTokens,
		IgnoreEOS:    f.ignoreEOS,
		Timeout:      f.timeout,
		Insecure:     f.insecure,
	}
	if wc.MaxTokens != nil && !changed("max-tokens") {
		w.MaxTokens = wc.MaxTokens.mean()
	}
	if wc.Prompt != nil && !changed("prompt") {
		w.Prompt = *wc.Prompt
	}
	if wc.PromptTokens != nil && !changed("prompt-tokens") {
		w.PromptTokens = wc.PromptTokens.mean()
	}
	if wc.IgnoreEOS != nil && !changed("ignore-eos") {
		w.IgnoreEOS = *wc.IgnoreEOS
	}
	if wc.Timeout != nil && !changed("timeout") {
		w.Timeout = time.Duration(*wc.Timeout)
	}
	switch {
	case w.MaxTokens < 1:
		return w, usageErrorf("--max-tokens %d: want at least 1", w.MaxTokens)
	case w.PromptTokens < 0:
		return w, usageErrorf("--prompt-tokens %d: want 0 or more", w.PromptTokens)
	case w.Timeout <= 0:
		return w, usageErrorf("--timeout %s: want a positive duration such as 60s", w.Timeout)
	case !slices.Contains(client.APIs(), f.api):
		return w, usageErrorf("--api %q: want %s%s", f.api, client.APIWords, client.APIHint(f.api))
	}
	if changed("api") {
		w.API = f.api
	}
	w.PromptSeed = resolveSeed(f, wc, w.Prompt, changed)
	return w, nil
}

// resolveRamp is the ramp: --ramp, --hold and --max-hold, else the config's, else the
// defaults. --ramp is checked even when the config's levels are used. The ramp is
// judged by the engine's own rules (engine.Ramp.Validate), refused where it was written.
func resolveRamp(f *runFlags, cfg *fileConfig, changed func(string) bool) (engine.Ramp, error) {
	rc := cfg.Ramp
	levels, err := parseRamp(f.ramp)
	if err != nil {
		return engine.Ramp{}, usageErrorf("%v", err)
	}
	r := engine.Ramp{Levels: levels, Hold: f.hold, MaxHold: f.maxHold}
	from := map[string]origin{engine.FieldHold: flagOrigin("--hold"), engine.FieldMaxHold: flagOrigin("--max-hold")}
	if len(rc.Levels) > 0 && !changed("ramp") {
		r.Levels = r.Levels[:0]
		for _, l := range rc.Levels {
			r.Levels = append(r.Levels, int(l))
		}
	}
	if rc.Hold != nil && !changed("hold") {
		r.Hold = time.Duration(*rc.Hold)
		from[engine.FieldHold] = origin{where: cfg.at("ramp.hold"), writeAs: "hold: "}
	}
	if rc.MaxHold != nil && !changed("max-hold") {
		r.MaxHold = time.Duration(*rc.MaxHold)
		from[engine.FieldMaxHold] = origin{where: cfg.at("ramp.max_hold"), writeAs: "max_hold: "}
	}
	if r.Hold <= 0 {
		return r, usageErrorf("--hold %s: want a positive duration such as 15s", r.Hold)
	}
	var fe *client.FieldError
	if err := r.Validate(); errors.As(err, &fe) {
		if o, ok := from[fe.Field]; ok {
			return r, fieldUsage(fe, o)
		}
		return r, fieldUsage(fe, flagOrigin("--"+fe.Field))
	}
	return r, nil
}

// sloKeys maps the terms of model.SLOError to the config's slo keys.
var sloKeys = map[string]string{"user_tps_p50": "user_tps_p50_min", "ttft_p95": "ttft_p95_max", "error_rate": "error_rate_max", "ttfo_p95": "ttfo_p95_max",
	"goodput": "goodput_min"}

// resolveSLO is the capacity criteria: the defaults, then the config's, then the
// terms of --slo over them. The config's criteria are judged by model.SLO.Validate,
// as --slo's are, and refused at their file and line.
func resolveSLO(flag string, cfg *fileConfig) (model.SLO, error) {
	slo := model.DefaultSLO
	sc := cfg.SLO
	if v := sc.UserTPSP50Min; v != nil {
		slo.UserTPSMin = float64(*v)
	}
	if v := sc.TTFTP95Max; v != nil {
		slo.TTFTP95Max = time.Duration(*v)
	}
	if v := sc.ErrorRateMax; v != nil {
		slo.ErrorRateMax = float64(*v)
	}
	if v := sc.TTFOP95Max; v != nil {
		slo.TTFOP95Max = time.Duration(*v)
	}
	if v := sc.GoodputMin; v != nil {
		slo.GoodputMin = float64(*v)
	}
	if err := slo.Validate(); err != nil {
		var se *model.SLOError
		if errors.As(err, &se) && sloKeys[se.Term] != "" {
			return slo, usageErrorf("%s: %v", cfg.at("slo."+sloKeys[se.Term]), err)
		}
		return slo, usageErrorf("config %s: slo: %v", cfg.path, err)
	}
	if flag == "" {
		return slo, nil
	}
	slo, err := model.ParseSLOFrom(slo, flag)
	if err == nil {
		err = slo.Validate()
	}
	if err != nil {
		return slo, usageErrorf("--slo: %v", err)
	}
	return slo, nil
}

// simulated plans a run on the built-in simulator: no endpoint is configured.
func (p *plan) simulated(f *runFlags, w client.Endpoint, shared sharedFlags, changed func(string) bool) ([]string, error) {
	p.simulate = true
	p.template = w
	p.template.Headers = shared.headers
	p.template.ExtraBody = shared.extra
	if p.profile == "" {
		p.profile = sim.DefaultProfile
	}
	if _, err := sim.Profile(p.profile); err != nil {
		return nil, usageErrorf("--profile: %v", err)
	}
	var notes []string
	if changed("model") {
		notes = append(notes, fmt.Sprintf("--model %q is ignored: no endpoint is configured (--url, $%s or --config), and the built-in simulator serves its own model", f.model, baseURLEnv))
	}
	return notes, nil
}

// real plans a run on the endpoints of specs.
func (p *plan) real(f *runFlags, w client.Endpoint, specs []endpointSpec, changed func(string) bool, getenv func(string) string) ([]string, error) {
	var notes []string
	for _, s := range specs {
		ep, note, err := s.build(w, getenv)
		if err != nil {
			return nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
		p.endpoints = append(p.endpoints, ep)
		p.sources = append(p.sources, s.where)
		p.keyEnvs = append(p.keyEnvs, s.keyEnv)
	}
	if changed("profile") {
		notes = append(notes, fmt.Sprintf("--profile %q is ignored: it is for the built-in simulator, used only when no endpoint is configured", f.profile))
	}
	nameEndpoints(p.endpoints)
	return notes, nil
}

// nameEndpoints gives every endpoint a distinct name: its own, else its host.
func nameEndpoints(eps []client.Endpoint) {
	seen := map[string]int{}
	for i := range eps {
		if eps[i].Name == "" {
			eps[i].Name = client.EndpointLabel(eps[i])
		}
		seen[eps[i].Name]++
		if n := seen[eps[i].Name]; n > 1 {
			eps[i].Name = fmt.Sprintf("%s#%d", eps[i].Name, n)
		}
	}
}
