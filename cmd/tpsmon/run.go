package main

import (
	"fmt"
	"time"

	"github.com/tpsmon/tpsmon/probe/settings"
)

// runFlags are the flags of a command that runs a load (the live screen, bench): the
// run's settings (settings.Register) and the command's own outputs.
type runFlags struct {
	settings *settings.Flags
	live     liveFlags // --timeseries, --metrics-addr (outputs.go)
	theme    string    // the live screen

	// bench
	out, csv, report string
	minCapacity      int
}

// plan resolves the run's settings from the flags, the config file and the environment
// (a setting refused exits 2), and says the notes of settings that do nothing.
func (a *app) plan(f *runFlags) (*settings.Plan, error) {
	p, err := settings.Resolve(f.settings, settings.Input{Getenv: a.getenv, Limit: a.openFiles, Now: time.Now()})
	if p != nil {
		for _, n := range p.Notes {
			fmt.Fprintf(a.stderr, "tpsmon: note: %s\n", n)
		}
	}
	if err != nil {
		return nil, usage(err)
	}
	return p, nil
}

// usage is err as a usage error (exit 2), its lines said as they are.
func usage(err error) error { return &exitError{code: exitUsage, msg: err.Error()} }

// engineError is an error of the engine's Start: a setting it refused said at its flag
// (exit 2).
func engineError(err error) error { return usage(settings.Refused(err)) }
