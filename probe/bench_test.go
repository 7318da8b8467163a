package probe

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"go.uber.org/goleak"
)

// fakeStreamer streams tokens events gap apart, then ends with err (none: success).
type fakeStreamer struct {
	tokens int
	gap    time.Duration
	err    model.ErrorKind
}

func (f *fakeStreamer) Stream(ctx context.Context, p *Progress) model.Sample {
	s := model.Sample{Send: time.Now()}
	p.Send.Store(Mono())
	t := time.NewTimer(f.gap)
	defer t.Stop()
	for i := 0; i < f.tokens; i++ {
		select {
		case <-ctx.Done():
			s.Err, s.ErrMsg, s.End = model.ErrCanceled, "canceled", time.Now()
			return s
		case <-t.C:
			t.Reset(f.gap)
		}
		now := time.Now()
		if i == 0 {
			s.First, s.FirstAnswer = now, now
			p.First.Store(Mono())
		}
		s.Last = now
		s.Chunks++
		p.Chunks.Add(1)
	}
	s.Tokens, s.Usage, s.Finish, s.Status, s.End = s.Chunks, true, "stop", 200, time.Now()
	if f.err != model.ErrNone {
		s.Err, s.ErrMsg, s.Status, s.Finish = f.err, "HTTP 500: boom from the fake", 500, ""
	}
	return s
}

func fakes(byName map[string]*fakeStreamer) NewStreamerFunc {
	return func(ep Endpoint, conns int) (Streamer, error) {
		s, ok := byName[ep.Name]
		if !ok {
			return nil, errors.New("no fake named " + ep.Name)
		}
		return s, nil
	}
}

func TestBenchRejectsBadConfig(t *testing.T) {
	ep := []Endpoint{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}}
	tests := []struct {
		name string
		cfg  BenchConfig
		want string
	}{
		{"no endpoint", BenchConfig{Ramp: Ramp{Levels: []int{1}, Hold: time.Second}}, "no endpoint"},
		{"no level", BenchConfig{Endpoints: ep, Ramp: Ramp{Hold: time.Second}}, "at least one level"},
		{"no hold", BenchConfig{Endpoints: ep, Ramp: Ramp{Levels: []int{1}}}, "positive hold"},
		{"zero level", BenchConfig{Endpoints: ep, Ramp: Ramp{Levels: []int{1, 0}, Hold: time.Second}}, "at least 1"},
		{"streamer fails", BenchConfig{Endpoints: ep, Ramp: Ramp{Levels: []int{1}, Hold: time.Second},
			NewStreamer: func(Endpoint, int) (Streamer, error) { return nil, errors.New("bad URL") }}, "endpoint a: bad URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Bench(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) || res != nil {
				t.Errorf("Bench = %v, %v; want an error saying %q", res, err, tt.want)
			}
		})
	}
}

