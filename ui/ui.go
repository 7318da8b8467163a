// Package ui is tpsmon's live terminal screen (Bubble Tea v2). Implemented in the ui worktree.
package ui

import (
	"context"

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
}

// Run shows the live screen until the user quits or ctx ends, then returns the final
// level table (Markdown) for the caller to print.
func Run(ctx context.Context, opt Options) (summary string, err error) { panic("not implemented") }
