package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/output/report"
)

func (a *app) newCompareCmd() *cobra.Command {
	var maxReg, maxErr string
	c := &cobra.Command{
		Use:   "compare BASE.json NEW.json",
		Short: "Compare two results files for CI: exit 1 when NEW is worse than BASE",
		Long: `compare prints, per endpoint and level, per-user tok/s p50, aggregate tok/s, TTFT p95
and the error rate of BASE and NEW with the change, and each endpoint's capacity
before and after, as Markdown.

NEW is worse when, at some level, per-user or aggregate tok/s fell by more than
--max-regression, TTFT p95 rose by more than --max-regression, the error rate rose
by more than --max-error-increase points, NEW did not reach a level BASE measured, or
an endpoint's capacity fell. A change counts only when the 95% intervals decide it:
NEW's whole interval lies beyond BASE's, moved by the threshold. A change beyond the
threshold that they do not decide is said ("within what 42 and 38 requests can
tell"), not called a regression. Files written before intervals are judged on their
figures alone, and the output says so.

Exit codes: 0 no regression decided; 1 NEW is worse than BASE; 2 usage error, or the runs
cannot be compared (rate mode against users mode, different ramps, workloads or
criteria: the output says which). Rate-mode runs are compared level by level by rate.`,
		Example: `  tpsmon compare base.json new.json
  tpsmon compare base.json new.json --max-regression 10% > comparison.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return &flagError{path: cmd.CommandPath(), err: fmt.Errorf("want two results files, BASE.json and NEW.json; got %d", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCompare(args, maxReg, maxErr)
		},
	}
	c.Flags().StringVar(&maxReg, "max-regression", "5%", "largest loss of tok/s, or rise of TTFT p95, allowed at a level")
	c.Flags().StringVar(&maxErr, "max-error-increase", "1%", "largest rise of a level's error rate allowed, in percentage points")
	return c
}

func (a *app) runCompare(paths []string, maxReg, maxErr string) error {
	var th report.Thresholds
	var err error
	if th.MaxRegression, err = model.ParseRate(maxReg); err != nil {
		return usageErrorf("--max-regression %q: %v (write e.g. 5%%)", maxReg, err)
	}
	if th.MaxErrorIncrease, err = model.ParseRate(maxErr); err != nil {
		return usageErrorf("--max-error-increase %q: %v (write e.g. 1%%)", maxErr, err)
	}
	runs, err := readRuns(paths)
	if err != nil {
		return err
	}
	c := report.Compare(runs[0], runs[1], th)
	fmt.Fprint(a.stdout, c.Markdown)
	switch {
	case len(c.Mismatches) > 0:
		return &exitError{code: exitUsage, msg: "the runs cannot be compared: " + strings.Join(c.Mismatches, "; ")}
	case len(c.Regressions) > 0:
		return &exitError{code: exitCapacity, msg: c.Worse()}
	}
	return nil
}
