package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/output"
)

// mergeFlags are merge's flags.
type mergeFlags struct {
	out string
	csv string
}

func (a *app) newMergeCmd() *cobra.Command {
	f := &mergeFlags{}
	cmd := &cobra.Command{
		Use:   "merge A.json B.json ... [-o MERGED.json]",
		Short: "Merge the results.json of several runs or shards into one report",
		Long: `merge combines results.json files written by tpsmon bench: the shards of one run
(every one of them, each once) or whole runs of the same workload. Histograms are merged
and counters summed, so the merged percentiles are those of one process that saw every
request. The aggregate tok/s of shards (which send at the same time) is the sum of the
shards' own rates, each over its steady windows; that of whole runs is their tokens over
the union of their windows. Shards must share their --start-at. Capacity and saturation are recomputed. Lengths and chunk gaps are merged from their
histograms (files written before they were carried leave them out, and say so). The
server's view is kept when every file names the same metrics URL: its gauges are the
mean over all scrapes, never summed. Files whose settings differ, or that carry no
histograms, are refused (exit 2). The merged report is printed as Markdown.`,
		Example: `  tpsmon merge shard-0.json shard-1.json shard-2.json shard-3.json -o merged.json`,
		Args:    cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			return a.runMerge(f, args)
		},
	}
	cmd.Flags().StringVarP(&f.out, "out", "o", "", "write the merged results as JSON (schema "+model.Schema+") to this file")
	cmd.Flags().StringVar(&f.csv, "csv", "", "write the merged levels as CSV to this file")
	return cmd
}

// runMerge reads the files, merges them, prints the Markdown and writes the outputs.
func (a *app) runMerge(f *mergeFlags, args []string) error {
	if len(args) < 2 {
		return usageErrorf("merge needs at least two results.json files, e.g. tpsmon merge shard-0.json shard-1.json -o merged.json")
	}
	for _, o := range []struct{ flag, path string }{{"out", f.out}, {"csv", f.csv}} {
		if err := checkOutput(o.flag, o.path); err != nil {
			return err
		}
		for _, in := range args {
			if sameFile(o.path, in) {
				return usageErrorf("--%s %s is one of the files to merge; give the merged report its own name", o.flag, o.path)
			}
		}
	}
	if sameFile(f.out, f.csv) {
		return usageErrorf("--out %s and --csv %s are the same file; give each its own name", f.out, f.csv)
	}
	files := make([]model.MergeFile, 0, len(args))
	for _, name := range args {
		r, err := readResults(name)
		if err != nil {
			return usageErrorf("%v", err)
		}
		files = append(files, model.MergeFile{Name: name, Report: r})
	}
	merged, err := model.Merge(files)
	if err != nil {
		return usageErrorf("cannot merge: %v", err)
	}
	for _, n := range model.MergeNotes(files) {
		fmt.Fprintf(a.stderr, "tpsmon: %s\n", n)
	}
	outs := output.Set{{Name: "stdout", Output: output.Summary{W: a.stdout}}}
	if f.out != "" {
		outs = append(outs, output.Named{Name: "--out " + f.out, Output: output.JSONFile{Path: f.out}})
	}
	if f.csv != "" {
		outs = append(outs, output.Named{Name: "--csv " + f.csv, Output: output.CSVFile{Path: f.csv}})
	}
	return a.endOutputs(&outs, merged)
}

// readResults reads one results.json.
func readResults(name string) (*model.Report, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read it: %v", name, unwrapPathError(err))
	}
	var r model.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a tpsmon results.json: %v", name, err)
	}
	if r.Schema == "" {
		return nil, fmt.Errorf("%s: not a tpsmon results.json (no schema)", name)
	}
	return &r, nil
}
