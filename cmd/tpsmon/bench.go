package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/atomicfile"
)

func (a *app) newBenchCmd() *cobra.Command {
	f := &runFlags{}
	c := &cobra.Command{
		Use:   "bench",
		Short: "Ramp the load headlessly and print the degradation curve (Markdown, JSON, CSV)",
		Long: `bench holds each concurrency of the ramp in turn against every endpoint at once, then
prints one Markdown table of levels per endpoint with its capacity and saturation.

Exit codes: 0 ok; 1 capacity below --min-capacity; 2 usage or config error;
3 endpoint unusable (unreachable, or every request failed); 130 interrupted.`,
		Example: `  tpsmon bench                                   # the built-in simulator
  tpsmon bench --url http://127.0.0.1:8000/v1 --ramp 1,4,16,64 --hold 30s --out results.json
  tpsmon bench --config endpoints.yaml --slo "user_tps_p50>=20,ttft_p95<=1s" --min-capacity 16`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runBench(cmd, f)
		},
	}
	f.register(c, benchRampFlag, "15s")
	fs := c.Flags()
	fs.StringVar(&f.out, "out", "", "write the results as JSON (schema tpsmon.bench/v1) to this file")
	fs.StringVar(&f.csv, "csv", "", "write one CSV row per endpoint and level to this file")
	fs.IntVar(&f.minCapacity, "min-capacity", 0, "exit 1 when an endpoint's capacity (users meeting --slo) is below this")
	return c
}

func (a *app) runBench(cmd *cobra.Command, f *runFlags) error {
	p, err := a.resolve(cmd, f)
	if err != nil {
		return err
	}
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
	if a.planned != nil {
		if err := a.planned(p); err != nil {
			return err
		}
	}
	ctx := cmd.Context()
	s, err := a.start(ctx, p, true)
	if err != nil {
		return err
	}
	defer s.Close()

	pr := newProgressPrinter(a.stderr, len(p.endpoints))
	res, err := probe.Bench(ctx, probe.BenchConfig{
		Endpoints: p.endpoints,
		Ramp:      p.ramp,
		SLO:       p.slo,
		Version:   toolVersion(),
		Progress:  pr.update,
	})
	if err != nil {
		return usageErrorf("%v", err)
	}
	rep := res.Report

	if s != nil {
		fmt.Fprintf(a.stdout, "> **Simulated endpoint**: these numbers come from tpsmon's built-in simulator (profile %q), not from a real server.\n\n", s.profile)
	}
	fmt.Fprint(a.stdout, model.Markdown(rep))
	for _, w := range model.HoldWarnings(rep) {
		fmt.Fprintf(a.stderr, "tpsmon: warning: %s\n", w)
	}

	if err := a.writeOutputs(f, rep); err != nil {
		return err
	}
	if rep.Interrupted {
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
				p.endpoints[i].Name, probe.RedactedURL(p.endpoints[i].BaseURL), failed, msg))
		}
	}
	if len(unusable) > 0 {
		return &exitError{code: exitUnusable, msg: strings.Join(unusable, "\n")}
	}
	if f.minCapacity > 0 {
		var below []string
		for _, e := range rep.Endpoints {
			if e.Capacity.Users < f.minCapacity {
				below = append(below, fmt.Sprintf("endpoint %s: capacity %d users is below --min-capacity %d", e.Name, e.Capacity.Users, f.minCapacity))
			}
		}
		if len(below) > 0 {
			return &exitError{code: exitCapacity, msg: strings.Join(below, "\n")}
		}
	}
	return nil
}

// writeOutputs writes --out and --csv (also after an interruption) and says where. A
// file that cannot be written does not keep the other from being written. Each is
// written atomically: a run cut while writing leaves the old file whole.
func (a *app) writeOutputs(f *runFlags, rep *model.Report) error {
	var failed []string
	if f.out != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = atomicfile.Write(f.out, append(data, '\n'), 0o644)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("--out: cannot write the results: %v", err))
		} else {
			fmt.Fprintf(a.stderr, "tpsmon: wrote %s\n", f.out)
		}
	}
	if f.csv != "" {
		if err := atomicfile.Write(f.csv, []byte(model.CSV(rep)), 0o644); err != nil {
			failed = append(failed, fmt.Sprintf("--csv: cannot write the results: %v", err))
		} else {
			fmt.Fprintf(a.stderr, "tpsmon: wrote %s\n", f.csv)
		}
	}
	if len(failed) > 0 {
		return &exitError{code: exitUsage, msg: strings.Join(failed, "\n")}
	}
	return nil
}

// progressPrinter shows bench progress on stderr: on a terminal, one line per endpoint
// redrawn in place; otherwise one plain line per level change.
type progressPrinter struct {
	w     io.Writer
	tty   bool
	width int
	lines []string
	drawn int
}

func newProgressPrinter(w io.Writer, endpoints int) *progressPrinter {
	pr := &progressPrinter{w: w, lines: make([]string, endpoints)}
	if fd, ok := fileDescriptor(w); ok && term.IsTerminal(fd) {
		pr.tty = true
		if width, _, err := term.GetSize(fd); err == nil && width > 0 {
			pr.width = width
		}
	}
	return pr
}

func (pr *progressPrinter) update(p probe.BenchProgress) {
	line := p.String()
	if !pr.tty {
		if p.LevelChange {
			fmt.Fprintf(pr.w, "tpsmon: %s\n", line)
		}
		return
	}
	if pr.width > 1 {
		line = ansi.Truncate(line, pr.width-1, "") // by display width, never inside a character
	}
	pr.lines[p.Endpoint] = line
	var b strings.Builder
	if pr.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", pr.drawn) // back to the first line
	}
	for _, l := range pr.lines {
		b.WriteString("\r\x1b[2K")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	pr.drawn = len(pr.lines)
	io.WriteString(pr.w, b.String())
}

// fileDescriptor returns the descriptor behind w or r when it is an *os.File.
func fileDescriptor(v any) (uintptr, bool) {
	if f, ok := v.(interface{ Fd() uintptr }); ok {
		return f.Fd(), true
	}
	return 0, false
}
