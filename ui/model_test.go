package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// tick advances the screen's clock to t0+d.
func tick(m *root, d time.Duration) { m.Update(tickMsg(t0.Add(d))) }

// steady sends endpoint 0's open segment at concurrency c, steady since t0+at, as a pool does.
func steady(m *root, c int, at time.Duration) {
	seg := &model.Segment{Open: true, Concurrency: c, SteadyAt: t0.Add(at)}
	m.Update(eventsMsg{events: []probe.Event{{Segment: seg}}})
}

// TestAutoRamp: r starts the engine's ramp, the ticks step it, the header shows a
// level's progress and the end settles at the capacity (the rules themselves are
// tested in probe/engine).
func TestAutoRamp(t *testing.T) {
	m, ctls, trs := newTestRoot(t, 1) // ramp 1,2,4,8 held 10 s; rows of 3 x users requests (an earlier visit)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(press("r"))
	if !m.eng.Ramping() || ctls[0].conc != 1 || !strings.HasPrefix(m.msg, "auto-ramp started: 1,2,4,8 users, each held until decided at 95% (10 s to 120 s); then confirms the capacity") {
		t.Fatalf("r: ramp on %v, concurrency %d, %q; want on at 1", m.eng.Ramping(), ctls[0].conc, m.msg)
	}
	steady(m, 1, 0)
	tick(m, 5*time.Second)
	if h := ansi.Strip(m.View().Content); !strings.Contains(h, "ramp 1/4 at 1 user, 0 requests, waiting for 8 requests, ~8 more") {
		t.Errorf("header does not show the ramp:\n%s", h)
	}
	tick(m, 10*time.Second)
	if ctls[0].conc != 1 {
		t.Fatalf("10 s with 0 of 8 new requests: concurrency %d, want 1 (the level rule)", ctls[0].conc)
	}
	for i := range trs[0].levels {
		trs[0].levels[i].Steady = 40
	}
	tick(m, 11*time.Second)
	if ctls[0].conc != 2 {
		t.Fatalf("11 s with 40 steady requests: concurrency %d, want 2", ctls[0].conc)
	}
	tick(m, 14*time.Second)
	if h := ansi.Strip(m.View().Content); !strings.Contains(h, "ramp 2/4 at 2 users, 0 requests, warming up") {
		t.Errorf("header does not show the warm-up:\n%s", h)
	}
	for _, sec := range []int{15, 25, 35} {
		steady(m, ctls[0].conc, time.Duration(sec)*time.Second)
		for i := range trs[0].levels { // each level's own requests arrive
			trs[0].levels[i].Steady += 40
		}
		tick(m, time.Duration(sec+10)*time.Second)
	}
	if m.eng.Ramping() || !strings.Contains(m.msg, "auto-ramp finished on sim: all 4 levels held; back to capacity, 16 users") {
		t.Fatalf("end: ramping %v, %q", m.eng.Ramping(), m.msg)
	}
	if want := []int{1, 2, 4, 8, 16}; fmt.Sprint(ctls[0].sets) != fmt.Sprint(want) {
		t.Errorf("concurrencies set %v, want %v (each once, then the capacity)", ctls[0].sets, want)
	}
}

