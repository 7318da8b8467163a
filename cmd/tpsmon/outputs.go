package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/output"
	"github.com/tpsmon/tpsmon/probe/output/promexport"
	"github.com/tpsmon/tpsmon/probe/output/report"
)

// liveFlags are the outputs a run feeds as it goes (the live screen and bench).
type liveFlags struct {
	timeseries  string
	metricsAddr string
}

// register adds --timeseries and --metrics-addr to c.
func (f *liveFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.timeseries, "timeseries", "", "write one JSON line per second per endpoint (live tok/s, TTFT, users, errors) to this file as the run goes; play it with tpsmon replay")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve tpsmon's own metrics for Prometheus at http://HOST:PORT/metrics (e.g. 127.0.0.1:9464; :PORT means 127.0.0.1; off by default)")
}

// checkLive checks the live outputs' flags before anything starts.
func checkLive(f *liveFlags, others ...string) error {
	if err := checkOutput("timeseries", f.timeseries); err != nil {
		return err
	}
	for _, o := range others {
		if sameFile(f.timeseries, o) {
			return usageErrorf("--timeseries %s is also another output file; give each output its own name", f.timeseries)
		}
	}
	if f.metricsAddr != "" {
		if _, err := promexport.ParseAddr(f.metricsAddr); err != nil {
			return usageErrorf("--metrics-addr: %v", err)
		}
	}
	return nil
}

// openLive opens the time series file and starts the metrics server: the outputs a run
// feeds as it goes (output.TimeSeries, output.Metrics). End them with endLive.
func (a *app) openLive(f *liveFlags) (output.Set, error) {
	var set output.Set
	if f.timeseries != "" {
		ts, err := output.OpenTimeSeries(f.timeseries)
		if err != nil {
			return nil, usageErrorf("--timeseries %s: %v", f.timeseries, err)
		}
		set = append(set, output.Named{Name: "--timeseries " + f.timeseries, Output: ts})
	}
	if f.metricsAddr != "" {
		addr, _ := promexport.ParseAddr(f.metricsAddr) // checked by checkLive
		m, err := output.ServeMetrics(addr)
		if err != nil {
			a.endLive(&set)
			return nil, usageErrorf("--metrics-addr %s: %v", f.metricsAddr, err)
		}
		set = append(set, output.Named{Name: "--metrics-addr " + f.metricsAddr, Output: m})
		if !addr.Loopback {
			fmt.Fprintf(a.stderr, "tpsmon: warning: --metrics-addr %s is reachable from other machines: anyone who can reach it reads the endpoint names, models and load; use 127.0.0.1:PORT to keep it on this machine\n", addr.HostPort)
		}
		fmt.Fprintf(a.stderr, "tpsmon: metrics at http://%s/metrics\n", m.Addr())
	}
	return set, nil
}

// endLive stops the live outputs without a report (bench ends them with its report,
// endOutputs, so that the time series ends on the run's diagnosis): the metrics server
// stops, the time series file closes, saying how many lines it holds (or why it
// stopped). Idempotent.
func (a *app) endLive(live *output.Set) error {
	return a.endOutputs(live, nil)
}

// endOutputs ends a set of outputs with the run's report, saying what each wrote; a
// failure is a usage error that names the output ("--out results.json: cannot write the
// results: ..."), after the others have been written.
func (a *app) endOutputs(set *output.Set, rep *model.Report) error {
	err := set.End(rep, func(wrote string) { fmt.Fprintf(a.stderr, "tpsmon: wrote %s\n", wrote) })
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	return nil
}

// fileOutputs are bench's files written at its end: --out, --csv and --report (its
// format from the extension), each written even when another fails.
func fileOutputs(f *runFlags) output.Set {
	var set output.Set
	if f.out != "" {
		set = append(set, output.Named{Name: "--out " + f.out, Output: output.JSONFile{Path: f.out}})
	}
	if f.csv != "" {
		set = append(set, output.Named{Name: "--csv " + f.csv, Output: output.CSVFile{Path: f.csv}})
	}
	if f.report != "" {
		set = append(set, output.Named{Name: "--report " + f.report, Output: output.ReportFile{Path: f.report, Run: reportName(f.out)}})
	}
	return set
}

// checkReport checks bench's --report before the run.
func checkReport(path string, others ...string) error {
	if path == "" {
		return nil
	}
	if _, err := report.FormatOf(path); err != nil {
		return usageErrorf("--report %v", err)
	}
	if err := checkOutput("report", path); err != nil {
		return err
	}
	for _, o := range others {
		if sameFile(path, o) {
			return usageErrorf("--report %s is also another output file; give each output its own name", path)
		}
	}
	return nil
}

// reportName labels bench's run in its report: the results file when there is one.
func reportName(out string) string {
	if out != "" {
		return out
	}
	return "this bench run"
}
