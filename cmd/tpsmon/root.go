package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/probe/settings"
)

// Exit codes.
const (
	exitOK        = 0
	exitCapacity  = 1 // capacity below --min-capacity; also a failure of the live screen
	exitUsage     = 2 // bad flags, bad config, no terminal for the live screen
	exitUnusable  = 3 // the endpoint cannot be reached, or every request failed
	exitInterrupt = 130
)

// app is one invocation: its streams and environment.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string

	// openTTY opens the controlling terminal for the live screen when stdin or stdout
	// is not one (nil: there is none; tests that want no terminal leave it nil).
	openTTY func() (io.ReadWriteCloser, error)

	args []string // the command line, for the hints of flag errors

	// planned, when set (tests), sees every resolved plan before the network is
	// touched; an error it returns ends the run.
	planned func(*settings.Plan) error
	// limit, when set (tests), replaces raising and reading the open-files limit.
	limit func() settings.StreamLimit
}

// exitError ends the program with code after printing msg (when not empty) as
// "tpsmon: msg" on stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usageErrorf is a usage or config error (exit 2).
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

// flagError is a flag cobra or pflag refused, with the command it belongs to.
type flagError struct {
	path string
	err  error
}

func (e *flagError) Error() string { return e.err.Error() }

// execute runs the command line args and returns the exit code.
func (a *app) execute(ctx context.Context, args []string) int {
	stderr := a.stderr
	a.args = args
	root := a.newRootCmd()
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			for _, line := range strings.Split(ee.msg, "\n") {
				fmt.Fprintf(stderr, "tpsmon: %s\n", line)
			}
		}
		return ee.code
	}
	path := "tpsmon"
	var fe *flagError
	if errors.As(err, &fe) {
		path = fe.path
	}
	// Unknown flags, commands and arguments: one line of error, one line of help.
	fmt.Fprintf(stderr, "tpsmon: %s\nRun '%s --help' for usage.\n", strings.TrimSpace(err.Error()), path)
	return exitUsage
}

func (a *app) newRootCmd() *cobra.Command {
	f := &runFlags{}
	root := &cobra.Command{
		Use:   "tpsmon",
		Short: "Watch tokens/s and time to first token of an LLM endpoint as users are added",
		Long: `tpsmon load-tests OpenAI-compatible streaming endpoints and shows, live, how per-user
tokens/s, aggregate tokens/s and time to first token (TTFT) change as concurrency rises.

Plain tpsmon opens the live screen. With no endpoint configured (no --url,
no OPENAI_BASE_URL, no --config) it measures the built-in simulator.`,
		Example: `  tpsmon                                        # live screen on the built-in simulator
  tpsmon --url http://127.0.0.1:8000/v1 --model my-model
  tpsmon --rate 5                               # rate mode: 5 requests/s arrive (m switches to users)
  tpsmon bench --ramp 1,2,4,8 --hold 15s --out results.json
  tpsmon sim --profile small-gpu                # the simulator alone, for another terminal`,
		Args:          rootArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       toolVersion(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runScreen(cmd, f)
		},
	}
	root.SuggestionsMinimumDistance = suggestDistance
	root.SetVersionTemplate("tpsmon {{.Version}}\n")
	f.settings = settings.Register(root.Flags(), settings.Screen)
	root.Flags().StringVar(&f.theme, "theme", "", "colour theme of the live screen (default adapts to the terminal; NO_COLOR gives mono)")
	f.live.register(root)

	root.AddCommand(a.newBenchCmd(), a.newSimCmd(), a.newReportCmd(), a.newCompareCmd(), a.newMergeCmd(), a.newReplayCmd(), a.newVersionCmd())
	root.SetOut(a.stdout) // before setHelp: the completion command keeps the writer it finds
	root.SetErr(a.stderr)
	setHelp(root)
	a.setFlagErrors(root)
	registerCompletions(root)
	return root
}

// noArgs refuses positional arguments of a subcommand, naming the command whose help
// to read (cobra.NoArgs calls an argument an unknown command of the subcommand).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return &flagError{path: cmd.CommandPath(), err: fmt.Errorf("unexpected argument %q: %s takes flags only (an endpoint is given with --url)", args[0], cmd.CommandPath())}
}

// setFlagErrors makes every command's flag errors a flagError naming the command.
// An unknown flag that belongs to another command gets a hint (see flagHints).
func (a *app) setFlagErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if h := flagHint(c, err, a.args); h != "" {
			err = fmt.Errorf("%w (%s)", err, h)
		} else if h := nearFlag(c, err); h != "" {
			err = fmt.Errorf("%w (%s)", err, h)
		}
		return &flagError{path: c.CommandPath(), err: err}
	})
	for _, sub := range c.Commands() {
		a.setFlagErrors(sub)
	}
}
