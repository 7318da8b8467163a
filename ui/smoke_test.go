package ui

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// startSim starts the simulator and a run engine against it.
func startSim(t *testing.T, ctx context.Context) *engine.Engine {
	t.Helper()
	inst, err := sim.Start(ctx, "127.0.0.1:0", sim.Config{
		Name: "smoke", Model: "sim-smoke", Slots: 16, StepMs: 4, StepMsPerSeq: 0.5,
		PrefillMsPerToken: 0.01, TokensPerChunk: 1, Seed: 1, DefaultMaxTokens: 24,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = inst.Close() })
	ep := client.Endpoint{Name: "sim", BaseURL: inst.URL, Model: "sim-smoke", MaxTokens: 24, Simulated: true}
	return startEngine(t, ctx, ep, nil)
}

// startEngine starts a run engine over ep (its streamer built by newStreamer, nil: a
// client) with a ramp of 1,2,4 held 300 ms, each level 3 s at most (on a loaded machine
// the streams' timing varies, and the level rule would hold a level until its figures
// are known to ±5%: longer than the tests wait).
func startEngine(t *testing.T, ctx context.Context, ep client.Endpoint, newStreamer engine.NewStreamerFunc) *engine.Engine {
	t.Helper()
	eng, err := engine.Start(ctx, engine.Config{
		Endpoints: []client.Endpoint{ep}, Ramp: engine.Ramp{Levels: []int{1, 2, 4}, Hold: 300 * time.Millisecond, MaxHold: 3 * time.Second},
		Settle: engine.SettleCapacity, Version: "smoke", NewStreamer: newStreamer,
		PoolOptions: []probe.Option{probe.WithTickEvery(100 * time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	return eng
}

func fakeEdge(client.Endpoint, int) (probe.Streamer, error) { return fakeStreamer{}, nil }

// waitUntil polls cond (the program handles keys on its own goroutine).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSmoke runs the whole screen on the simulator: start at 1 user, `+` three times,
// `r`, `q`; the concurrency follows the keys and quitting gives the level table.
func TestSmoke(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eng := startSim(t, ctx)
	pool := eng.Control(0)
	m, err := newScreen(ctx, Options{Engine: eng, Start: 1, SnapshotDir: t.TempDir()}, true)
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	tm.Type("+++")
	waitUntil(t, "4 users after +++", func() bool { return pool.Concurrency() == 4 })
	tm.Type("r")
	waitUntil(t, "the ramp's first level (1 user)", func() bool { return pool.Concurrency() == 1 })
	waitUntil(t, "the ramp's second level (2 users)", func() bool { return pool.Concurrency() == 2 })
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*root)
	summary := final.finish()
	t.Log("\n" + summary)
	if !strings.Contains(summary, "|") {
		t.Errorf("the summary has no level table:\n%s", summary)
	}
	out, _ := io.ReadAll(tm.FinalOutput(t))
	if !strings.Contains(string(out), "SIMULATED") {
		t.Error("the screen never showed the SIMULATED badge")
	}
	if reqs, _, _ := final.eng.Book(0).Totals(); reqs == 0 {
		t.Error("no request reached the tracker")
	}
}

// TestRunHeadlessInput runs Run itself with no terminal input (tea.WithInput(nil)) and
// a fixed window size, and ends it through its context.
func TestRunHeadlessInput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eng := startEngine(t, ctx, client.Endpoint{Name: "fake", BaseURL: "http://127.0.0.1:9/v1", Model: "m"}, fakeEdge)
	pool := eng.Control(0)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	var summary string
	var err error
	go func() {
		defer close(done)
		summary, err = Run(runCtx, Options{
			Engine: eng, Start: 2,
			ProgramOptions: []tea.ProgramOption{tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24)},
		})
	}()
	waitUntil(t, "2 users", func() bool { return pool.Concurrency() == 2 })
	time.Sleep(500 * time.Millisecond) // requests of 40 ms end at 2 users (a level lists ended requests)
	stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end with its context")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(summary, "| 2 |") {
		t.Errorf("the summary has no row for 2 users:\n%s", summary)
	}
}

// fakeStreamer is the network edge: every request streams 20 chunks 2 ms apart and
// reports usage, or ends at once when ctx is canceled.
type fakeStreamer struct{}

func (fakeStreamer) Stream(ctx context.Context, p *probe.Progress) model.Sample {
	s := model.Sample{Send: time.Now()}
	p.Send.Store(probe.Mono())
	tk := time.NewTicker(2 * time.Millisecond)
	defer tk.Stop()
	for i := range 20 {
		select {
		case <-ctx.Done():
			s.End, s.Err, s.ErrMsg = time.Now(), model.ErrCanceled, "canceled"
			return s
		case <-tk.C:
		}
		now := time.Now()
		if i == 0 {
			s.First, s.FirstAnswer = now, now
			p.First.Store(probe.Mono())
		}
		s.Last = now
		p.Chunks.Add(1)
	}
	s.End, s.Tokens, s.Chunks, s.Usage, s.Finish, s.Status = s.Last, 20, 20, true, "stop", 200
	return s
}

// TestScreenWithPools drives the root model with real pools and trackers (the
// streamer is the faked edge): keys change the pool, the ramp steps, s writes a
// snapshot, q returns the level table.
func TestScreenWithPools(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	eng := startEngine(t, ctx, client.Endpoint{Name: "fake", BaseURL: "http://127.0.0.1:9/v1", Model: "m"}, fakeEdge)
	pool := eng.Control(0)
	m, err := newScreen(ctx, Options{Engine: eng, Start: 1, SnapshotDir: dir}, true)
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	tm.Type("+++")
	waitUntil(t, "4 users after +++", func() bool { return pool.Concurrency() == 4 })
	tm.Type("]")
	waitUntil(t, "8 users after ]", func() bool { return pool.Concurrency() == 8 })
	tm.Type("p")
	waitUntil(t, "pause", pool.Paused)
	tm.Type("r")
	waitUntil(t, "the ramp resumes at 1 user", func() bool { return !pool.Paused() && pool.Concurrency() == 1 })
	waitUntil(t, "the ramp's second level", func() bool { return pool.Concurrency() == 2 })
	tm.Type("s")
	waitUntil(t, "a snapshot file", func() bool {
		files, _ := filepath.Glob(filepath.Join(dir, "tpsmon-*.md"))
		return len(files) == 1
	})
	// The picture is written last: wait for it, or the test's directory goes while it
	// is being written.
	waitUntil(t, "the snapshot's picture", func() bool {
		files, _ := filepath.Glob(filepath.Join(dir, "tpsmon-*.svg"))
		return len(files) == 1
	})
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*root)
	summary := final.finish()
	t.Log("\n" + summary)
	if !strings.Contains(summary, "|") {
		t.Errorf("the summary has no level table:\n%s", summary)
	}
	if levels := final.eng.Book(0).Levels(); len(levels) < 3 {
		t.Errorf("%d levels measured, want at least 3 (4, 8, 1, 2 users)", len(levels))
	}
}
