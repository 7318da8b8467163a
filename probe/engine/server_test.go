package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/output/report"
	"github.com/tpsmon/tpsmon/probe/servermetrics"
)

// scrape is a good scrape of a vLLM-like server at the fake clock's d.
func scrape(d time.Duration, running, waiting, kv, generated float64) ServerUpdate {
	return ServerUpdate{Update: servermetrics.Update{Sample: model.ServerSample{
		Time: at(d), Kind: servermetrics.KindVLLM, Running: running, Waiting: waiting, KV: kv,
		Generated: generated, Has: model.SigRunning | model.SigWaiting | model.SigKV | model.SigGenerated,
	}}}
}

// TestServerLevelAttribution: a scrape counts in the level the pool holds once it is
// steady; in warm-up and while paused it counts in none.
func TestServerLevelAttribution(t *testing.T) {
	r := newRig(t, Config{}, 1)
	r.seg++
	r.e.Handle(probe.Event{Segment: &model.Segment{ID: r.seg, Open: true, Concurrency: 8, Start: at(0), End: at(0)}})
	r.e.HandleServer(scrape(1*time.Second, 8, 50, 0.5, 0)) // warm-up: no level
	r.steady(0, 8, at(2*time.Second))
	r.e.HandleServer(scrape(3*time.Second, 8, 2, 0.4, 100))
	r.e.HandleServer(scrape(4*time.Second, 8, 4, 0.6, 400))
	r.ctls[0].paused = true
	r.e.HandleServer(scrape(5*time.Second, 0, 90, 0.9, 500)) // paused: no level
	r.ctls[0].paused = false
	// a late state of an older segment does not move the level back
	r.e.Handle(probe.Event{Segment: &model.Segment{ID: r.seg - 1, Open: false, Concurrency: 8, Start: at(0), End: at(2 * time.Second)}})
	r.e.HandleServer(scrape(6*time.Second, 8, 6, 0.5, 800))
	r.done(0, 8, 3, 0, 50*time.Millisecond, at(6*time.Second))

	sv, ok := r.e.ServerLevel(0, 8)
	if !ok || sv.Scrapes != 3 {
		t.Fatalf("level 8: %+v %v, want the 3 steady, unpaused scrapes", sv, ok)
	}
	if *sv.WaitingMean != 4 || *sv.WaitingMax != 6 || *sv.KVMeanPct != 50 {
		t.Errorf("level 8 waiting mean %v max %v KV %v%%, want 4, 6, 50%%", *sv.WaitingMean, *sv.WaitingMax, *sv.KVMeanPct)
	}
	if _, ok := r.e.ServerLevel(0, 0); ok {
		t.Error("warm-up and pause scrapes counted in a level 0")
	}
	rep := r.e.Report(false)
	if l := rep.Endpoints[0].Levels; len(l) != 1 || l[0].Server == nil || l[0].Server.Scrapes != 3 {
		t.Fatalf("report levels %+v: want level 8 with its server view", l)
	}
	md := report.Summary(rep)
	if !strings.Contains(md, "| users | waiting mean | waiting max |") || !strings.Contains(md, "| 8 | 4.0 | 6 | 8.0 | 50.0 |") {
		t.Errorf("Markdown lacks the server's view:\n%s", md)
	}
	r.e.Reset(at(7 * time.Second))
	if _, ok := r.e.ServerLevel(0, 8); ok || r.e.Server(0).HasLast {
		t.Error("Reset kept the server's levels or its last point")
	}
}

// TestServerNotices: metrics found, not available, down and back are each said once.
func TestServerNotices(t *testing.T) {
	r := newRig(t, Config{}, 1)
	url := "http://127.0.0.1:9/metrics"
	fail := func(kind servermetrics.ErrKind, reason string) ServerUpdate {
		e := &servermetrics.Error{URL: url, Kind: kind, Reason: reason}
		return ServerUpdate{Update: servermetrics.Update{Err: e, Notice: e.Error()}}
	}
	ok := func(d time.Duration, notice string) ServerUpdate {
		u := scrape(d, 1, 0, 0.1, float64(d/time.Second)*100)
		u.Notice = notice
		return u
	}
	steps := []struct {
		u     ServerUpdate
		state ServerState
		kind  NoticeKind
		text  string
	}{
		{fail(servermetrics.ErrStatus, "404"), ServerUnavailable, ServerTrouble, "server metrics: not available at " + url + ": 404"},
		{ok(time.Second, "server metrics: back at "+url), ServerUp, ServerNote, "server metrics: back at " + url},
		{ok(2*time.Second, ""), ServerUp, 0, ""},
		{fail(servermetrics.ErrUnreachable, "connection refused"), ServerDown, ServerTrouble, "server down: " + url + ": connection refused"},
		{ok(9*time.Second, "server metrics: back at "+url), ServerUp, ServerNote, "server back: vLLM at " + url},
	}
	for i, s := range steps {
		n, said := r.e.HandleServer(s.u)
		if got := r.e.Server(0).State; got != s.state {
			t.Errorf("step %d: state %v, want %v", i, got, s.state)
		}
		if said != (s.text != "") || n.Text != s.text || (said && n.Kind != s.kind) {
			t.Errorf("step %d: notice %v %q (kind %v), want %q (kind %v)", i, said, n.Text, n.Kind, s.text, s.kind)
		}
		if said && n.Bad() != (s.kind == ServerTrouble) {
			t.Errorf("step %d: %q bad %v", i, n.Text, n.Bad())
		}
	}
	if st := r.e.Server(0); st.Kind != "vLLM" || !st.HasLast || st.Last.Running != 1 {
		t.Errorf("status %+v", st)
	}
}

