package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"go.uber.org/goleak"
)

var fastTicks = []probe.Option{probe.WithTickEvery(50 * time.Millisecond)}

func TestStartRejectsBadConfig(t *testing.T) {
	ep := []client.Endpoint{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}}
	tests := []struct {
		name  string
		cfg   Config
		field string
		want  string
	}{
		{"no endpoint", Config{Ramp: Ramp{Levels: []int{1}, Hold: time.Second}}, FieldEndpoints, "no endpoint"},
		{"no hold", Config{Endpoints: ep, Ramp: Ramp{Levels: []int{1}}}, FieldHold, "positive"},
		{"zero level", Config{Endpoints: ep, Ramp: Ramp{Levels: []int{1, 0}, Hold: time.Second}}, FieldRamp, "at least 1"},
		{"max hold below hold", Config{Endpoints: ep, Ramp: Ramp{Levels: []int{1}, Hold: time.Minute, MaxHold: time.Second}}, FieldMaxHold, "at least the hold"},
		{"settle", Config{Endpoints: ep, Settle: -2}, FieldSettle, "capacity"},
		{"max duration", Config{Endpoints: ep, MaxDuration: -time.Second}, FieldMaxDuration, "positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Start(context.Background(), tt.cfg)
			var ce *client.FieldError
			if !errors.As(err, &ce) || ce.Field != tt.field || !strings.Contains(err.Error(), tt.want) || e != nil {
				t.Errorf("Start = %v, %v; want a FieldError on %s saying %q", e, err, tt.field, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "--") {
				t.Errorf("the engine names a flag: %v", err)
			}
		})
	}
	_, err := Start(context.Background(), Config{Endpoints: ep, Ramp: Ramp{Levels: []int{1}, Hold: time.Second},
		NewStreamer: func(client.Endpoint, int) (probe.Streamer, error) { return nil, errors.New("bad URL") }})
	var ee *EndpointError
	if !errors.As(err, &ee) || ee.Name != "a" || err.Error() != "endpoint a: bad URL" {
		t.Errorf("streamer fails: %v", err)
	}
	if e, _ := New(Config{}, []Part{{Control: &fakeCtl{}}}); e == nil {
		t.Fatal("New failed")
	} else if _, err := e.Run(context.Background(), nil); err != ErrNoFleet {
		t.Errorf("Run without pools: %v", err)
	}
}