func TestAutoRampStops(t *testing.T) {
	t.Run("r again", func(t *testing.T) {
		m, ctls, _ := newTestRoot(t, 1)
		m.Update(press("r"))
		m.Update(press("r"))
		tick(m, 15*time.Second)
		if m.eng.Ramping() || ctls[0].conc != 1 || !strings.Contains(m.msg, "auto-ramp stopped (r)") {
			t.Errorf("on %v conc %d msg %q", m.eng.Ramping(), ctls[0].conc, m.msg)
		}
	})
	t.Run("manual key", func(t *testing.T) {
		m, ctls, _ := newTestRoot(t, 1)
		m.Update(press("r"))
		m.Update(press("+"))
		tick(m, 15*time.Second)
		if m.eng.Ramping() || ctls[0].conc != 2 || !strings.Contains(m.msg, "manual change (+)") {
			t.Errorf("on %v conc %d msg %q", m.eng.Ramping(), ctls[0].conc, m.msg)
		}
	})
	t.Run("pause", func(t *testing.T) {
		// a paused pool sends nothing: the ramp must not walk through its levels unloaded
		m, ctls, _ := newTestRoot(t, 1)
		m.Update(press("r"))
		steady(m, 1, 0)
		m.Update(press("p"))
		for s := 1; s <= 60; s++ {
			tick(m, time.Duration(s)*time.Second)
		}
		if m.eng.Ramping() || ctls[0].conc != 1 || !ctls[0].paused || !strings.Contains(m.msg, "auto-ramp stopped") {
			t.Errorf("on %v conc %d paused %v msg %q", m.eng.Ramping(), ctls[0].conc, ctls[0].paused, m.msg)
		}
	})
	t.Run("errors over 5%", func(t *testing.T) {
		m, ctls, trs := newTestRoot(t, 1)
		trs[0].capacity = 1
		m.Update(press("r"))
		// the row of the level being held says 28.6% of its 21 requests failed
		l := &trs[0].levels[0]
		l.Requests, l.Succeeded, l.ErrorRate = 21, 15, 6.0/21
		l.Errors = map[model.ErrorKind]int{model.ErrTruncated: 6}
		m.Update(eventsMsg{events: []probe.Event{{Tick: &model.Tick{}}}})
		tick(m, time.Second)
		if m.eng.Ramping() {
			t.Fatal("the ramp went on past 5% errors")
		}
		if !m.msgBad || !strings.Contains(m.msg, "auto-ramp stopped at 1 user on sim: errors 28.57% > 5% (21 requests); back to capacity, 1 user") {
			t.Errorf("status: %q", m.msg)
		}
		if ctls[0].conc != 1 {
			t.Errorf("concurrency %d, want 1 (the capacity)", ctls[0].conc)
		}
	})
}

func TestEventsFeedTrackers(t *testing.T) {
	m, _, trs := newTestRoot(t, 2)
	m.events = make(chan probe.Event)
	evs := []probe.Event{
		{Endpoint: 0, Sample: &model.Sample{}},
		{Endpoint: 1, Sample: &model.Sample{}},
		{Endpoint: 1, Tick: &model.Tick{}},
		{Endpoint: 0, Segment: &model.Segment{}},
		{Endpoint: 7, Sample: &model.Sample{}}, // unknown endpoint: ignored
	}
	_, cmd := m.Update(eventsMsg{events: evs})
	if cmd == nil {
		t.Fatal("the event reader was not re-armed")
	}
	if trs[0].samples != 1 || trs[1].samples != 1 || trs[1].ticks != 1 || trs[0].segments != 1 {
		t.Errorf("trackers fed wrong: %+v %+v", trs[0], trs[1])
	}
	if _, cmd := m.Update(eventsMsg{closed: true}); cmd != nil {
		t.Error("re-armed after the channel closed")
	}
}

func TestWaitEventsDrainsBounded(t *testing.T) {
	ch := make(chan probe.Event, drainMax+10)
	for range drainMax + 10 {
		ch <- probe.Event{Sample: &model.Sample{}}
	}
	ctx := context.Background()
	msg := waitEvents(ctx, ch)().(eventsMsg)
	if len(msg.events) != drainMax || msg.closed {
		t.Fatalf("first batch %d events (closed %v), want %d", len(msg.events), msg.closed, drainMax)
	}
	close(ch)
	msg = waitEvents(ctx, ch)().(eventsMsg)
	if len(msg.events) != 10 || !msg.closed {
		t.Fatalf("second batch %d events (closed %v), want the 10 left and closed", len(msg.events), msg.closed)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if msg := waitEvents(cctx, make(chan probe.Event))(); msg != nil {
		t.Errorf("canceled reader returned %v", msg)
	}
}

func TestStatusShowsLastErrorAndMessages(t *testing.T) {
	m, _, trs := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24}) // 2-line status
	out := ansi.Strip(m.View().Content)
	if !strings.Contains(out, "last error: http_429: Too Many Requests") {
		t.Fatalf("last error not shown:\n%s", out)
	}
	m.Update(press("p"))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "paused: in-flight requests finish") {
		t.Errorf("pause message not shown:\n%s", out)
	}
	// the message gives way to the last error after a while; success clears the error
	tick(m, messageTTL+time.Second)
	trs[0].lastErr = ""
	m.Update(eventsMsg{events: []probe.Event{{Sample: &model.Sample{}}}})
	tick(m, messageTTL+2*time.Second)
	out = ansi.Strip(m.View().Content)
	if strings.Contains(out, "last error") {
		t.Errorf("cleared error still shown:\n%s", out)
	}
}