func TestBenchProgressString(t *testing.T) {
	live := model.Live{AggregateTPS: 812.4, UserTPS: 203.25, HasUser: true, TTFTP95: 123456789 * time.Nanosecond, HasTTFT: true, Active: 4}
	tests := []struct {
		p    BenchProgress
		want string
	}{
		{BenchProgress{Name: "sim", Level: 2, Levels: 4, Concurrency: 4, Left: 11790 * time.Millisecond, Hold: 15 * time.Second, Live: live},
			"sim: level 2/4, 4 users, 12s left, 812 tok/s, 203.2 tok/s/user, TTFT p95 123ms, 0 errors"},
		{BenchProgress{Name: "a", Level: 1, Levels: 1, Concurrency: 1, Hold: time.Second, Warming: true, Errors: 2},
			"a: level 1/1, 1 user, warming up, 0 tok/s, - tok/s/user, TTFT p95 -, 2 errors"},
		{BenchProgress{Name: "a", Level: 3, Levels: 6, Concurrency: 8, Hold: 15 * time.Second, LevelChange: true, Errors: 1},
			"a: level 3/6: 8 users, held 15s once warm-up is over, 1 error so far"},
		{BenchProgress{Name: "a", Draining: true, Elapsed: 1500 * time.Millisecond, Active: 1, Errors: 1},
			"a: ramp done, waiting for 1 in-flight request to finish (1.5s), 1 error"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

func TestBenchSettings(t *testing.T) {
	eps := []Endpoint{{MaxTokens: 64, PromptTokens: 32}}
	got := BenchSettings(eps, Ramp{Levels: []int{1, 4}, Hold: 1500 * time.Millisecond}, model.DefaultSLO)
	if got.API != "chat" || got.MaxTokens != 64 || got.PromptTokens != 32 || got.HoldS != 1.5 ||
		len(got.Ramp) != 2 || got.Ramp[1] != 4 ||
		got.SLO != (model.ReportSLO{UserTPSMin: 30, TTFTP95MaxMs: 2000, ErrorRateMax: 0.01}) {
		t.Errorf("BenchSettings = %+v", got)
	}
}

// progressLog collects progress calls (Bench calls Progress from one goroutine, the
// test reads after Bench returned).
type progressLog struct {
	mu    sync.Mutex
	calls []BenchProgress
}

func (l *progressLog) add(p BenchProgress) {
	l.mu.Lock()
	l.calls = append(l.calls, p)
	l.mu.Unlock()
}

func TestBenchWalksTheRamp(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	eps := []Endpoint{{Name: "fast", MaxTokens: 10}, {Name: "slow", MaxTokens: 10}}
	var log progressLog
	res, err := Bench(context.Background(), BenchConfig{
		Endpoints: eps,
		Ramp:      Ramp{Levels: []int{1, 2}, Hold: 700 * time.Millisecond},
		Version:   "test",
		Progress:  log.add,
		NewStreamer: fakes(map[string]*fakeStreamer{
			"fast": {tokens: 10, gap: 5 * time.Millisecond},
			"slow": {tokens: 10, gap: 10 * time.Millisecond},
		}),
		PoolOptions: []Option{WithTickEvery(100 * time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Report
	if rep.Schema != model.Schema || rep.ToolVersion != "test" || rep.Interrupted {
		t.Errorf("report header: %+v", rep)
	}
	for _, ts := range []string{rep.StartedAt, rep.FinishedAt} {
		if _, err := time.Parse(time.RFC3339, ts); err != nil {
			t.Errorf("timestamp %q: %v", ts, err)
		}
	}
	if len(rep.Endpoints) != 2 || rep.Endpoints[0].Name != "fast" || rep.Endpoints[1].Name != "slow" {
		t.Fatalf("endpoints: %+v", rep.Endpoints)
	}
	for i, e := range rep.Endpoints {
		var levels []int
		for _, l := range e.Levels {
			levels = append(levels, l.Concurrency)
		}
		if len(levels) != 2 || levels[0] != 1 || levels[1] != 2 {
			t.Errorf("%s: levels %v, want [1 2]", e.Name, levels)
		}
		if o := res.Outcomes[i]; o.Succeeded == 0 || o.Unusable() || o.Requests != o.Succeeded {
			t.Errorf("%s: outcome %+v", e.Name, o)
		}
	}
	// Per-user TPS of the fake is about 1/gap: the fast one beats the slow one.
	if f, s := rep.Endpoints[0].Levels[0].UserTPS.P50, rep.Endpoints[1].Levels[0].UserTPS.P50; !(f > s && s > 0) {
		t.Errorf("user TPS p50 fast %.1f, slow %.1f", f, s)
	}
	// Level changes were announced for each endpoint, then the drain.
	var changes []string
	for _, p := range log.calls {
		if p.LevelChange && p.Endpoint == 0 {
			if p.Draining {
				changes = append(changes, "drain")
			} else {
				changes = append(changes, strings.Repeat("x", p.Concurrency))
			}
		}
	}
	if strings.Join(changes, ",") != "x,xx,drain" {
		t.Errorf("level changes %v, want [x xx drain]", changes)
	}
}

func TestBenchUnusableEndpoint(t *testing.T) {
	res, err := Bench(context.Background(), BenchConfig{
		Endpoints:   []Endpoint{{Name: "down"}},
		Ramp:        Ramp{Levels: []int{2}, Hold: 300 * time.Millisecond},
		NewStreamer: fakes(map[string]*fakeStreamer{"down": {tokens: 1, gap: time.Millisecond, err: model.HTTPError(500)}}),
		PoolOptions: []Option{WithTickEvery(100 * time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Outcomes[0]
	if !o.Unusable() || o.Requests == 0 || o.Errors[model.HTTPError(500)] != o.Requests || o.LastError != "HTTP 500: boom from the fake" {
		t.Errorf("outcome %+v; want every request failed with the last message", o)
	}
}

func TestBenchInterrupted(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	start := time.Now()
	res, err := Bench(ctx, BenchConfig{
		Endpoints: []Endpoint{{Name: "long"}},
		Ramp:      Ramp{Levels: []int{1, 2}, Hold: time.Minute},
		// Requests that would take 100 s: only a cut ends them.
		NewStreamer: fakes(map[string]*fakeStreamer{"long": {tokens: 10000, gap: 10 * time.Millisecond}}),
		PoolOptions: []Option{WithTickEvery(100 * time.Millisecond)},
		Progress: func(p BenchProgress) {
			if !p.LevelChange {
				once.Do(cancel) // Ctrl-C once the first live tick arrived
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Report.Interrupted {
		t.Error("Interrupted = false after ctx was canceled")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Bench took %s after Ctrl-C; want it to cut in-flight requests", d)
	}
	if o := res.Outcomes[0]; o.Requests != 0 || o.Unusable() {
		t.Errorf("canceled requests counted as the endpoint's: %+v", o)
	}
	if len(res.Report.Endpoints) != 1 {
		t.Errorf("report endpoints %d, want 1", len(res.Report.Endpoints))
	}
}

func TestFleetCloseWithoutReader(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, err := NewFleet(context.Background(), []Endpoint{{Name: "a"}, {Name: "b"}}, FleetOptions{
		Conns: 2,
		NewStreamer: fakes(map[string]*fakeStreamer{
			"a": {tokens: 5, gap: time.Millisecond}, "b": {tokens: 5, gap: time.Millisecond},
		}),
		PoolOptions: []Option{WithTickEvery(10 * time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.SetConcurrency(2)
	<-f.Events() // running; nobody reads from now on
	time.Sleep(50 * time.Millisecond)
	f.Close() // must not block on the pools' unread events, and ends every goroutine
	f.Close() // idempotent
}

// Requests that last longer than the hold would leave a level with no steady window if
// the hold counted from the concurrency change; Bench counts it from the steady moment.
func TestBenchHoldsEachLevelOnceSteady(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	hold := 300 * time.Millisecond
	res, err := Bench(context.Background(), BenchConfig{
		Endpoints:   []Endpoint{{Name: "long", MaxTokens: 40}},
		Ramp:        Ramp{Levels: []int{1, 2, 4}, Hold: hold},
		NewStreamer: fakes(map[string]*fakeStreamer{"long": {tokens: 40, gap: 10 * time.Millisecond}}), // ~400 ms a request
		PoolOptions: []Option{WithTickEvery(50 * time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	levels := res.Report.Endpoints[0].Levels
	if len(levels) != 3 {
		t.Fatalf("levels %+v, want 3", levels)
	}
	for _, l := range levels {
		// Each level is held for `hold` from its steady moment (give the 100 ms ramp step some slack).
		if l.DurationS < hold.Seconds()*0.9 || l.Requests == 0 {
			t.Errorf("level %d: steady window %.2fs with %d requests, want >= %.2fs and some requests",
				l.Concurrency, l.DurationS, l.Requests, hold.Seconds())
		}
	}
}

// TestBenchClosesConnections: once Bench returns, the clients it built hold no idle
// keep-alive connections (each one is two goroutines and a socket until the idle
// timeout), also while the server stays up.
func TestBenchClosesConnections(t *testing.T) {
	h := &sseHandler{events: []string{chunk(`{"content":"a"}`), chunk(`{"content":"b"}`), finishChunk("stop"), done}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // runs before srv.Close
	res, err := Bench(context.Background(), BenchConfig{
		Endpoints:   []Endpoint{{BaseURL: srv.URL + "/v1", Model: "m", Timeout: 5 * time.Second}},
		Ramp:        Ramp{Levels: []int{2}, Hold: 200 * time.Millisecond},
		PoolOptions: []Option{WithTickEvery(50 * time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Succeeded == 0 {
		t.Fatalf("outcome %+v; want successful requests", o)
	}
}

// TestBenchDrainWaitsForStreamsThatDeliver: the last level's requests finish during the
// drain. They must not be cut while they still deliver tokens (the watchdog ends silent
// ones), or a last level of long answers has no request at all. Drain bounds the quiet.
func TestBenchDrainWaitsForStreamsThatDeliver(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	res, err := Bench(context.Background(), BenchConfig{
		Endpoints: []Endpoint{{Name: "long"}},
		Ramp:      Ramp{Levels: []int{2}, Hold: 100 * time.Millisecond},
		Drain:     300 * time.Millisecond,
		// ~1.2 s a request: it outlasts the hold and the Drain, a token every 10 ms.
		NewStreamer: fakes(map[string]*fakeStreamer{"long": {tokens: 120, gap: 10 * time.Millisecond}}),
		PoolOptions: []Option{WithTickEvery(50 * time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	levels := res.Report.Endpoints[0].Levels
	if o := res.Outcomes[0]; o.Succeeded < 2 || res.Report.Interrupted {
		t.Fatalf("outcome %+v, interrupted %v; want the 2 requests in flight at the end to finish", o, res.Report.Interrupted)
	}
	if len(levels) != 1 || levels[0].Requests < 2 {
		t.Errorf("levels %+v; want the level's 2 requests", levels)
	}
}

// TestBenchDrainCutsQuietStreams: a request that delivers nothing more is cut once the
// drain has been quiet for Drain.
func TestBenchDrainCutsQuietStreams(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	start := time.Now()
	res, err := Bench(context.Background(), BenchConfig{
		Endpoints: []Endpoint{{Name: "stuck"}},
		Ramp:      Ramp{Levels: []int{1}, Hold: 100 * time.Millisecond},
		Drain:     300 * time.Millisecond,
		// One token, then nothing for 100 s.
		NewStreamer: fakes(map[string]*fakeStreamer{"stuck": {tokens: 2, gap: 100 * time.Second}}),
		PoolOptions: []Option{WithTickEvery(50 * time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Bench took %s; want the quiet request cut after Drain", d)
	}
	if o := res.Outcomes[0]; o.Requests != 0 {
		t.Errorf("outcome %+v; want the cut request out of the counts", o)
	}
}
