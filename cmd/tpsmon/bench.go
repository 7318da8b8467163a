package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output"
	"github.com/tpsmon/tpsmon/probe/settings"
)

func (a *app) newBenchCmd() *cobra.Command {
	f := &runFlags{}
	c := &cobra.Command{
		Use:   "bench",
		Short: "Ramp the load headlessly and print the degradation curve (Markdown, JSON, CSV)",
		Long: `bench holds each concurrency of the ramp in turn against every endpoint at once, then
prints one Markdown table of levels per endpoint with its capacity and saturation.

A level is held until its criteria are decided at 95% and its per-user p50 and aggregate
tok/s are known to 5%, with at least 8 steady requests (--min-requests) and --hold of
steady time, up to --max-hold (then it is marked short, or undecided). The climb of an
endpoint stops early when its level has more than 5% errors or a TTFT p95 over twice the
--slo target (--full-ramp walks every level anyway); then the capacity is refined by
bisection between the ramp's levels (--refine=false: not) and its level confirmed.
--max-duration bounds the run.

A load too large for one machine is split over several bench processes: each runs
--shard INDEX/COUNT (or --shards COUNT with $JOB_COMPLETION_INDEX) with the same
--start-at; they start at that moment and change level on a fixed schedule, each level
lasting exactly --hold (the adaptive hold and the early stop are off). Merge their
--out files with tpsmon merge. Their clocks must agree (NTP).

Exit codes: 0 ok; 1 capacity below --min-capacity; 2 usage or config error;
3 endpoint unusable (unreachable, or every request failed); 130 interrupted.`,
		Example: `  tpsmon bench                                   # the built-in simulator
  tpsmon bench --url http://127.0.0.1:8000/v1 --ramp 1,4,16,64 --hold 30s --out results.json
  tpsmon bench --config endpoints.yaml --slo "user_tps_p50>=20,ttft_p95<=1s" --min-capacity 16
  tpsmon bench --rate 2,4,8,16 --max-concurrency 64 --slo "goodput>=95%"   # arrival rates (open loop)
  tpsmon bench --dataset prompts.jsonl --max-tokens uniform:50:150
  tpsmon bench --url http://10.0.0.5:8000/v1 --shard 1/4 --start-at 2026-11-23T16:00:00Z --out shard-1.json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runBench(cmd, f)
		},
	}
	f.settings = settings.Register(c.Flags(), settings.Bench)
	fs := c.Flags()
	fs.StringVar(&f.out, "out", "", "write the results as JSON (schema tpsmon.bench/v1) to this file")
	fs.StringVar(&f.csv, "csv", "", "write one CSV row per endpoint and level to this file")
	fs.IntVar(&f.minCapacity, "min-capacity", 0, "exit 1 when an endpoint's capacity (users meeting --slo) is below this")
	fs.StringVar(&f.report, "report", "", "write a report at the end (verdict, degradation curve, levels); the format comes from the extension: .html, .svg, .png or .md")
	f.live.register(c)
	return c
}

func (a *app) runBench(cmd *cobra.Command, f *runFlags) error {
	p, err := a.plan(f)
	if err != nil {
		return err
	}
	if err := checkBenchOutputs(f); err != nil {
		return err
	}
	if f.minCapacity > 0 && p.Trace != nil {
		return usageErrorf("--min-capacity judges a ramp's capacity, and a trace replayed on its schedule has no ramp " +
			"(its verdict says whether the endpoint held the trace's load): drop --min-capacity, or walk a ramp with --ramp or --rate")
	}
	if a.planned != nil {
		if err := a.planned(p); err != nil {
			return err
		}
	}
	ctx := cmd.Context()
	su, err := a.setup(ctx, p, &f.live, true)
	if err != nil {
		return err
	}
	defer su.close(a)
	eng, err := engine.Start(ctx, su.cfg)
	if err != nil {
		return engineError(err)
	}
	defer eng.Close()
	sayPlan(a.stderr, p, time.Now())
	pr := newProgressPrinter(a.stderr, len(p.Endpoints))
	res, err := eng.Run(ctx, pr.update)
	if err != nil {
		return engineError(err)
	}
	rep := res.Report
	liveErr := a.endOutputs(&su.live, rep) // the time series ends on the run's diagnosis

	a.saySimulated(su.sim, p.Endpoints)
	stdout := output.Set{{Name: "stdout", Output: output.Summary{W: a.stdout}}}
	if err := a.endOutputs(&stdout, rep); err != nil {
		return err
	}
	a.printRampEnds(res, p.MaxDuration)

	files := fileOutputs(f)
	if err := a.endOutputs(&files, rep); err != nil {
		return err
	}
	if liveErr != nil {
		return liveErr
	}
	return benchExit(res, p, f.minCapacity)
}

// checkBenchOutputs refuses bench's own flags when they are wrong, before the run:
// --min-capacity and every output file.
func checkBenchOutputs(f *runFlags) error {
	if f.minCapacity < 0 {
		return usageErrorf("--min-capacity %d: want 0 or more", f.minCapacity)
	}
	if err := checkOutput("out", f.out); err != nil {
		return err
	}
	if err := checkOutput("csv", f.csv); err != nil {
		return err
	}
	if sameFile(f.out, f.csv) {
		return usageErrorf("--out %s and --csv %s are the same file; give each its own name", f.out, f.csv)
	}
	if err := checkReport(f.report, f.out, f.csv); err != nil {
		return err
	}
	return checkLive(&f.live, f.out, f.csv, f.report)
}

// benchExit is bench's exit: interrupted, an unusable endpoint, or a capacity below
// --min-capacity, in that order.
func benchExit(res *engine.Result, p *settings.Plan, minCapacity int) error {
	rep := res.Report
	if rep.Interrupted && !res.Over {
		return &exitError{code: exitInterrupt, msg: "interrupted: the report covers what was measured until then"}
	}
	var unusable []string
	for i, o := range res.Outcomes {
		if o.Unusable() {
			msg := o.LastError
			if msg == "" {
				msg = "no request succeeded"
			}
			failed := fmt.Sprintf("all %d requests failed", o.Requests)
			if o.Requests == 1 {
				failed = "the only request failed"
			}
			unusable = append(unusable, fmt.Sprintf("endpoint %s (%s): %s; last error: %s",
				p.Endpoints[i].Name, client.RedactedURL(p.Endpoints[i].BaseURL), failed, msg))
		}
	}
	if len(unusable) > 0 {
		return &exitError{code: exitUnusable, msg: strings.Join(unusable, "\n")}
	}
	if minCapacity > 0 {
		var below []string
		for _, e := range rep.Endpoints {
			if e.Capacity.Users < minCapacity {
				j := model.JudgeEndpoint(&rep.Settings, &e, rep.Interrupted, false)
				below = append(below, fmt.Sprintf("endpoint %s: capacity %s is below --min-capacity %d", e.Name, j.Capacity.Words(j.Rate), minCapacity))
			}
		}
		if len(below) > 0 {
			return &exitError{code: exitCapacity, msg: strings.Join(below, "\n")}
		}
	}
	return nil
}

// printRampEnds says, under the tables, which levels were short and where and why a
// ramp ended early (stderr), and when the maximum duration cut the run (also stdout).
func (a *app) printRampEnds(res *engine.Result, maxDuration time.Duration) {
	for _, n := range res.Notices {
		switch n.Kind {
		case engine.LevelShort, engine.LevelUndecided:
			if n.End.Confirm {
				fmt.Fprintf(a.stderr, "tpsmon: warning: %s; hold longer (--max-hold) to confirm it\n", n)
				continue
			}
			if n.Kind == engine.LevelUndecided {
				fmt.Fprintf(a.stderr, "tpsmon: warning: %s: %s reached --max-hold with %s undecided at 95%%: marked undecided, it decides no capacity; hold longer (--max-hold) to decide it\n",
					n.Name, engine.LevelWord(n.Rate, n.Users), model.TermsWords(n.End.Undecided))
				continue
			}
			if n.Level.Fixed {
				fmt.Fprintf(a.stderr, "tpsmon: warning: %s: %s ended on the fixed schedule (--start-at) with %d/%d steady requests: marked short; hold longer (--hold) or ask for fewer tokens\n",
					n.Name, engine.LevelWord(n.Rate, n.Users), n.Level.Steady, n.Level.Need)
				continue
			}
			fmt.Fprintf(a.stderr, "tpsmon: warning: %s: %s reached --max-hold with %s: marked short; hold longer (--max-hold) or ask for fewer tokens\n",
				n.Name, engine.LevelWord(n.Rate, n.Users), model.And(n.End.Missing))
		case engine.LevelImprecise:
			fmt.Fprintf(a.stderr, "tpsmon: %s\n", n)
		case engine.RampWarned:
			why := "--full-ramp"
			if res.Report.Settings.StartAt != "" {
				why = "a fixed schedule (--start-at) cannot stop early"
			}
			fmt.Fprintf(a.stderr, "tpsmon: %s: at %s %s; going on (%s)\n", n.Name, engine.LevelWord(n.Rate, n.Users), n.Stop, why)
		}
	}
	if t := res.Report.Settings.Trace; t != nil { // a window is short by its requests, whenever they ended
		for _, e := range res.Report.Endpoints {
			for _, l := range e.Levels {
				if l.Short {
					fmt.Fprintf(a.stderr, "tpsmon: warning: %s: %s had %d/%d steady requests: marked short; give longer windows (--trace-window)\n",
						e.Name, t.WindowWords(l.Concurrency), l.Steady, res.Report.Settings.LevelNeed(l.Concurrency))
				}
			}
		}
	}
	for i, end := range res.Ramps {
		if end.Kind == engine.EndStopped {
			name := res.Report.Endpoints[i].Name
			fmt.Fprintf(a.stdout, "\n> %s: the ramp stopped at %s: %s when it stopped (--full-ramp walks every level).\n", name, engine.LevelWord(res.Report.Settings.Mode == "rate", end.Users), end.Stop)
		}
	}
	if res.Late > 0 {
		fmt.Fprintf(a.stdout, "\n> This run started %s after --start-at %s: its first level was that much shorter than the other shards'. Start the shards earlier, and check their clocks (NTP).\n",
			res.Late.Round(time.Millisecond), res.Report.Settings.StartAt)
	}
	if res.Over {
		fmt.Fprintf(a.stdout, "\n> The run reached its maximum duration (%s): the ramp was cut; the report covers what was measured until then.\n", maxDuration)
	}
}

// saySimulated writes, above the Markdown, a line for the built-in simulator (sim) or
// for each endpoint that is a tpsmon sim elsewhere.
func (a *app) saySimulated(sim *simulator, eps []client.Endpoint) {
	if sim != nil {
		fmt.Fprintf(a.stdout, "> **Simulated endpoint**: these numbers come from tpsmon's built-in simulator (profile %q), not from a real server.\n\n", sim.profile)
		return
	}
	for _, ep := range eps {
		if ep.Simulated {
			fmt.Fprintf(a.stdout, "> **Simulated endpoint**: %s is tpsmon's simulator (`tpsmon sim`), not a real server: its numbers are simulated.\n\n", ep.Name)
		}
	}
}
