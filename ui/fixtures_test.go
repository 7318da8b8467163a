package ui

import (
	"context"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/themes"
)

// -update rewrites the golden files in testdata/. charmbracelet/x/exp/golden (a
// teatest dependency) registers the same flag; ours is registered only without it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata/")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// golden compares s, ANSI stripped, with testdata/<test name>.golden.
func golden(t *testing.T, s string) {
	t.Helper()
	got := ansi.Strip(s)
	path := filepath.Join("testdata", t.Name()+".golden")
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// checkBox fails when a line of s is wider than w or s has more than h lines.
func checkBox(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		t.Errorf("%d lines, more than %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, n, w, ansi.Strip(l))
		}
	}
}

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// testStyles are the default dark theme's styles (stripped in goldens anyway).
func testStyles() Styles { return newStyles(themes.Default(true)) }

// rampLevels is a hand-made degradation curve: per-user TPS falls as users double,
// aggregate rises then flattens; level 32 is open (being measured now).
func rampLevels() []model.LevelStats {
	users := []int{1, 2, 4, 8, 16, 32}
	user := []float64{62.5, 61.0, 57.8, 49.2, 33.4, 19.7}
	ttft := []float64{85, 90, 120, 210, 640, 1850}
	var ls []model.LevelStats
	for i, u := range users {
		l := model.LevelStats{
			Concurrency:  u,
			Duration:     10 * time.Second,
			Requests:     3 * u,
			Succeeded:    3 * u,
			UserTPS:      model.Dist{Count: 3 * u, P50: user[i]},
			TTFT:         model.Dist{Count: 3 * u, P50: ttft[i], P95: 1.8 * ttft[i]},
			AggregateTPS: user[i] * float64(u) * 0.97,
			TokenSource:  model.SourceUsage,
		}
		// Intervals known to ±1%: every level decided at 95% (up to 16 users meets the
		// criteria, 32 fails them); errors of 0 are undecided, as shares of few requests are.
		pm := func(v float64) *model.Interval { return &model.Interval{Lo: 0.99 * v, Hi: 1.01 * v} }
		l.CI = model.LevelCI{UserTPSP50: pm(l.UserTPS.P50), TTFTP50: pm(l.TTFT.P50), TTFTP95: pm(l.TTFT.P95),
			AggregateTPS: pm(l.AggregateTPS), ErrorRate: &model.Interval{Lo: 0, Hi: 0.05}}
		if u == 32 {
			l.Open = true
			l.Requests, l.Succeeded = 40, 37
			l.Errors = map[model.ErrorKind]int{model.HTTPError(429): 3}
			l.ErrorRate = 3.0 / 40
		}
		ls = append(ls, l)
	}
	return ls
}

// rampBuckets is n seconds of live buckets that climb with the load.
func rampBuckets(n int) []model.Bucket {
	bs := make([]model.Bucket, n)
	for i := range bs {
		users := 1 << (i / 10 % 6)
		user := 62.0 - 1.3*float64(users) + 3*math.Sin(float64(i)/3)
		bs[i] = model.Bucket{
			Start: t0.Add(time.Duration(i) * time.Second), Width: time.Second,
			AggregateTPS: user * float64(users), UserTPS: user, HasUser: true,
			TTFTP50: time.Duration(80+20*users) * time.Millisecond,
			TTFTP95: time.Duration(150+55*users) * time.Millisecond, HasTTFT: true,
			Active: users, Target: users, Started: users, Finished: users,
		}
	}
	return bs
}

// fakeCtl is a pool at the edge: it records what the screen asked.
type fakeCtl struct {
	conc, active int
	paused       bool
	stopped      bool
	sets         []int
	open         bool // rate mode (SetOpenLoop)
}

func (f *fakeCtl) SetConcurrency(n int) {
	if n != f.conc {
		f.sets = append(f.sets, n)
	}
	f.conc = n
}
func (f *fakeCtl) Concurrency() int { return f.conc }
func (f *fakeCtl) Active() int      { return f.active }
func (f *fakeCtl) Pause()           { f.paused = true }
func (f *fakeCtl) Resume()          { f.paused = false }
func (f *fakeCtl) Paused() bool     { return f.paused }
func (f *fakeCtl) Stop()            { f.stopped = true }

// fakeTracker serves hand-made model values (the real Tracker is another package's work).
type fakeTracker struct {
	levels   []model.LevelStats
	buckets  []model.Bucket
	live     model.Live
	source   string
	lastErr  string
	capacity int
	resets   int
	samples  int
	ticks    int
	segments int
	errors   map[model.ErrorKind]int
	rate     bool // SetRateMode
}

