// Package ui is tpsmon's live terminal screen (Bubble Tea v2): the live series, the
// degradation curve, the level table, and single keys to change the load.
package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

// Options is what the live screen needs: the endpoints, their running pools (same order),
// the merged event channel of those pools, and the settings.
type Options struct {
	Endpoints   []probe.Endpoint
	Pools       []*probe.Pool
	Events      <-chan probe.Event
	Ramp        probe.Ramp
	SLO         model.SLO
	Settings    model.ReportSettings // for snapshots
	Theme       string               // theme name; "" means default (mono under NO_COLOR)
	SnapshotDir string               // where `s` writes snapshots ("" = current directory)
	Version     string
	Start       int // initial concurrency of every pool

	// Cancel, when set, is called on quit after the pools are stopped, to cut the
	// requests still in flight (the context the pools and clients run under).
	Cancel context.CancelFunc
	// ProgramOptions are added to the Bubble Tea program (tests: tea.WithInput(nil),
	// tea.WithWindowSize, tea.WithOutput).
	ProgramOptions []tea.ProgramOption
}

// Run shows the live screen until the user quits or ctx ends, then returns the final
// level table (Markdown) for the caller to print.
func Run(ctx context.Context, opt Options) (summary string, err error) {
	uictx, stop := context.WithCancel(ctx)
	defer stop()
	m, err := newScreen(uictx, opt, os.Getenv("NO_COLOR") != "")
	if err != nil {
		return "", err
	}
	p := tea.NewProgram(m, opt.ProgramOptions...)
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			p.Quit()
		case <-done:
		}
	}()
	_, runErr := p.Run()
	close(done)
	stop()
	summary = m.finish(opt.Cancel, time.Now())
	if runErr != nil && !errors.Is(runErr, tea.ErrInterrupted) {
		return summary, fmt.Errorf("live screen: %w", runErr)
	}
	return summary, nil
}

// newScreen builds the root model over the pools (one Tracker per endpoint) and sets
// every pool to the start concurrency.
func newScreen(ctx context.Context, opt Options, noColor bool) (*root, error) {
	if len(opt.Endpoints) == 0 || len(opt.Pools) != len(opt.Endpoints) {
		return nil, fmt.Errorf("live screen: %d endpoints but %d pools: give one pool per endpoint",
			len(opt.Endpoints), len(opt.Pools))
	}
	eps := make([]*endpointState, len(opt.Endpoints))
	for i, ep := range opt.Endpoints {
		eps[i] = newEndpointState(i, ep, opt.Pools[i], opt.SLO)
	}
	theme := opt.Theme
	if theme == "" && noColor {
		theme = "mono"
	}
	m, err := newRoot(ctx, opt.Events, eps, config{
		Ramp: opt.Ramp, SLO: opt.SLO, Settings: opt.Settings, Theme: theme,
		SnapshotDir: opt.SnapshotDir, Version: opt.Version, Now: time.Now(),
	})
	if err != nil {
		return nil, err
	}
	if opt.Start > 0 {
		for _, e := range eps {
			e.ctl.SetConcurrency(opt.Start)
		}
	}
	return m, nil
}

// finish stops the pools, cuts what is still in flight (cancel), and returns the level
// tables as Markdown. It runs after the program ended, when nothing else uses the trackers.
func (m *root) finish(cancel context.CancelFunc, now time.Time) string {
	for _, e := range m.eps {
		e.ctl.Stop()
	}
	if cancel != nil {
		cancel()
	}
	m.now = now
	return model.Markdown(m.report(m.ramp.on))
}

func newEndpointState(i int, ep probe.Endpoint, ctl Controller, slo model.SLO) *endpointState {
	return &endpointState{
		// The URL goes into snapshots: never with its user:password part.
		info: model.EndpointInfo{Name: probe.EndpointLabel(ep), URL: probe.RedactedURL(ep.BaseURL), Model: ep.Model, Simulated: ep.Simulated},
		host: hostOf(ep.BaseURL),
		ctl:  ctl,
		tr:   model.NewTracker(model.TrackerOptions{Endpoint: i, SLO: slo}),
	}
}
