package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/atomicfile"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/engine/promexport"
	"github.com/tpsmon/tpsmon/probe/engine/timeseries"
	"github.com/tpsmon/tpsmon/ui/report"
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

// liveOutputs are the open --timeseries file and --metrics-addr server of one run.
type liveOutputs struct {
	path      string
	file      *os.File
	ts        *timeseries.Writer
	srv       *promexport.Server
	observers []engine.Observer
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

// openLive opens the time series file and starts the metrics server; the run's engine
// gets their observers. Close them with close.
func (a *app) openLive(f *liveFlags) (*liveOutputs, error) {
	o := &liveOutputs{path: f.timeseries}
	if f.timeseries != "" {
		file, err := os.Create(f.timeseries)
		if err != nil {
			return nil, usageErrorf("--timeseries %s: cannot create the file: %v", f.timeseries, unwrapPathError(err))
		}
		o.file, o.ts = file, timeseries.NewWriter(file)
		o.observers = append(o.observers, o.ts)
	}
	if f.metricsAddr != "" {
		addr, _ := promexport.ParseAddr(f.metricsAddr) // checked by checkLive
		x := promexport.New()
		srv, err := promexport.Serve(addr.HostPort, x.Registry())
		if err != nil {
			o.close(a)
			return nil, usageErrorf("--metrics-addr %s: cannot listen: %v", f.metricsAddr, plainNetError(err))
		}
		o.srv = srv
		o.observers = append(o.observers, x)
		if !addr.Loopback {
			fmt.Fprintf(a.stderr, "tpsmon: warning: --metrics-addr %s is reachable from other machines: anyone who can reach it reads the endpoint names, models and load; use 127.0.0.1:PORT to keep it on this machine\n", addr.HostPort)
		}
		fmt.Fprintf(a.stderr, "tpsmon: metrics at http://%s/metrics\n", srv.Addr())
	}
	return o, nil
}

// plainNetError is a listen error without Go's "listen tcp" prefix.
func plainNetError(err error) error {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
}

// close stops the metrics server and closes the time series file, saying how many lines
// it holds (or why it stopped). Idempotent.
func (o *liveOutputs) close(a *app) error {
	if o == nil {
		return nil
	}
	if o.srv != nil {
		o.srv.Close()
		o.srv = nil
	}
	if o.file == nil {
		return nil
	}
	err := o.file.Close()
	o.file = nil
	if werr := o.ts.Err(); werr != nil {
		err = werr
	}
	if err != nil {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("--timeseries %s: cannot write: %v (%d lines written)", o.path, unwrapPathError(err), o.ts.Lines())}
	}
	fmt.Fprintf(a.stderr, "tpsmon: wrote %s (%d lines)\n", o.path, o.ts.Lines())
	return nil
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

// writeReport writes bench's --report (its format from the extension), atomically.
func (a *app) writeReport(path, name string, rep *model.Report) error {
	format, _ := report.FormatOf(path) // checked by checkReport
	run, err := report.NewRun(name, rep)
	if err == nil {
		var buf bytes.Buffer
		if err = report.Write(&buf, format, []*report.Run{run}); err == nil {
			err = atomicfile.Write(path, buf.Bytes(), 0o644)
		}
	}
	if err != nil {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("--report %s: cannot write the report: %v", path, unwrapPathError(err))}
	}
	fmt.Fprintf(a.stderr, "tpsmon: wrote %s\n", path)
	return nil
}

// reportName labels bench's run in its report: the results file when there is one.
func reportName(out string) string {
	if out != "" {
		return out
	}
	return "this bench run"
}