func TestSnapshot(t *testing.T) {
	m, _, _ := newTestRoot(t, 2)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	_, cmd := m.Update(press("s"))
	if cmd == nil {
		t.Fatal("s returned no command")
	}
	var msg tea.Msg
	msg = cmd()
	m.Update(msg)
	snap := msg.(snapshotMsg)
	if snap.err != nil {
		t.Fatal(snap.err)
	}
	if !strings.Contains(ansi.Strip(m.View().Content), "snapshot saved: "+snap.path) {
		t.Errorf("status line does not show the path %s", snap.path)
	}
	js, err := os.ReadFile(snap.path)
	if err != nil {
		t.Fatal(err)
	}
	var r model.Report
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatal(err)
	}
	if r.Schema != model.Schema || len(r.Endpoints) != 2 || r.Endpoints[1].Name != "vllm-b" || r.Settings.SLO.UserTPSMin != 30 {
		t.Errorf("snapshot report: %+v", r)
	}
	if _, err := os.Stat(strings.TrimSuffix(snap.path, ".json") + ".md"); err != nil {
		t.Error(err)
	}
	if svg, err := os.ReadFile(strings.TrimSuffix(snap.path, ".json") + ".svg"); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("snapshot SVG: %v (%d bytes)", err, len(svg))
	}
	if !strings.Contains(ansi.Strip(m.View().Content), "(+ .md, .svg)") {
		t.Errorf("the status line does not say the SVG was written:\n%s", ansi.Strip(m.View().Content))
	}
	if filepath.Base(snap.path) != "tpsmon-20261122-120000.json" {
		t.Errorf("snapshot name %s", filepath.Base(snap.path))
	}
}

// TestSnapshotPathAbsolute: with a relative (or no) snapshot directory the status line
// shows the absolute path of the file, and a second snapshot in the same second does
// not overwrite the first.
func TestSnapshotPathAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, snapDir := range []string{"", "snaps"} {
		m, _, _ := newTestRoot(t, 1)
		m.snapDir = snapDir
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 40})
		var paths []string
		for range 2 {
			_, cmd := m.Update(press("s"))
			msg := cmd()
			m.Update(msg)
			snap := msg.(snapshotMsg)
			if snap.err != nil {
				t.Fatal(snap.err)
			}
			if !filepath.IsAbs(snap.path) {
				t.Errorf("snapshot path %q is not absolute", snap.path)
			}
			if !strings.Contains(ansi.Strip(m.View().Content), "snapshot saved: "+snap.path) {
				t.Errorf("status line does not show the path %s", snap.path)
			}
			if _, err := os.Stat(snap.path); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(strings.TrimSuffix(snap.path, ".json") + ".md"); err != nil {
				t.Error(err)
			}
			paths = append(paths, snap.path)
		}
		if paths[0] == paths[1] {
			t.Errorf("two snapshots in the same second share %s", paths[0])
		}
		if want := filepath.Join(dir, snapDir); filepath.Dir(paths[0]) != want {
			t.Errorf("snapshot in %s, want %s", filepath.Dir(paths[0]), want)
		}
	}
}

