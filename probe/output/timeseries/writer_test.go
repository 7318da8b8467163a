package timeseries

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// fake streams tokens events gap apart; every failEvery-th request fails with HTTP 500
// after its tokens.
type fake struct {
	tokens    int
	gap       time.Duration
	failEvery int64
	n         atomic.Int64
}

func (f *fake) Stream(ctx context.Context, p *probe.Progress) model.Sample {
	s := model.Sample{Send: time.Now()}
	p.Send.Store(probe.Mono())
	for i := 0; i < f.tokens; i++ {
		select {
		case <-ctx.Done():
			s.Err, s.ErrMsg, s.End = model.ErrCanceled, "canceled", time.Now()
			return s
		case <-time.After(f.gap):
		}
		now := time.Now()
		if i == 0 {
			s.First, s.FirstAnswer = now, now
			p.First.Store(probe.Mono())
		}
		s.Last = now
		s.Chunks++
		p.Chunks.Add(1)
	}
	s.Tokens, s.Usage, s.Finish, s.Status, s.End = s.Chunks, true, "stop", 200, time.Now()
	if f.failEvery > 0 && f.n.Add(1)%f.failEvery == 0 {
		s.Err, s.ErrMsg, s.Status, s.Finish = model.HTTPError(500), "HTTP 500: boom", 500, ""
	}
	return s
}

// tickCounter counts the ticks the engine handled, per endpoint.
type tickCounter map[int]int

func (c tickCounter) Observe(_ *engine.Engine, ev *probe.Event) {
	if ev.Tick != nil {
		c[ev.Endpoint]++
	}
}

// benchTo runs a short bench over two fake endpoints with a time series written to path.
func benchTo(t *testing.T, path string) (*Writer, tickCounter, *engine.Result) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, ticks := NewWriter(f), tickCounter{}
	fakes := map[string]*fake{"a": {tokens: 25, gap: 3 * time.Millisecond}, "b": {tokens: 25, gap: 3 * time.Millisecond, failEvery: 4}}
	cfg := engine.Config{
		Endpoints: []client.Endpoint{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, {Name: "b", BaseURL: "http://127.0.0.1:2/v1", Model: "m"}},
		Ramp:      engine.Ramp{Levels: []int{2, 4}, Hold: 300 * time.Millisecond},
		FullRamp:  true,
		// A fixed floor of 20 requests a level (the levels would end after 6 otherwise).
		MinRequests: 20,
		Drain:       time.Second,
		NewStreamer: func(ep client.Endpoint, _ int) (probe.Streamer, error) {
			return fakes[ep.Name], nil
		},
		PoolOptions: []probe.Option{probe.WithTickEvery(50 * time.Millisecond)},
		Observers:   []engine.Observer{w, ticks},
	}
	e, err := engine.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return w, ticks, res
}

func TestWriterWritesALinePerTickPerEndpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ts.jsonl")
	w, ticks, res := benchTo(t, path)
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Error("the file does not end with a newline")
	}
	raw := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(raw) != ticks[0]+ticks[1] || len(raw) != w.Lines() || ticks[0] < 10 || ticks[1] < 10 {
		t.Fatalf("%d lines, writer says %d, ticks %v: want one line per tick per endpoint", len(raw), w.Lines(), ticks)
	}
	s, err := Read(bytes.NewReader(data))
	if err != nil || s.Cut {
		t.Fatalf("Read: %v (cut %v)", err, s.Cut)
	}
	byEp := map[string][]Line{}
	for i, l := range s.Lines {
		var keys map[string]any
		if err := json.Unmarshal([]byte(raw[i]), &keys); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, k := range []string{"schema", "t", "elapsed_s", "endpoint", "target_users", "active_streams", "aggregate_tps", "requests_total", "steady", "capacity_users"} {
			if _, ok := keys[k]; !ok {
				t.Errorf("line %d has no %q: %s", i+1, k, raw[i])
			}
		}
		if l.At().IsZero() || l.WidthS <= 0 {
			t.Errorf("line %d: time %q width %v", i+1, l.Time, l.WidthS)
		}
		byEp[l.Endpoint] = append(byEp[l.Endpoint], l)
	}
	for name, ls := range byEp {
		for i := 1; i < len(ls); i++ {
			if ls[i].ElapsedS < ls[i-1].ElapsedS {
				t.Errorf("%s: elapsed goes back at line %d: %v after %v", name, i, ls[i].ElapsedS, ls[i-1].ElapsedS)
			}
		}
	}
	checkEndpointB(t, byEp["b"], res)
	checkRecorded(t, byEp["a"])
}