// TestDiagnosisFromStep: 64 users on a server that queues: TTFT climbs from 40 ms to
// 3 s while 14 requests wait; Step says so once a second, and once a minute as a notice.
func TestDiagnosisFromStep(t *testing.T) {
	r := newRig(t, Config{}, 1)
	r.steady(0, 64, at(0))
	var gen float64
	for s := range 20 {
		ttft := 40 * time.Millisecond
		waiting := 0.0
		if s >= 5 {
			ttft, waiting = 3*time.Second, 14
		}
		start := at(time.Duration(s) * time.Second)
		r.e.Handle(probe.Event{Tick: &model.Tick{Start: start, End: start.Add(time.Second), Target: 64, Active: 64,
			Chunks: 500, FirstTokens: []time.Duration{ttft, ttft, ttft}}})
		gen += 500
		r.e.HandleServer(scrape(time.Duration(s+1)*time.Second, 32, waiting, 0.97, gen))
	}
	ns := r.e.Step(at(20 * time.Second))
	var rules []string
	for _, f := range r.e.Diagnosis(0) {
		rules = append(rules, f.Rule)
	}
	if !strings.Contains(strings.Join(rules, ","), model.DiagQueue) {
		t.Fatalf("findings %v, want the queue", r.e.Diagnosis(0))
	}
	said := 0
	for _, n := range ns {
		if n.Kind == Diagnosed && n.Text == "TTFT rises to 3.00 s (40 ms at low load) because requests queue on the server (14 waiting, KV 97%)" {
			said++
		}
	}
	if said != 1 {
		t.Errorf("notices %v: want the queue said once", ns)
	}
	for _, n := range r.e.Step(at(21 * time.Second)) {
		if n.Kind == Diagnosed && strings.Contains(n.Text, "queue") {
			t.Errorf("the queue said again a second later: %q", n.Text)
		}
	}
	// the server goes down: its old points say nothing of now
	r.e.HandleServer(ServerUpdate{Update: servermetrics.Update{Err: &servermetrics.Error{Kind: servermetrics.ErrUnreachable, Reason: "connection refused"}}})
	r.step(23 * time.Second)
	for _, f := range r.e.Diagnosis(0) {
		if f.Rule == model.DiagQueue {
			t.Errorf("server down, yet %q", f.Text)
		}
	}
}

// metricsServer serves vLLM-like /metrics whose generated counter grows by 100 a scrape;
// down makes it answer 503. Close it before goleak looks.
func metricsServer(t *testing.T, down *atomic.Bool) *httptest.Server {
	var gen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" || down != nil && down.Load() {
			http.Error(w, "no", http.StatusServiceUnavailable)
			return
		}
		n := gen.Add(100)
		fmt.Fprintf(w, "vllm:num_requests_running{model_name=\"m\"} 2\nvllm:num_requests_waiting{model_name=\"m\"} 3\n"+
			"vllm:kv_cache_usage_perc{model_name=\"m\"} 0.5\nvllm:generation_tokens_total{model_name=\"m\"} %d\n", n)
	}))
	return srv
}

// TestStartScrapesAndBenchReports: Start scrapes each endpoint's origin + /metrics; Run
// (bench) takes the reports in its loop, says the first once, and the report holds the
// server's view per level.
func TestStartScrapesAndBenchReports(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := metricsServer(t, nil)
	defer srv.Close()
	var log progressLog
	res, err := runBench(context.Background(), Config{
		Endpoints:   []client.Endpoint{{Name: "ep", BaseURL: srv.URL + "/v1", MaxTokens: 5}},
		Ramp:        Ramp{Levels: []int{2}, Hold: 300 * time.Millisecond},
		NewStreamer: fakes(map[string]*fakeStreamer{"ep": {tokens: 5, gap: 2 * time.Millisecond}}),
		PoolOptions: fastTicks,
		ServerEvery: 20 * time.Millisecond,
	}, log.add)
	if err != nil {
		t.Fatal(err)
	}
	lv := res.Report.Endpoints[0].Levels
	if len(lv) != 1 || lv[0].Server == nil || lv[0].Server.Scrapes == 0 || *lv[0].Server.WaitingMean != 3 || *lv[0].Server.KVMeanPct != 50 {
		t.Fatalf("levels %+v: want level 2 with its server view (3 waiting, KV 50%%)", lv)
	}
	var notes []string
	for _, p := range log.calls {
		if p.Note != "" {
			notes = append(notes, p.Note)
		}
	}
	want := "ep: server metrics: vLLM at " + srv.URL + "/metrics"
	if len(notes) == 0 || notes[0] != want || strings.Count(strings.Join(notes, "\n"), "server metrics") != 1 {
		t.Errorf("notes %q, want %q said once", notes, want)
	}
}

