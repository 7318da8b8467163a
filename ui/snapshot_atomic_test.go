package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// TestSnapshotAppearsWhole: a reader watching the snapshot directory sees each snapshot's
// JSON whole or not at all (it is written to a temporary file and linked into place),
// and no temporary file stays behind.
func TestSnapshotAppearsWhole(t *testing.T) {
	dir := t.TempDir()
	r := &model.Report{Schema: model.Schema}
	for i := range 40 { // a report of a few MB: its write takes a while
		e := model.ReportEndpoint{Name: "ep", URL: "http://127.0.0.1:8000/v1"}
		for c := range 50 {
			e.Levels = append(e.Levels, model.ReportLevel{Concurrency: c + 1, Requests: i})
		}
		r.Endpoints = append(r.Endpoints, e)
	}
	var done atomic.Bool
	partial := make(chan string, 1)
	go func() {
		for !done.Load() {
			names, _ := filepath.Glob(filepath.Join(dir, "tpsmon-*.json"))
			for _, n := range names {
				data, err := os.ReadFile(n)
				if err == nil && !json.Valid(data) {
					select {
					case partial <- n:
					default:
					}
				}
			}
		}
	}()
	for range 5 {
		if _, err := writeSnapshot(dir, []*model.Report{r}, t0); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	select {
	case n := <-partial:
		t.Errorf("a reader saw %s half written", filepath.Base(n))
	default:
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 10 {
		t.Errorf("%d files, want 5 snapshots of 2 files", len(entries))
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "tpsmon-") {
			t.Errorf("stray file %s", e.Name())
		}
	}
}