// checkEndpointB: the errors by kind of every line add up to the run's errors, and the
// last totals are the report's.
func checkEndpointB(t *testing.T, ls []Line, res *engine.Result) {
	t.Helper()
	sum := 0
	for _, l := range ls {
		sum += l.Errors[model.HTTPError(500)]
	}
	want := res.Outcomes[1].Errors[model.HTTPError(500)]
	last := ls[len(ls)-1]
	if want == 0 || sum > want || sum < want-1 {
		t.Errorf("errors by kind add up to %d, the run had %d", sum, want)
	}
	if last.ErrorsTotal[model.HTTPError(500)] < sum || last.LastError == "" && !hasLastError(ls) {
		t.Errorf("errors_total %v, last_error never set", last.ErrorsTotal)
	}
}

func hasLastError(ls []Line) bool {
	for _, l := range ls {
		if strings.Contains(l.LastError, "HTTP 500") {
			return true
		}
	}
	return false
}

// checkRecorded: the live numbers, the ramp and the levels are there.
func checkRecorded(t *testing.T, ls []Line) {
	t.Helper()
	var tps, user, ttft, steady, ramp bool
	levels := map[int]Level{}
	for _, l := range ls {
		tps = tps || l.AggregateTPS > 0
		user = user || l.UserTPS != nil && *l.UserTPS > 0
		ttft = ttft || l.TTFTP95 != nil && *l.TTFTP95 > 0
		steady = steady || l.Steady
		ramp = ramp || l.Ramp != nil && l.Ramp.Levels == 2 && l.Ramp.Need == 20
		for _, lv := range l.Levels {
			levels[lv.Users] = lv
		}
	}
	if !tps || !user || !ttft || !steady || !ramp {
		t.Errorf("aggregate %v, user %v, TTFT %v, steady %v, ramp %v: want each at least once", tps, user, ttft, steady, ramp)
	}
	if len(levels) != 2 || levels[2].SteadyRequests < 20 || levels[4].UserTPSP50 == nil || levels[2].TTFTP95 == nil {
		t.Errorf("levels recorded: %+v", levels)
	}
}

func TestReadKeepsWholeLinesOfACutFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ts.jsonl")
	benchTo(t, path)
	data, _ := os.ReadFile(path)
	whole := bytes.Count(data, []byte("\n"))
	cut := data[:len(data)-20] // killed in the middle of writing the last line
	s, err := Read(bytes.NewReader(cut))
	if err != nil || !s.Cut || len(s.Lines) != whole-1 {
		t.Fatalf("cut file: %d lines, cut %v, %v; want %d lines and cut", len(s.Lines), s.Cut, err, whole-1)
	}
	// A last line that is whole but lacks its newline is kept.
	s, err = Read(bytes.NewReader(data[:len(data)-1]))
	if err != nil || s.Cut || len(s.Lines) != whole {
		t.Fatalf("no final newline: %d lines, cut %v, %v; want %d", len(s.Lines), s.Cut, err, whole)
	}
	// A bad line in the middle is an error naming it.
	bad := append([]byte("{\"schema\":\"tpsmon.timeseries/v1\"}\nnot json\n"), data...)
	if _, err := Read(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
	if _, err := Read(strings.NewReader(`{"schema":"tpsmon.bench/v1"}` + "\n")); err == nil || !strings.Contains(err.Error(), "a tpsmon time series") {
		t.Errorf("foreign file: %v", err)
	}
}

// failWriter fails after n writes.
type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, os.ErrClosed
	}
	f.n--
	return len(p), nil
}