func TestProgressString(t *testing.T) {
	live := model.Live{AggregateTPS: 812.4, UserTPS: 203.25, HasUser: true, TTFTP95: 123456789 * time.Nanosecond, HasTTFT: true, Active: 4}
	tests := []struct {
		p    Progress
		want string
	}{
		// Issue 14: never "1/20 requests, 1s left" while 19 requests (about 30 s) are
		// missing: what is missing, and an estimate from the observed rate.
		{Progress{Name: "sim", Level: 2, Levels: 4, Concurrency: 4, Steady: 1, Need: 8, Live: live,
			Walk: LevelProgress{Steady: 1, Need: 8, Waiting: []string{model.TermTTFT}, More: 19, ETA: 30 * time.Second, MaxLeft: 2 * time.Minute, Left: time.Second}},
			"sim: level 2/4, 4 users, 1 request, waiting for its floor of 8 requests, TTFT p95 to be decided at 95%: about 19 more requests, about 30 s, 812 tok/s, 203.2 tok/s/user, TTFT p95 123 ms, 0 errors"},
		{Progress{Name: "sim", Level: 2, Levels: 4, Concurrency: 4, Steady: 40, Need: 6, Live: live,
			Walk: LevelProgress{Steady: 40, Need: 6, Curve: []string{"aggregate tok/s"}, Waiting: []string{model.TermUserTPS}, More: -1, ETA: -1, MaxLeft: 80 * time.Second}},
			"sim: level 2/4, 4 users, 40 requests, waiting for aggregate tok/s to ±5%, per-user p50 to be decided at 95%: no estimate (a figure sits on its target); at most 80 s more, 812 tok/s, 203.2 tok/s/user, TTFT p95 123 ms, 0 errors"},
		{Progress{Name: "sim", Level: 5, Levels: 6, Concurrency: 16, Steady: 30, Need: 6, Live: live,
			Walk: LevelProgress{Steady: 30, Need: 6, Waiting: []string{model.TermTTFT}, More: 300, ETA: 3 * time.Minute, MaxLeft: time.Minute}},
			"sim: level 5/6, 16 users, 30 requests, waiting for TTFT p95 to be decided at 95%: about 300 more requests, more than the 60 s left before the maximum hold, 812 tok/s, 203.2 tok/s/user, TTFT p95 123 ms, 0 errors"},
		{Progress{Name: "sim", Concurrency: 22, Steady: 50, Need: 6, Live: live,
			Walk: LevelProgress{Confirm: true, Steady: 50, Need: 6, Left: 2 * time.Second, More: 0, ETA: 2 * time.Second}},
			"sim: confirming the capacity at 22 users, 50 requests, 2 s of hold left, 812 tok/s, 203.2 tok/s/user, TTFT p95 123 ms, 0 errors"},
		{Progress{Name: "a", Level: 1, Levels: 1, Concurrency: 1, Hold: time.Second, Warming: true, Need: 6, Errors: 2, Walk: LevelProgress{Warming: true}},
			"a: level 1/1, 1 user, 0 requests, warming up (the previous level's requests are ending), 0 tok/s, - tok/s/user, TTFT p95 -, 2 errors"},
		{Progress{Name: "a", Level: 3, Levels: 6, Concurrency: 8, Hold: 15 * time.Second, Need: 8, LevelChange: true, Errors: 1},
			"a: level 3/6: 8 users, held at least 15 s and 8 requests once warm-up is over, until decided at 95%, 1 error so far"},
		{Progress{Name: "a", Concurrency: 24, Hold: 5 * time.Second, Need: 8, LevelChange: true, Walk: LevelProgress{Refined: true, Lo: 16, Hi: 32}},
			"a: refining the capacity: 24 users (between 16 and 32), held at least 5 s and 8 requests once warm-up is over, until decided at 95%, 0 errors so far"},
		{Progress{Name: "b", Ended: RampEnd{Kind: EndStopped, Users: 4, Stop: Stop{Users: 4, ErrorRate: 0.5, Requests: 10}}, Active: 2, Errors: 5},
			"b: ramp ended at 4 users: errors 50% > 5% (10 requests); waiting for the other endpoints, 2 in flight, 5 errors"},
		{Progress{Name: "a", Draining: true, Elapsed: 1500 * time.Millisecond, Active: 1, Errors: 1},
			"a: ramp done, waiting for 1 in-flight request to finish (1.5 s so far), 1 error"},
		{Progress{Name: "a", Draining: true, Active: 16},
			"a: ramp done, waiting for 16 in-flight requests to finish, 0 errors"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

func TestSettings(t *testing.T) {
	e, err := New(Config{Ramp: Ramp{Levels: []int{1, 4}, Hold: 1500 * time.Millisecond}},
		[]Part{{Endpoint: client.Endpoint{MaxTokens: 64, PromptTokens: 32}, Control: &fakeCtl{}}})
	if err != nil {
		t.Fatal(err)
	}
	got := e.Settings()
	if got.API != "chat" || got.MaxTokens != 64 || got.PromptTokens != 32 || got.HoldS != 1.5 ||
		fmt.Sprint(got.Ramp) != "[1 4]" ||
		got.SLO != (model.ReportSLO{UserTPSMin: 30, TTFTP95MaxMs: 2000, ErrorRateMax: 0.01}) {
		t.Errorf("Settings = %+v", got)
	}
}

func TestRunWalksTheRamp(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var log progressLog
	res, err := runBench(context.Background(), Config{
		Endpoints: []client.Endpoint{{Name: "fast", MaxTokens: 5}, {Name: "slow", MaxTokens: 5}},
		Ramp:      Ramp{Levels: []int{1, 2}, Hold: 200 * time.Millisecond},
		Version:   "test",
		NewStreamer: fakes(map[string]*fakeStreamer{
			"fast": {tokens: 5, gap: 2 * time.Millisecond},
			"slow": {tokens: 5, gap: 4 * time.Millisecond},
		}),
		PoolOptions: fastTicks,
	}, log.add)
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
			if l.Steady < MinFloor {
				t.Errorf("%s at %d: %d steady requests, want at least %d (the level rule's floor)", e.Name, l.Concurrency, l.Steady, MinFloor)
			}
		}
		if fmt.Sprint(levels) != "[1 2]" {
			t.Errorf("%s: levels %v, want [1 2]", e.Name, levels)
		}
		if o := res.Outcomes[i]; o.Succeeded == 0 || o.Unusable() || o.Requests != o.Succeeded {
			t.Errorf("%s: outcome %+v", e.Name, o)
		}
		if res.Ramps[i].Kind != EndFinished {
			t.Errorf("%s: ramp ended %+v, want finished", e.Name, res.Ramps[i])
		}
	}
	if f, s := rep.Endpoints[0].Levels[0].UserTPS.P50, rep.Endpoints[1].Levels[0].UserTPS.P50; !(f > s && s > 0) {
		t.Errorf("user TPS p50 fast %.1f, slow %.1f", f, s)
	}
	var changes []string
	sawProgress := false
	for _, p := range log.calls {
		if p.LevelChange && p.Endpoint == 0 {
			if p.Draining {
				changes = append(changes, "drain")
			} else {
				changes = append(changes, strings.Repeat("x", p.Concurrency))
			}
		}
		sawProgress = sawProgress || (!p.LevelChange && p.Need == MinFloor)
	}
	// 2 users meet the criteria: the walk confirms it (its TTFT p95 needs 104 requests at
	// 99%), or, when its exploring hold already saw them (a busy machine that stretched the
	// hold), ends it met at once.
	if c := strings.Join(changes, ","); (c != "x,xx,xx,drain" && c != "x,xx,drain") || !sawProgress {
		t.Errorf("level changes %v, want [x xx xx drain] (or [x xx drain]); live progress with the rule's floor seen: %v", changes, sawProgress)
	}
	if l := rep.Endpoints[0].Levels[1]; l.Steady < 104 || !rep.Endpoints[0].Capacity.Decided {
		t.Errorf("2 users confirmed with %d steady requests, capacity %+v; want 104 at least, decided", l.Steady, rep.Endpoints[0].Capacity)
	}
}

func TestRunUnusableEndpoint(t *testing.T) {
	res, err := runBench(context.Background(), Config{
		Endpoints:   []client.Endpoint{{Name: "down"}},
		Ramp:        Ramp{Levels: []int{2}, Hold: 100 * time.Millisecond},
		NewStreamer: fakes(map[string]*fakeStreamer{"down": {tokens: 1, gap: time.Millisecond, err: model.HTTPError(500)}}),
		PoolOptions: fastTicks,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := res.Outcomes[0]
	if !o.Unusable() || o.Requests == 0 || o.Errors[model.HTTPError(500)] != o.Requests || o.LastError != "HTTP 500: boom from the fake" {
		t.Errorf("outcome %+v; want every request failed with the last message", o)
	}
	if res.Ramps[0].Kind != EndStopped || res.Ramps[0].Stop.ErrorRate != 1 {
		t.Errorf("ramp %+v; want stopped by its errors", res.Ramps[0])
	}
}

func TestRunInterrupted(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	start := time.Now()
	res, err := runBench(ctx, Config{
		Endpoints: []client.Endpoint{{Name: "long"}},
		Ramp:      Ramp{Levels: []int{1, 2}, Hold: time.Minute},
		// Requests that would take 100 s: only a cut ends them.
		NewStreamer: fakes(map[string]*fakeStreamer{"long": {tokens: 10000, gap: 10 * time.Millisecond}}),
		PoolOptions: fastTicks,
	}, func(p Progress) {
		if !p.LevelChange {
			once.Do(cancel) // Ctrl-C once the first live tick arrived
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Report.Interrupted || res.Ramps[0].Kind != EndInterrupt {
		t.Errorf("Interrupted = %v, ramp %+v after ctx was canceled", res.Report.Interrupted, res.Ramps[0])
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Run took %s after Ctrl-C; want it to cut in-flight requests", d)
	}
	if o := res.Outcomes[0]; o.Requests != 0 || o.Unusable() {
		t.Errorf("canceled requests counted as the endpoint's: %+v", o)
	}
}

// TestRunMaxDuration: the maximum duration ends a ramp that would take a minute, and the
// report says the run was cut short.
func TestRunMaxDuration(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	start := time.Now()
	res, err := runBench(context.Background(), Config{
		Endpoints:   []client.Endpoint{{Name: "a"}},
		Ramp:        Ramp{Levels: []int{1, 2}, Hold: time.Minute},
		MaxDuration: 300 * time.Millisecond,
		NewStreamer: fakes(map[string]*fakeStreamer{"a": {tokens: 5, gap: 2 * time.Millisecond}}),
		PoolOptions: fastTicks,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Run took %s with a 300ms maximum duration", d)
	}
	if !res.Over || !res.Report.Interrupted || res.Ramps[0].Kind != EndDuration {
		t.Errorf("over %v interrupted %v ramp %+v; want the run cut by its maximum duration", res.Over, res.Report.Interrupted, res.Ramps[0])
	}
	if len(res.Notices) == 0 || res.Notices[len(res.Notices)-1].Kind != MaxDuration {
		t.Errorf("notices %v; want the maximum duration announced", res.Notices)
	}
}

func TestFleetCloseWithoutReader(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f, err := NewFleet(context.Background(), []client.Endpoint{{Name: "a"}, {Name: "b"}}, FleetOptions{
		Conns: 2,
		NewStreamer: fakes(map[string]*fakeStreamer{
			"a": {tokens: 5, gap: time.Millisecond}, "b": {tokens: 5, gap: time.Millisecond},
		}),
		PoolOptions: []probe.Option{probe.WithTickEvery(10 * time.Millisecond)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Pools {
		p.SetConcurrency(2)
	}
	<-f.Events() // running; nobody reads from now on
	time.Sleep(50 * time.Millisecond)
	f.Close() // must not block on the pools' unread events, and ends every goroutine
	f.Close() // idempotent
}

// sse answers every request with two content events, a finish and [DONE].
func sse(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range []string{`{"choices":[{"index":0,"delta":{"content":"a"}}]}`, `{"choices":[{"index":0,"delta":{"content":"b"}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]"} {
		fmt.Fprintf(w, "data: %s\n\n", ev)
		w.(http.Flusher).Flush()
	}
}

// TestRunClosesConnections: once Run returns and the engine is closed, the clients it
// built hold no idle keep-alive connections, also while the server stays up.
func TestRunClosesConnections(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(sse))
	defer srv.Close()
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // runs before srv.Close
	res, err := runBench(context.Background(), Config{
		Endpoints:   []client.Endpoint{{BaseURL: srv.URL + "/v1", Model: "m", Timeout: 5 * time.Second}},
		Ramp:        Ramp{Levels: []int{2}, Hold: 100 * time.Millisecond},
		PoolOptions: fastTicks,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Succeeded == 0 {
		t.Fatalf("outcome %+v; want successful requests", o)
	}
}

// TestRunDrainWaitsForStreamsThatDeliver: the last level's requests finish during the
// drain. They must not be cut while they still deliver tokens, or a last level of long
// answers has no request at all. Drain bounds the quiet.
func TestRunDrainWaitsForStreamsThatDeliver(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	res, err := runBench(context.Background(), Config{
		Endpoints: []client.Endpoint{{Name: "long"}},
		Ramp:      Ramp{Levels: []int{2}, Hold: 100 * time.Millisecond, MaxHold: 100 * time.Millisecond},
		Drain:     300 * time.Millisecond,
		// ~1.2 s a request: it outlasts the hold and the Drain, a token every 10 ms.
		NewStreamer: fakes(map[string]*fakeStreamer{"long": {tokens: 120, gap: 10 * time.Millisecond}}),
		PoolOptions: fastTicks,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Succeeded < 2 || res.Report.Interrupted {
		t.Fatalf("outcome %+v, interrupted %v; want the 2 requests in flight at the end to finish", o, res.Report.Interrupted)
	}
	if n := res.Notices; len(n) < 1 || n[0].Kind != LevelShort {
		t.Errorf("notices %v; want the level marked short (it reached its maximum hold)", n)
	}
}

// TestRunDrainCutsQuietStreams: a request that delivers nothing more is cut once the
// drain has been quiet for Drain.
func TestRunDrainCutsQuietStreams(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	start := time.Now()
	res, err := runBench(context.Background(), Config{
		Endpoints: []client.Endpoint{{Name: "stuck"}},
		Ramp:      Ramp{Levels: []int{1}, Hold: 100 * time.Millisecond, MaxHold: 100 * time.Millisecond},
		Drain:     300 * time.Millisecond,
		// One token, then nothing for 100 s.
		NewStreamer: fakes(map[string]*fakeStreamer{"stuck": {tokens: 2, gap: 100 * time.Second}}),
		PoolOptions: fastTicks,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Run took %s; want the quiet request cut after Drain", d)
	}
	if o := res.Outcomes[0]; o.Requests != 0 {
		t.Errorf("outcome %+v; want the cut request out of the counts", o)
	}
}

// TestRunMaxDurationCutsTheDrain: the maximum duration also bounds the drain of requests
// still streaming after the ramp.
func TestRunMaxDurationCutsTheDrain(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	start := time.Now()
	res, err := runBench(context.Background(), Config{
		Endpoints:   []client.Endpoint{{Name: "long"}},
		Ramp:        Ramp{Levels: []int{1}, Hold: 100 * time.Millisecond, MaxHold: 100 * time.Millisecond},
		MaxDuration: 600 * time.Millisecond,
		// a token every 10 ms for 100 s: the drain never goes quiet
		NewStreamer: fakes(map[string]*fakeStreamer{"long": {tokens: 10000, gap: 10 * time.Millisecond}}),
		PoolOptions: fastTicks,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second || !res.Over || !res.Report.Interrupted {
		t.Errorf("took %s, over %v, interrupted %v; want the drain cut at the maximum duration", d, res.Over, res.Report.Interrupted)
	}
}

// TestBrief: the screen's narrow form names the first thing a level waits for and counts
// the others, with the estimate.
func TestBrief(t *testing.T) {
	for _, tc := range []struct {
		p    LevelProgress
		want string
	}{
		{LevelProgress{Steady: 1, Need: 8, Waiting: []string{model.TermTTFT}, Curve: []string{"per-user p50", "aggregate tok/s"}, More: 7, ETA: 20 * time.Second, MaxLeft: time.Minute},
			"waiting for 8 requests and 3 figures, ~7 more, ~20 s"},
		{LevelProgress{Steady: 40, Need: 8, Waiting: []string{model.TermTTFT}, More: 64, ETA: 25 * time.Second, MaxLeft: time.Minute},
			"waiting for TTFT p95 at 95%, ~64 more, ~25 s"},
		{LevelProgress{Steady: 40, Need: 8, Waiting: []string{model.TermUserTPS}, More: -1, ETA: -1, MaxLeft: 80 * time.Second},
			"waiting for per-user p50 at 95%, at most 80 s"},
		{LevelProgress{Warming: true}, "warming up"},
		{LevelProgress{Steady: 9, Need: 8, Left: 2 * time.Second}, "2 s of hold left"},
	} {
		if got := tc.p.Brief(); got != tc.want {
			t.Errorf("Brief = %q, want %q", got, tc.want)
		}
	}
}

// breaksAfter is a fake that succeeds until its moment and fails with HTTP 500 after.
type breaksAfter struct {
	ok, bad fakeStreamer
	at      time.Time
}

func (b *breaksAfter) Stream(ctx context.Context, p *probe.Progress) model.Sample {
	if time.Now().Before(b.at) {
		return b.ok.Stream(ctx, p)
	}
	return b.bad.Stream(ctx, p)
}

// TestRunNamesTheFailuresOfItsLastMoments: an endpoint that breaks after the
// diagnosis' first look, and a stop rule that ends the run before its next look (once
// a second), still has its failures named: the run takes a last look once every
// request ended, says it as a note and writes it in the report, never leaving them
// unexplained.
func TestRunNamesTheFailuresOfItsLastMoments(t *testing.T) {
	var notes []string
	f := &breaksAfter{ok: fakeStreamer{tokens: 1, gap: time.Millisecond},
		bad: fakeStreamer{tokens: 1, gap: time.Millisecond, err: model.HTTPError(500)}, at: time.Now().Add(250 * time.Millisecond)}
	res, err := runBench(context.Background(), Config{
		Endpoints:   []client.Endpoint{{Name: "breaks"}},
		Ramp:        Ramp{Levels: []int{2}, Hold: 10 * time.Second},
		NewStreamer: func(client.Endpoint, int) (probe.Streamer, error) { return f, nil },
		PoolOptions: fastTicks,
	}, func(p Progress) {
		if p.Note != "" {
			notes = append(notes, p.Note)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ramps[0].Kind != EndStopped {
		t.Fatalf("ramp %+v; want stopped by its errors", res.Ramps[0])
	}
	d := res.Report.Endpoints[0].Diagnosis
	if len(d) == 0 || d[0].Rule != model.DiagServerErrors || !strings.HasPrefix(d[0].Text, "server errors: HTTP 500 on ") {
		t.Fatalf("the report's diagnosis: %+v", d)
	}
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "diagnosis: server errors: HTTP 500 on ") }) {
		t.Errorf("the notes said %q", notes)
	}
}
