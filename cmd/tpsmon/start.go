package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output"
	"github.com/tpsmon/tpsmon/probe/settings"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// simulator is the built-in simulator started in-process for a run.
type simulator struct {
	inst    *sim.Instance
	profile string
}

// start makes the plan runnable: it starts the simulator when nothing else is
// configured, or checks real endpoints (app.preflight) and fills in missing model
// names. A usage problem exits 2, an unreachable endpoint 3.
func (a *app) start(ctx context.Context, p *settings.Plan, check bool) (*simulator, error) {
	if p.Simulate {
		cfg, err := sim.Profile(p.Profile)
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
		ep := p.Template
		ep.Name = "simulator"
		ep.BaseURL = inst.URL
		ep.Model = cfg.Model
		ep.Simulated = true
		p.Endpoints = []client.Endpoint{ep}
		p.Sources = []string{"the built-in simulator"}
		p.KeyEnvs = []string{""}
		fmt.Fprintf(a.stderr, "tpsmon: no endpoint configured (--url, $%s or --config), so measuring the built-in simulator: profile %q, model %q at %s. Every number is SIMULATED.\n",
			settings.BaseURLEnv, p.Profile, cfg.Model, inst.URL)
		return &simulator{inst: inst, profile: p.Profile}, nil
	}
	return nil, a.preflight(ctx, p, check)
}

// preflight asks each real endpoint for its models (GET /models): with check set every
// one must answer (bench); otherwise only those without a model must, and the others
// are asked for a second at most, errors ignored (the screen starts against a server
// that is down, and says so). It fills in missing model names and marks an endpoint
// that is tpsmon's own simulator (tpsmon sim) as simulated.
func (a *app) preflight(ctx context.Context, p *settings.Plan, check bool) error {
	for i := range p.Endpoints {
		ep := &p.Endpoints[i]
		if !check && ep.Model != "" {
			pctx, cancel := context.WithTimeout(ctx, time.Second)
			models, err := client.Preflight(pctx, *ep)
			cancel()
			if err == nil {
				a.markSimulator(ep, models)
				ep.Served = servedList(models)
			}
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		models, err := client.Preflight(pctx, *ep)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return &exitError{code: exitInterrupt, msg: "interrupted"}
			}
			return &exitError{code: exitUnusable, msg: fmt.Sprintf("endpoint %s (%s) is unusable: %v\nCheck the URL, that the server is running, and the key in $%s.",
				ep.Name, client.RedactedURL(ep.BaseURL), err, p.KeyEnvs[i])}
		}
		names := client.ModelIDs(models)
		if ep.Model == "" {
			switch len(names) {
			case 1:
				ep.Model = names[0]
			case 0:
				return usageErrorf("%s: %s; %s does not list the models it serves", p.Sources[i], modelRequired(p.Sources[i]), client.RedactedURL(ep.BaseURL))
			default:
				return usageErrorf("%s: %s; the server serves: %s", p.Sources[i], modelRequired(p.Sources[i]), strings.Join(names, ", "))
			}
		} else if len(names) > 0 && !slices.Contains(names, ep.Model) {
			// Every request would be answered 404: refuse before any load.
			return usageErrorf("%s: %s does not serve it; its /models lists: %s (%s)", modelSource(p.Sources[i], ep.Model),
				client.RedactedURL(ep.BaseURL), strings.Join(names, ", "), modelChoice(p.Sources[i]))
		}
		a.markSimulator(ep, models)
		ep.Served = servedList(models)
	}
	return nil
}

// markSimulator marks ep simulated, and says so, when the models it serves say that
// its model is tpsmon's simulator's (owned_by sim.Owner): a `tpsmon sim` in another
// terminal or on another machine is as simulated as the built-in one.
func (a *app) markSimulator(ep *client.Endpoint, models []client.ServedModel) {
	if slices.Contains(models, client.ServedModel{ID: ep.Model, OwnedBy: sim.Owner}) {
		ep.Simulated = true
		fmt.Fprintf(a.stderr, "tpsmon: %s is tpsmon's simulator (its /models says owned_by %q): every number of it is SIMULATED.\n", ep.Name, sim.Owner)
	}
}

// servedList is the names of the models /models listed, nil when it listed none (the
// diagnosis then knows nothing of them).
func servedList(models []client.ServedModel) []string {
	if len(models) == 0 {
		return nil
	}
	return client.ModelIDs(models)
}

// modelSource names the model asked for where it was given: "--model x", or the
// config endpoint's "model x".
func modelSource(source, model string) string {
	if strings.HasPrefix(source, "config ") {
		return fmt.Sprintf("%s: model %q", source, model)
	}
	return fmt.Sprintf("--model %q", model)
}

// modelChoice says where to name one of the models served, for an endpoint from source.
func modelChoice(source string) string {
	if strings.HasPrefix(source, "config ") {
		return "name one of them in the endpoint's model: key"
	}
	return "name one of them with --model"
}

// modelRequired says where the model name goes for an endpoint from source: the
// config's model key, or --model.
func modelRequired(source string) string {
	if strings.HasPrefix(source, "config ") {
		return "model: is required for this endpoint (or --model for every endpoint)"
	}
	return "--model is required"
}

// runSetup is what bench and the screen both set up before their engine starts: the
// built-in simulator when it serves the run, the live outputs, and the engine's
// configuration with the live outputs' observers.
type runSetup struct {
	sim  *simulator
	live output.Set // the outputs the run feeds as it goes
	cfg  engine.Config
}

// setup makes the plan runnable (start), opens the live outputs (--timeseries,
// --metrics-addr) and builds the engine's configuration. Undo it with close.
func (a *app) setup(ctx context.Context, p *settings.Plan, lf *liveFlags, check bool) (*runSetup, error) {
	s, err := a.start(ctx, p, check)
	if err != nil {
		return nil, err
	}
	live, err := a.openLive(lf)
	if err != nil {
		s.Close()
		return nil, err
	}
	cfg := p.Engine()
	cfg.Version, cfg.Observers = toolVersion(), live.Observers()
	cfg.InProcessSim = s != nil // a tpsmon sim elsewhere is simulated too, but not in this process
	return &runSetup{sim: s, live: live, cfg: cfg}, nil
}

// close closes the live outputs, then stops the simulator. Idempotent.
func (r *runSetup) close(a *app) {
	_ = a.endLive(&r.live)
	r.sim.Close()
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

// unwrapPathError is err without the *os.PathError's operation and path (the message
// names the file itself).
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