func TestWriterStopsAtTheFirstWriteError(t *testing.T) {
	w := NewWriter(&failWriter{n: 2})
	e, err := engine.New(engine.Config{}, []engine.Part{{Endpoint: client.Endpoint{Name: "a"}, Control: &ctl{}}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i := range 4 {
		tk := &model.Tick{Start: t0.Add(time.Duration(i) * time.Second), End: t0.Add(time.Duration(i+1) * time.Second)}
		ev := probe.Event{Tick: tk}
		e.Handle(ev)
		w.Observe(e, &ev)
	}
	if w.Lines() != 2 || w.Err() != os.ErrClosed {
		t.Errorf("lines %d, err %v: want 2 and the write error", w.Lines(), w.Err())
	}
}

// ctl is a load control at the edge.
type ctl struct{ conc int }

func (c *ctl) SetConcurrency(n int) { c.conc = n }
func (c *ctl) Concurrency() int     { return c.conc }
func (c *ctl) Active() int          { return 0 }
func (c *ctl) Pause()               {}
func (c *ctl) Resume()              {}
func (c *ctl) Paused() bool         { return false }
func (c *ctl) Stop()                {}

// BenchmarkWriterLine is the writer's cost per line (one endpoint, seven levels of 200
// requests each), on the engine's goroutine once a second per endpoint.
func BenchmarkWriterLine(b *testing.B) {
	e, err := engine.New(engine.Config{}, []engine.Part{{Endpoint: client.Endpoint{Name: "a", Model: "m"}, Control: &ctl{conc: 64}}})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	for seg, users := range []int{1, 2, 4, 8, 16, 32, 64} {
		at := t0.Add(time.Duration(seg) * time.Minute)
		e.Handle(probe.Event{Segment: &model.Segment{ID: seg, Concurrency: users, Start: at, SteadyAt: at, End: at.Add(time.Minute), Open: users == 64}})
		for i := range 200 {
			s := &model.Sample{Segment: seg, Concurrency: users, Send: at, First: at.Add(time.Duration(50+i) * time.Millisecond),
				Last: at.Add(5 * time.Second), End: at.Add(5 * time.Second), Tokens: 256, Usage: true}
			e.Handle(probe.Event{Sample: s})
		}
	}
	w := NewWriter(io.Discard)
	ev := probe.Event{Tick: &model.Tick{Start: t0, End: t0.Add(time.Second), Target: 64, Active: 64, Chunks: 3000,
		UserChunks: make([]int32, 64), FirstTokens: []time.Duration{time.Second}}}
	e.Handle(ev)
	b.ReportAllocs()
	for b.Loop() {
		w.Observe(e, &ev)
	}
}

// TestWriterSaysWhatTheScreenSaid: the engine's notices that the live screen's status
// line says go on the endpoint's next line (each endpoint's own), and an endpoint's
// first line lists the keys this writer records, so that replay tells "nothing said"
// from "not recorded".
func TestWriterSaysWhatTheScreenSaid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ts.jsonl")
	benchTo(t, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]bool{}
	said := map[string][]string{}
	warned := false
	for _, l := range s.Lines {
		if !first[l.Endpoint] {
			first[l.Endpoint] = true
			if strings.Join(l.Recorded, ",") != strings.Join(RecordedKeys, ",") {
				t.Errorf("%s's first line records %v, want %v", l.Endpoint, l.Recorded, RecordedKeys)
			}
		} else if len(l.Recorded) > 0 {
			t.Errorf("%s: recorded on a later line", l.Endpoint)
		}
		for _, x := range l.Said {
			said[l.Endpoint] = append(said[l.Endpoint], x.Text)
			// about a quarter of b's requests fail (how many ended by then varies under -race)
			warned = warned || x.Warning && strings.HasPrefix(x.Text, "b: at 2 users errors ") && strings.Contains(x.Text, "% > 5% (")
		}
	}
	for _, ep := range []string{"a", "b"} {
		all := strings.Join(said[ep], "\n")
		if want := "auto-ramp finished on " + ep + ": all 2 levels held"; strings.Count(all, want) != 1 {
			t.Errorf("%s's lines said %q, want once %q", ep, said[ep], want)
		}
		if other := map[string]string{"a": "b", "b": "a"}[ep]; strings.Contains(all, "on "+other) || strings.Contains(all, other+": ") {
			t.Errorf("%s's lines say what was said of %s: %q", ep, other, said[ep])
		}
	}
	if !warned {
		t.Errorf("b's errors over the stop rule (full ramp: it goes on) not said as a warning: %q", said["b"])
	}
}