// TestStartServerMetricsSources: off scrapes nothing; a bad URL is refused by its field;
// an endpoint without a base URL (a fake) is not scraped.
func TestStartServerMetricsSources(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := metricsServer(t, nil)
	defer srv.Close()
	base := Config{
		Endpoints:   []client.Endpoint{{Name: "ep", BaseURL: srv.URL + "/v1", MaxTokens: 5}},
		NewStreamer: fakes(map[string]*fakeStreamer{"ep": {tokens: 5, gap: time.Millisecond}}),
	}
	cfg := base
	cfg.ServerMetrics = []string{"OFF"}
	e, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if e.ServerUpdates() != nil || e.Server(0).State != ServerOff {
		t.Error("off: scrapers started")
	}
	e.Close()

	cfg.ServerMetrics = []string{"ftp://user:secret@h/metrics"}
	_, err = Start(context.Background(), cfg)
	var fe *client.FieldError
	if !errors.As(err, &fe) || fe.Field != FieldServerMetrics || strings.Contains(err.Error(), "secret") {
		t.Errorf("bad URL: %v, want a FieldError for %s without the password", err, FieldServerMetrics)
	}

	cfg = base
	cfg.Endpoints = []client.Endpoint{{Name: "ep", MaxTokens: 5}}
	if e, err = Start(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if e.ServerUpdates() != nil {
		t.Error("an endpoint without a base URL is scraped")
	}
	e.Close()
}

// TestScrapeFailureNeverTouchesTheLoad: a metrics endpoint that fails says so once and
// the requests go on; Close ends the scrapers.
func TestScrapeFailureNeverTouchesTheLoad(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var down atomic.Bool
	down.Store(true)
	srv := metricsServer(t, &down)
	defer srv.Close()
	e, err := Start(context.Background(), Config{
		Endpoints:   []client.Endpoint{{Name: "ep", BaseURL: srv.URL + "/v1", MaxTokens: 5}},
		NewStreamer: fakes(map[string]*fakeStreamer{"ep": {tokens: 3, gap: time.Millisecond}}),
		PoolOptions: fastTicks,
		ServerEvery: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.SetUsers(0, 2)
	deadline := time.After(5 * time.Second)
	var said []string
	for ok := 0; ok < 20; {
		select {
		case ev := <-e.Events():
			e.Handle(ev)
			if ev.Sample != nil && ev.Sample.OK() {
				ok++
			}
		case u := <-e.ServerUpdates():
			if n, say := e.HandleServer(u); say {
				said = append(said, n.Text)
			}
		case <-deadline:
			t.Fatalf("the load stalled: %v", said)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], ": 503") || e.Server(0).State != ServerUnavailable {
		t.Errorf("said %q, state %v: want the 503 said once", said, e.Server(0).State)
	}
	e.Close()
	if _, open := <-e.ServerUpdates(); open {
		t.Error("the scrapers' channel is open after Close")
	}
}

// TestRunKeepsTheQueueAtItsLongest: a queue of 14 that shrinks to 2 as the load comes
// down is said now as it is ("2 waiting"), and kept for the run as it was at its
// longest ("14 waiting"), with when it first and last held.
func TestRunKeepsTheQueueAtItsLongest(t *testing.T) {
	r := newRig(t, Config{}, 1)
	r.steady(0, 64, at(0))
	var gen float64
	feed := func(from, to int, waiting float64) {
		for s := from; s < to; s++ {
			ttft := 40 * time.Millisecond
			if s >= 5 {
				ttft = 3 * time.Second
			}
			start := at(time.Duration(s) * time.Second)
			r.e.Handle(probe.Event{Tick: &model.Tick{Start: start, End: start.Add(time.Second), Target: 64, Active: 64,
				Chunks: 500, FirstTokens: []time.Duration{ttft, ttft, ttft}}})
			gen += 500
			r.e.HandleServer(scrape(time.Duration(s+1)*time.Second, 32, waiting, 0.97, gen))
			r.e.Step(start.Add(time.Second))
		}
	}
	feed(0, 5, 0)
	feed(5, 20, 14)
	feed(20, 40, 2)
	var now, run string
	last := 0.0
	for _, f := range r.e.Diagnosis(0) {
		if f.Rule == model.DiagQueue {
			now = f.Text
		}
	}
	for _, f := range r.e.Findings(0) {
		if f.Rule == model.DiagQueue {
			run, last = f.Text, f.LastS
		}
	}
	if !strings.Contains(now, "(2 waiting, KV 97%)") {
		t.Errorf("now: %q, want the queue as it is (2 waiting)", now)
	}
	if !strings.Contains(run, "(14 waiting, KV 97%)") || last < 35 {
		t.Errorf("run: %q, last held at %.0f s; want the queue at its longest (14 waiting), held to the end", run, last)
	}
}