func (f *fakeTracker) AddSample(*model.Sample)     { f.samples++ }
func (f *fakeTracker) AddTick(tk *model.Tick)      { f.ticks++ }
func (f *fakeTracker) UpdateSegment(model.Segment) { f.segments++ }
func (f *fakeTracker) Reset(time.Time)             { f.resets++; f.levels, f.buckets = nil, nil }
func (f *fakeTracker) Levels() []model.LevelStats  { return f.levels }
func (f *fakeTracker) MarkShort(c int) {
	for i := range f.levels {
		if f.levels[i].Concurrency == c {
			f.levels[i].Short = true
		}
	}
}
func (f *fakeTracker) MarkUndecided(c int, terms []string) {
	for i := range f.levels {
		if f.levels[i].Concurrency == c {
			f.levels[i].Undecided = terms
		}
	}
}
func (f *fakeTracker) MarkRefined(c int) {
	for i := range f.levels {
		if f.levels[i].Concurrency == c {
			f.levels[i].Refined = true
		}
	}
}
func (f *fakeTracker) Level(c int) (model.LevelStats, bool) {
	for _, l := range f.levels {
		if l.Concurrency == c {
			return l, true
		}
	}
	return model.LevelStats{}, false
}
func (f *fakeTracker) Buckets(n int) []model.Bucket {
	if n < len(f.buckets) {
		return f.buckets[len(f.buckets)-n:]
	}
	return f.buckets
}
func (f *fakeTracker) Live() model.Live    { return f.live }
func (f *fakeTracker) TokenSource() string { return f.source }
func (f *fakeTracker) Totals() (int, int, map[model.ErrorKind]int) {
	n := 0
	for _, v := range f.errors {
		n += v
	}
	return 420 + n, 420, f.errors
}
func (f *fakeTracker) LastError() (string, time.Time) { return f.lastErr, t0 }
func (f *fakeTracker) Capacity() int                  { return f.capacity }
func (f *fakeTracker) Saturation() (int, bool)        { return 16, true }
func (f *fakeTracker) ReportEndpoint(info model.EndpointInfo) model.ReportEndpoint {
	return model.ReportEndpoint{Name: info.Name, URL: info.URL, Model: info.Model, Simulated: info.Simulated}
}
func (f *fakeTracker) SetRateMode(on bool) { f.rate = on }
func (f *fakeTracker) ReportMode(info model.EndpointInfo, rate bool) (model.ReportEndpoint, bool) {
	return f.ReportEndpoint(info), rate == f.rate
}

// fullTracker is a tracker an hour into a run.
func fullTracker() *fakeTracker {
	bs := rampBuckets(3600)
	last := bs[len(bs)-1]
	return &fakeTracker{
		levels: rampLevels(), buckets: bs, source: model.SourceUsage, capacity: 16,
		live: model.Live{At: last.Start, AggregateTPS: last.AggregateTPS, UserTPS: last.UserTPS, HasUser: true,
			TTFTP50: last.TTFTP50, TTFTP95: last.TTFTP95, HasTTFT: true, Active: 32, Target: 32},
		errors:  map[model.ErrorKind]int{model.HTTPError(429): 3, model.ErrTimeout: 1},
		lastErr: "http_429: Too Many Requests from 127.0.0.1:8000 (queue full)",
	}
}

// newTestRoot builds the screen over a run engine with fake pools and trackers, n
// endpoints and a fixed clock.
func newTestRoot(t testing.TB, n int) (*root, []*fakeCtl, []*fakeTracker) {
	t.Helper()
	var books []engine.Book
	var trs []*fakeTracker
	for i := range n {
		tr := fullTracker()
		for j := range tr.levels { // a second endpoint draws its own curve
			tr.levels[j].UserTPS.P50 *= 1 + 0.4*float64(i)
			tr.levels[j].AggregateTPS *= 1 + 0.4*float64(i)
		}
		books, trs = append(books, tr), append(trs, tr)
	}
	m, ctls := newTestRootOver(t, books)
	return m, ctls, trs
}

// newTestRootOver builds the screen over a run engine with fake pools and the given
// level books (one endpoint each) and a fixed clock.
func newTestRootOver(t testing.TB, books []engine.Book) (*root, []*fakeCtl) {
	t.Helper()
	var parts []engine.Part
	var ctls []*fakeCtl
	for i, b := range books {
		c := &fakeCtl{conc: 4, active: 4}
		name := []string{"sim", "vllm-b", "sglang-c"}[i%3]
		parts = append(parts, engine.Part{
			Endpoint: client.Endpoint{Name: name, BaseURL: "http://127.0.0.1:8000/v1", Model: "sim-llama-8b", Simulated: i == 0},
			Control:  c, Book: b,
		})
		ctls = append(ctls, c)
	}
	eng, err := engine.New(engine.Config{
		Ramp: engine.Ramp{Levels: []int{1, 2, 4, 8}, Hold: 10 * time.Second}, Settle: engine.SettleCapacity,
		SLO: model.DefaultSLO, Version: "test", Now: func() time.Time { return t0 },
		InProcessSim: true, // endpoint 0 is the built-in simulator: "tpsmon+sim CPU"
	}, parts)
	if err != nil {
		t.Fatal(err)
	}
	m, err := newRoot(context.Background(), nil, eng, config{SnapshotDir: t.TempDir(), Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	return m, ctls
}

// SetOpenLoop makes fakeCtl switch like a pool: the mode, then the number.
func (f *fakeCtl) SetOpenLoop(on bool, n int) {
	f.open = on
	f.SetConcurrency(n)
}
