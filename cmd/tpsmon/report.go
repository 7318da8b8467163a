package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/probe/atomicfile"
	"github.com/tpsmon/tpsmon/probe/output/report"
)

func (a *app) newReportCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "report RESULTS.json [MORE.json ...] -o FILE",
		Short: "Turn results files into a report: HTML, SVG, PNG or Markdown",
		Long: `report reads results files written by tpsmon bench --out and writes one report:
the verdict in words (capacity, saturation, the criteria), the degradation curve
(per-user tok/s with the target band, aggregate tok/s, TTFT p95 against users),
the level tables and the settings. Several files, or files with several endpoints,
are overlaid and labelled: give a before and an after to see the change at a glance.

The format follows -o's extension: .html (one self-contained file, charts inline, nothing
loaded from anywhere), .svg or .png (one picture for a slide or a ticket), .md.`,
		Example: `  tpsmon report results.json -o report.html
  tpsmon report before.json after.json -o before-after.png`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &flagError{path: cmd.CommandPath(), err: fmt.Errorf("no results file: give one or more files written by tpsmon bench --out")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runReport(args, out)
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "the report file; its extension (.html, .svg, .png, .md) is the format")
	return c
}

func (a *app) runReport(paths []string, out string) error {
	if out == "" {
		return usageErrorf("-o FILE is required: the report file, e.g. -o report.html (.html, .svg, .png or .md)")
	}
	format, err := report.FormatOf(out)
	if err != nil {
		return usageErrorf("-o %v", err)
	}
	if err := checkOutput("output", out); err != nil {
		return err
	}
	runs, err := readRuns(paths)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if sameFile(p, out) {
			return usageErrorf("-o %s is one of the results files; give the report its own name", out)
		}
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, format, runs); err != nil {
		return usageErrorf("%v", err)
	}
	if err := atomicfile.Write(out, buf.Bytes(), 0o644); err != nil {
		return usageErrorf("-o %s: cannot write the report: %v", out, unwrapPathError(err))
	}
	fmt.Fprintf(a.stderr, "tpsmon: wrote %s\n", out)
	return nil
}

// readRuns reads results files; an unreadable or foreign file is a usage error naming it.
func readRuns(paths []string) ([]*report.Run, error) {
	runs := make([]*report.Run, 0, len(paths))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, usageErrorf("%s: cannot read the results: %v", p, unwrapPathError(err))
		}
		r, err := report.Decode(p, data)
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}
