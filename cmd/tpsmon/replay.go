package main

import (
	"fmt"
	"os"
	"slices"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/probe/output/timeseries"
	"github.com/tpsmon/tpsmon/themes"
	"github.com/tpsmon/tpsmon/ui"
)

// replaySpeeds are the playback speeds --speed takes (replay's 1, > and < keys move
// between them).
var replaySpeeds = []int{1, 2, 4, 8, 16, 32, ui.MaxReplaySpeed}

func (a *app) newReplayCmd() *cobra.Command {
	var theme string
	var speed int
	c := &cobra.Command{
		Use:   "replay FILE.jsonl",
		Short: "Play a recorded time series (--timeseries) on the live screen, with no server",
		Long: `replay plays a time series written by --timeseries on the live screen's panels: the
live series, the server's view and the diagnosis, the degradation curve and the level
table as they were recorded, second by second, with what the live screen said: the
verdicts, the capacity marked ◆, the ramp's end and why. Keys: space or p pauses and plays, > and < double and halve the speed (up to
x64), 1 is real time, ← and → move a minute back and on, [ and ] jump to the start of a
level, r plays it again from the start, tab changes the endpoint, t the theme, ? shows
every key, q quits. It shows the recorded numbers only: it measures nothing again.`,
		Example: `  tpsmon bench --timeseries run.jsonl     # record
  tpsmon replay run.jsonl --speed 16      # play it back sixteen times as fast`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &flagError{path: cmd.CommandPath(), err: fmt.Errorf("want one time series file (written by --timeseries), got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runReplay(cmd, args[0], theme, speed)
		},
	}
	c.Flags().IntVar(&speed, "speed", 1, "playback speed: 1 (real time), 2, 4, 8, 16, 32 or 64")
	c.Flags().StringVar(&theme, "theme", "", "colour theme (default adapts to the terminal; NO_COLOR gives mono)")
	return c
}

func (a *app) runReplay(cmd *cobra.Command, path, theme string, speed int) error {
	if !slices.Contains(replaySpeeds, speed) {
		return usageErrorf("--speed %d: want 1 (real time), 2, 4, 8, 16, 32 or 64", speed)
	}
	if theme != "" {
		if _, err := themes.Get(theme, true); err != nil {
			return usageErrorf("--theme: %v", err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return usageErrorf("%s: cannot read the time series: %v", path, unwrapPathError(err))
	}
	s, err := timeseries.Read(f)
	f.Close()
	if err != nil {
		return usageErrorf("%s: %v", path, err)
	}
	if len(s.Lines) == 0 {
		return usageErrorf("%s: no time series line in it (a file written by --timeseries holds one line per second)", path)
	}
	if s.Cut {
		fmt.Fprintf(a.stderr, "tpsmon: %s ends inside a line (the run was cut while writing): replaying its %d whole lines\n", path, len(s.Lines))
	}
	// Like the live screen, replay draws on the controlling terminal when stdin or
	// stdout is not one.
	screenIO, closeTTY, err := a.screenIO()
	if err != nil {
		return usageErrorf("replay shows the live screen and needs a terminal")
	}
	defer closeTTY()
	return ui.Replay(cmd.Context(), ui.ReplayOptions{
		Series: s, Name: path, Theme: theme, Speed: speed,
		ProgramOptions: append([]tea.ProgramOption{tea.WithoutSignalHandler()}, screenIO...),
	})
}
