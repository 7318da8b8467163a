package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	engine "github.com/tpsmon/tpsmon/probe/run"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// plan is what a run measures, resolved from the flags, the config file and the
// environment, before anything touches the network.
type plan struct {
	endpoints []probe.Endpoint // empty when simulate
	sources   []string         // where each endpoint was configured, for messages
	keyEnvs   []string         // the variable each endpoint's key comes from, for hints
	simulate  bool             // no endpoint configured: measure the built-in simulator
	template  probe.Endpoint   // workload (and API) for the simulated endpoint
	profile   string
	ramp      engine.Ramp
	slo       model.SLO
}

// resolve validates every flag and the config file and builds the plan. Every error is
// a usage error (exit 2) that says what is wrong, where, and what to do.
func (a *app) resolve(cmd *cobra.Command, f *runFlags) (*plan, error) {
	changed := cmd.Flags().Changed
	var cfg *fileConfig
	if f.config != "" {
		var err error
		if cfg, err = loadConfig(f.config); err != nil {
			return nil, &exitError{code: exitUsage, msg: err.Error()}
		}
	} else {
		cfg = &fileConfig{}
	}

	// Workload: defaults (the flag defaults), then the config, then flags given.
	w := probe.Endpoint{
		API:          "chat",
		MaxTokens:    f.maxTokens,
		Prompt:       f.prompt,
		PromptTokens: f.promptTokens,
		IgnoreEOS:    f.ignoreEOS,
		Timeout:      f.timeout,
		Insecure:     f.insecure,
	}
	wc := cfg.Workload
	if wc.MaxTokens != nil && !changed("max-tokens") {
		w.MaxTokens = int(*wc.MaxTokens)
	}
	if wc.Prompt != nil && !changed("prompt") {
		w.Prompt = *wc.Prompt
	}
	if wc.PromptTokens != nil && !changed("prompt-tokens") {
		w.PromptTokens = int(*wc.PromptTokens)
	}
	if wc.IgnoreEOS != nil && !changed("ignore-eos") {
		w.IgnoreEOS = *wc.IgnoreEOS
	}
	if wc.Timeout != nil && !changed("timeout") {
		w.Timeout = time.Duration(*wc.Timeout)
	}
	switch {
	case w.MaxTokens < 1:
		return nil, usageErrorf("--max-tokens %d: want at least 1", w.MaxTokens)
	case w.PromptTokens < 0:
		return nil, usageErrorf("--prompt-tokens %d: want 0 or more", w.PromptTokens)
	case w.Timeout <= 0:
		return nil, usageErrorf("--timeout %s: want a positive duration such as 60s", w.Timeout)
	}
	if f.api != "chat" && f.api != "completions" {
		return nil, usageErrorf("--api %q: want chat or completions", f.api)
	}
	if changed("api") {
		w.API = f.api
	}

	// Endpoint flags that apply to every endpoint when given.
	flagHeaders := http.Header{}
	for _, h := range f.headers {
		if err := parseHeader(h, flagHeaders); err != nil {
			return nil, usageErrorf("%v", err)
		}
	}
	var flagExtra map[string]any
	if f.extraBody != "" {
		var err error
		if flagExtra, err = parseExtraBody(f.extraBody); err != nil {
			return nil, usageErrorf("%v", err)
		}
	}
	if f.apiKeyEnv == "" {
		return nil, usageErrorf("--api-key-env: want the name of an environment variable, e.g. OPENAI_API_KEY")
	}
	if !validEnvName(f.apiKeyEnv) {
		return nil, usageErrorf("--api-key-env: %s", keyEnvHint)
	}

	p := &plan{profile: f.profile, slo: model.DefaultSLO}

	// Ramp and SLO.
	levels, err := parseRamp(f.ramp)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	p.ramp = engine.Ramp{Levels: levels, Hold: f.hold}
	if len(cfg.Ramp.Levels) > 0 && !changed("ramp") {
		p.ramp.Levels = p.ramp.Levels[:0]
		for _, l := range cfg.Ramp.Levels {
			p.ramp.Levels = append(p.ramp.Levels, int(l))
		}
	}
	if cfg.Ramp.Hold != nil && !changed("hold") {
		p.ramp.Hold = time.Duration(*cfg.Ramp.Hold)
	}
	if p.ramp.Hold <= 0 {
		return nil, usageErrorf("--hold %s: want a positive duration such as 15s", p.ramp.Hold)
	}
	if v := cfg.SLO.UserTPSP50Min; v != nil {
		p.slo.UserTPSMin = *v
	}
	if v := cfg.SLO.TTFTP95Max; v != nil {
		p.slo.TTFTP95Max = time.Duration(*v)
	}
	if v := cfg.SLO.ErrorRateMax; v != nil {
		p.slo.ErrorRateMax = float64(*v)
	}
	if f.slo != "" {
		if p.slo, err = model.ParseSLOFrom(p.slo, f.slo); err != nil {
			return nil, usageErrorf("--slo: %v", err)
		}
	}

	// Endpoints: --url, else the config's, else $OPENAI_BASE_URL, else the simulator.
	keyEnv := f.apiKeyEnv
	build := func(src, rawURL, name, model, keyEnv string, headers http.Header, extra map[string]any) error {
		u, err := normalizeURL(rawURL)
		if err != nil {
			return usageErrorf("%s: %v", src, err)
		}
		ep := w
		ep.BaseURL = u
		ep.Name = name
		ep.Model = model
		ep.APIKey = a.getenv(keyEnv)
		if ep.APIKey == "" && keyEnv != defaultKeyEnv {
			fmt.Fprintf(a.stderr, "tpsmon: note: $%s is empty or unset, so %s gets no API key\n", keyEnv, src)
		}
		ep.Headers = headers
		ep.ExtraBody = extra
		p.endpoints = append(p.endpoints, ep)
		p.sources = append(p.sources, src)
		p.keyEnvs = append(p.keyEnvs, keyEnv)
		return nil
	}
	switch {
	case f.url != "":
		if err := build("--url", f.url, "", f.model, keyEnv, flagHeaders, flagExtra); err != nil {
			return nil, err
		}
	case len(cfg.Endpoints) > 0:
		for i, ec := range cfg.Endpoints {
			src := cfg.where(i)
			if ec.URL == "" {
				return nil, usageErrorf("%s: url is required, e.g. url: http://127.0.0.1:8000/v1", src)
			}
			headers := http.Header{}
			for k, v := range ec.Headers {
				if err := parseHeader(k+": "+v, headers); err != nil {
					return nil, usageErrorf("%s: headers: %v", src, strings.TrimSpace(strings.TrimPrefix(err.Error(), "--header")))
				}
			}
			for k, v := range flagHeaders {
				headers[k] = v
			}
			extra := maps.Clone(ec.ExtraBody)
			if len(flagExtra) > 0 && extra == nil {
				extra = map[string]any{}
			}
			maps.Copy(extra, flagExtra)
			model, env := ec.Model, keyEnv
			if changed("model") {
				model = f.model
			}
			if ec.APIKeyEnv != "" && !changed("api-key-env") {
				env = string(ec.APIKeyEnv)
			}
			if err := build(src, ec.URL, ec.Name, model, env, headers, extra); err != nil {
				return nil, err
			}
			ep := &p.endpoints[len(p.endpoints)-1]
			if ec.API != "" && !changed("api") {
				ep.API = string(ec.API)
			}
			if !changed("insecure") {
				ep.Insecure = ec.Insecure
			}
		}
	case a.getenv(baseURLEnv) != "":
		if err := build("$"+baseURLEnv, a.getenv(baseURLEnv), "", f.model, keyEnv, flagHeaders, flagExtra); err != nil {
			return nil, err
		}
	default:
		p.simulate = true
		p.template = w
		p.template.Headers = flagHeaders
		p.template.ExtraBody = flagExtra
		if p.profile == "" {
			p.profile = sim.DefaultProfile
		}
		if _, err := sim.Profile(p.profile); err != nil {
			return nil, usageErrorf("--profile: %v", err)
		}
		if changed("model") {
			fmt.Fprintf(a.stderr, "tpsmon: note: --model %q is ignored: no endpoint is configured (--url, $%s or --config), and the built-in simulator serves its own model\n", f.model, baseURLEnv)
		}
	}
	if !p.simulate && changed("profile") {
		fmt.Fprintf(a.stderr, "tpsmon: note: --profile %q is ignored: it is for the built-in simulator, used only when no endpoint is configured\n", f.profile)
	}
	nameEndpoints(p.endpoints)
	return p, nil
}

