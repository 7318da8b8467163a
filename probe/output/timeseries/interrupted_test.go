package timeseries

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// TestLinesSayTheRunWasInterrupted: a bench interrupted (Ctrl-C) half way wrote every
// whole line, and the lines said nothing of the interruption: replay showed the
// interrupted run as one that had ended. The lines from the interruption on carry
// "interrupted", and one of them says what happened.
func TestLinesSayTheRunWasInterrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ts.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewWriter(f)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ticks := 0
	ctrlC := engine.ObserverFunc(func(_ *engine.Engine, ev *probe.Event) { // Ctrl-C after a few lines
		if ev.Tick != nil {
			if ticks++; ticks == 6 {
				cancel()
			}
		}
	})
	cfg := engine.Config{
		Endpoints: []client.Endpoint{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}},
		Ramp:      engine.Ramp{Levels: []int{2, 4, 8}, Hold: time.Minute},
		Drain:     time.Second,
		NewStreamer: func(client.Endpoint, int) (probe.Streamer, error) {
			return &fake{tokens: 25, gap: 3 * time.Millisecond}, nil
		},
		PoolOptions: []probe.Option{probe.WithTickEvery(50 * time.Millisecond)},
		Observers:   []engine.Observer{w, ctrlC},
	}
	e, err := engine.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Report.Interrupted {
		t.Fatal("the run was not interrupted")
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	s, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	first, said := -1, false
	for i, l := range s.Lines {
		if l.Interrupted && first < 0 {
			first = i
		}
		if first >= 0 && !l.Interrupted {
			t.Errorf("line %d, after the interruption, does not say it", i)
		}
		for _, x := range l.Said {
			said = said || strings.HasPrefix(x.Text, "interrupted (Ctrl-C or a signal)") && x.Warning
		}
	}
	if first <= 0 || !said {
		t.Errorf("the first line saying interrupted: %d of %d; said so: %v", first, len(s.Lines), said)
	}
}
