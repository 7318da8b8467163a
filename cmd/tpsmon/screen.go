package main

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/themes"
	"github.com/tpsmon/tpsmon/ui"
)

// noTerminal is what plain tpsmon says when it has no terminal to draw on.
const noTerminal = "the live screen needs a terminal; for scripts and CI use `tpsmon bench`"

// runScreen is plain tpsmon: the live screen until the user quits, then the level table.
func (a *app) runScreen(cmd *cobra.Command, f *runFlags) error {
	p, err := a.plan(f)
	if err != nil {
		return err
	}
	if err := checkScreenFlags(f); err != nil {
		return err
	}
	if a.planned != nil {
		if err := a.planned(p); err != nil {
			return err
		}
	}
	screenIO, closeTTY, err := a.screenIO()
	if err != nil {
		return err
	}
	defer closeTTY()
	ctx := cmd.Context()
	su, err := a.setup(ctx, p, &f.live, false)
	if err != nil {
		return err
	}
	defer su.close(a)
	eng, err := engine.Start(ctx, su.cfg)
	if err != nil {
		return engineError(err)
	}
	defer eng.Close()
	var final *model.Report
	summary, err := ui.Run(ctx, ui.Options{
		Ended:  func(r *model.Report) { final = r },
		Engine: eng,
		Theme:  f.theme,
		Start:  p.Start(),
		// tpsmon handles SIGINT and SIGTERM itself (ctx), and ui.Run quits on ctx.
		// Bubble Tea's own handler would race it: its QuitMsg, sent after the event
		// loop has ended, blocks the program's shutdown forever.
		ProgramOptions: append([]tea.ProgramOption{tea.WithoutSignalHandler()}, screenIO...),
	})
	eng.Close()
	if summary != "" {
		fmt.Fprint(a.stdout, summary)
	}
	// The time series ends on the run's diagnosis, as bench's does.
	if lerr := a.endOutputs(&su.live, final); lerr != nil && err == nil {
		return lerr
	}
	if err != nil {
		return &exitError{code: exitCapacity, msg: fmt.Sprintf("the live screen failed: %v", err)}
	}
	if ctx.Err() != nil { // SIGTERM (or SIGINT from outside the terminal's raw mode)
		return &exitError{code: exitInterrupt, msg: "interrupted: the tables above cover what was measured until then"}
	}
	return nil
}

// checkScreenFlags refuses the live screen's own flags when they are wrong: --theme and
// the live-output flags.
func checkScreenFlags(f *runFlags) error {
	if f.theme != "" {
		if _, err := themes.Get(f.theme, true); err != nil {
			return usageErrorf("--theme: %v", err)
		}
	}
	return checkLive(&f.live)
}

// isTerminal reports whether v is an *os.File on a terminal (not merely a character
// device: /dev/null is one).
func isTerminal(v any) bool {
	fd, ok := fileDescriptor(v)
	return ok && term.IsTerminal(fd)
}