// TestSnapshotPathNarrow: on a narrow screen the status keeps the snapshot's file name
// whole and cuts leading directories.
func TestSnapshotPathNarrow(t *testing.T) {
	m, _, _ := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	path := "/home/someone/projects/load-tests/2026/november/tpsmon-20261122-120000.json"
	m.Update(snapshotMsg{path: path})
	out := ansi.Strip(m.View().Content)
	if !strings.Contains(out, "snapshot saved: …/") || !strings.Contains(out, "/november/tpsmon-20261122-120000.json (+ .md, .svg)") {
		t.Errorf("status does not keep the file name:\n%s", out)
	}
	for _, c := range []struct {
		path string
		w    int
		want string
	}{
		{"/a/b/c.json", 20, "/a/b/c.json"},
		{"/aa/bb/cc/d.json", 12, "…/cc/d.json"},
		{"/aa/bb/cc/longname.json", 5, "…/longname.json"},
	} {
		if got := shortenPath(c.path, c.w); got != c.want {
			t.Errorf("shortenPath(%q, %d) = %q, want %q", c.path, c.w, got, c.want)
		}
	}
}

func TestSnapshotErrorShown(t *testing.T) {
	m, _, _ := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(snapshotMsg{err: fmt.Errorf("cannot create snapshot directory /nope: permission denied")})
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "snapshot failed: cannot create snapshot directory /nope") {
		t.Errorf("error not shown:\n%s", out)
	}
}

func TestUnknownTheme(t *testing.T) {
	m, _, _ := newTestRoot(t, 1)
	_, err := newRoot(context.Background(), nil, m.eng, config{Theme: "neon"})
	if err == nil || !strings.Contains(err.Error(), "default, high-contrast, colorblind, mono") {
		t.Errorf("err = %v", err)
	}
}

func TestViewIsCached(t *testing.T) {
	m, _, _ := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m.View()
	m.Update(eventsMsg{events: []probe.Event{{Sample: &model.Sample{}}}})
	if m.frameDirty {
		t.Error("an event batch marked the frame dirty: it must wait for the render tick")
	}
}

func TestEventsClosedSaid(t *testing.T) {
	m, _, _ := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(eventsMsg{closed: true})
	tick(m, time.Second)
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "the load generators have stopped") {
		t.Errorf("closed event channel not reported:\n%s", out)
	}
}

// TestEndpointStateHidesSecrets: the URL an endpoint shows and writes into snapshots has
// no user:password part and no query.
func TestEndpointStateHidesSecrets(t *testing.T) {
	ep := client.Endpoint{BaseURL: "http://me:s3cret-token@127.0.0.1:8000/v1?key=s3cret-q", Model: "m"}
	eng, err := engine.New(engine.Config{}, []engine.Part{{Endpoint: ep, Control: &fakeCtl{}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := newRoot(context.Background(), nil, eng, config{})
	if err != nil {
		t.Fatal(err)
	}
	info := eng.Info(0)
	for _, s := range []string{info.URL, info.Name, m.hosts[0]} {
		if strings.Contains(s, "s3cret") {
			t.Errorf("%q shows a secret of %s", s, ep.BaseURL)
		}
	}
	if m.hosts[0] != "127.0.0.1:8000" || !strings.Contains(info.URL, "127.0.0.1:8000/v1") {
		t.Errorf("host %q, URL %q", m.hosts[0], info.URL)
	}
}

// TestMaxDurationOnScreen: when the run's maximum duration is over, the screen stops the
// load and says why, also once the pools have ended.
func TestMaxDurationOnScreen(t *testing.T) {
	ctl := &fakeCtl{}
	eng, err := engine.New(engine.Config{MaxDuration: time.Minute, Settle: engine.SettleCapacity},
		[]engine.Part{{Endpoint: client.Endpoint{Name: "sim"}, Control: ctl, Book: fullTracker()}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := newRoot(context.Background(), nil, eng, config{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(press("r"))
	tick(m, time.Minute)
	if !ctl.stopped || !m.msgBad || !strings.Contains(m.msg, "maximum duration (1m0s) is over") {
		t.Errorf("stopped %v, message %q", ctl.stopped, m.msg)
	}
	m.Update(eventsMsg{closed: true})
	if !strings.Contains(m.msg, "the run's maximum duration is over: the load generators have stopped") {
		t.Errorf("message %q", m.msg)
	}
	if sum := m.finish(); !strings.Contains(sum, "The run reached its maximum duration (1m0s): the ramp was cut") {
		t.Errorf("the summary does not say the run was cut:\n%s", sum)
	}
}
