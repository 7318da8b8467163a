// Package ui is tpsmon's live terminal screen (Bubble Tea v2): the live series, the
// degradation curve, the level table, and single keys to change the load. It is a view
// over the run engine (probe/engine), which owns the pools, the level books and the ramp.
package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output/report"
)

// Options is what the live screen needs: a run engine built by engine.Start (its pools
// running) and the view's settings.
type Options struct {
	Engine      *engine.Engine
	Theme       string // theme name; "" means default (mono under NO_COLOR)
	SnapshotDir string // where `s` writes snapshots ("" = current directory)
	Start       int    // initial users of every endpoint

	// ProgramOptions are added to the Bubble Tea program (tests: tea.WithInput(nil),
	// tea.WithWindowSize, tea.WithOutput).
	ProgramOptions []tea.ProgramOption

	// Ended, when set, is given the report of the mode in use once the load has stopped
	// (what the summary's last table judges), for the live outputs' end: the time series
	// ends on the run's diagnosis, as bench's does.
	Ended func(*model.Report)
}

// Run shows the live screen until the user quits or ctx ends, then stops the load, cuts
// what is still in flight, and returns the final level tables (Markdown) for the caller
// to print.
func Run(ctx context.Context, opt Options) (summary string, err error) {
	uictx, stop := context.WithCancel(ctx)
	defer stop()
	m, err := newScreen(uictx, opt, os.Getenv("NO_COLOR") != "")
	if err != nil {
		return "", err
	}
	runErr := runUntil(ctx, tea.NewProgram(m, opt.ProgramOptions...))
	stop()
	summary = m.finish()
	if opt.Ended != nil {
		opt.Ended(m.final)
	}
	if runErr != nil && !errors.Is(runErr, tea.ErrInterrupted) {
		return summary, fmt.Errorf("live screen: %w", runErr)
	}
	return summary, nil
}

// newScreen builds the root model over the engine and sets every endpoint to the start users.
func newScreen(ctx context.Context, opt Options, noColor bool) (*root, error) {
	if opt.Engine == nil {
		return nil, fmt.Errorf("live screen: no run engine")
	}
	theme := opt.Theme
	if theme == "" && noColor {
		theme = "mono"
	}
	m, err := newRoot(ctx, opt.Engine.Events(), opt.Engine, config{Theme: theme, SnapshotDir: opt.SnapshotDir, Now: time.Now()})
	if err != nil {
		return nil, err
	}
	if opt.Start > 0 {
		for i := range opt.Engine.Len() {
			opt.Engine.SetUsers(i, opt.Start)
		}
	}
	m.keys.setRate(opt.Engine.RateMode())
	return m, nil
}

// finish stops the load, cuts what is still in flight, and returns the level tables as
// Markdown: a table of each mode the session measured, each with its verdict. It runs after the program ended, when nothing else uses the engine. A ramp
// still running at the end makes the report say the run was interrupted.
func (m *root) finish() string {
	interrupted := m.eng.Interrupt() || m.interrupted
	m.eng.Cut()
	m.final = m.eng.Report(interrupted)
	md := report.Summaries(m.eng.Reports(interrupted))
	if m.eng.Over() {
		md += fmt.Sprintf("\n> The run reached its maximum duration (%s): the ramp was cut and the load stopped.\n", m.eng.MaxDuration())
	}
	return md
}

// runUntil runs p until it ends, quitting it early when ctx ends (SIGINT/SIGTERM, which
// tpsmon handles itself).
func runUntil(ctx context.Context, p *tea.Program) error {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			p.Quit()
		case <-done:
		}
	}()
	_, err := p.Run()
	return err
}