// nameEndpoints gives every endpoint a distinct name: its own, else its host.
func nameEndpoints(eps []probe.Endpoint) {
	seen := map[string]int{}
	for i := range eps {
		if eps[i].Name == "" {
			eps[i].Name = probe.EndpointLabel(eps[i])
		}
		seen[eps[i].Name]++
		if n := seen[eps[i].Name]; n > 1 {
			eps[i].Name = fmt.Sprintf("%s#%d", eps[i].Name, n)
		}
	}
}

// simulator is the built-in simulator started in-process for a run.
type simulator struct {
	inst    *sim.Instance
	profile string
}

// start makes the plan runnable: it starts the simulator when nothing else is
// configured, or checks real endpoints (preflight) and fills in missing model names.
// With check set, every real endpoint must answer its preflight (bench); otherwise only
// those without a model are asked. A usage problem exits 2, an unreachable endpoint 3.
func (a *app) start(ctx context.Context, p *plan, check bool) (*simulator, error) {
	if p.simulate {
		cfg, err := sim.Profile(p.profile)
		if err != nil {
			return nil, usageErrorf("--profile: %v", err)
		}
		// The simulator outlives Ctrl-C (ctx) until Close: the run cuts its in-flight
		// requests first, as ours (canceled); a simulator shutting down under them
		// would end their streams early and make them the endpoint's errors.
		inst, err := sim.Start(context.WithoutCancel(ctx), "127.0.0.1:0", cfg)
		if err != nil {
			return nil, &exitError{code: exitUnusable, msg: fmt.Sprintf("cannot start the built-in simulator: %v", err)}
		}
		ep := p.template
		ep.Name = "simulator"
		ep.BaseURL = inst.URL
		ep.Model = cfg.Model
		ep.Simulated = true
		p.endpoints = []probe.Endpoint{ep}
		p.sources = []string{"the built-in simulator"}
		p.keyEnvs = []string{""}
		fmt.Fprintf(a.stderr, "tpsmon: no endpoint configured (--url, $%s or --config), so measuring the built-in simulator: profile %q, model %q at %s. Every number is SIMULATED.\n",
			baseURLEnv, p.profile, cfg.Model, inst.URL)
		return &simulator{inst: inst, profile: p.profile}, nil
	}
	for i := range p.endpoints {
		ep := &p.endpoints[i]
		if !check && ep.Model != "" {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		models, err := probe.Preflight(pctx, *ep)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, &exitError{code: exitInterrupt, msg: "interrupted"}
			}
			return nil, &exitError{code: exitUnusable, msg: fmt.Sprintf("endpoint %s (%s) is unusable: %v\nCheck the URL, that the server is running, and the key in $%s.",
				ep.Name, probe.RedactedURL(ep.BaseURL), err, p.keyEnvs[i])}
		}
		if ep.Model == "" {
			switch len(models) {
			case 1:
				ep.Model = models[0]
			case 0:
				return nil, usageErrorf("%s: --model is required; %s does not list the models it serves", p.sources[i], probe.RedactedURL(ep.BaseURL))
			default:
				return nil, usageErrorf("%s: --model is required; the server serves: %s", p.sources[i], strings.Join(models, ", "))
			}
		} else if len(models) > 0 && !slices.Contains(models, ep.Model) {
			fmt.Fprintf(a.stderr, "tpsmon: warning: %s does not list model %q; it lists: %s\n", ep.Name, ep.Model, strings.Join(models, ", "))
		}
	}
	return nil, nil
}

// Close stops the simulator.
func (s *simulator) Close() {
	if s != nil && s.inst != nil {
		_ = s.inst.Close()
	}
}

// checkOutput fails early, before the run, when an output file cannot be written
// where asked, so that a long run never ends without its results.
func checkOutput(flag, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() || strings.HasSuffix(path, string(filepath.Separator)) {
		return usageErrorf("--%s %s: is a directory; give a file name such as results.json", flag, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return usageErrorf("--%s %s: the directory %s does not exist", flag, path, dir)
	}
	tmp, err := os.CreateTemp(dir, ".tpsmon-*")
	if err != nil {
		return usageErrorf("--%s %s: cannot write in %s: %v", flag, path, dir, unwrapPathError(err))
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}

// sameFile reports whether two output paths name the same file.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
