package promexport

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// fake streams tokens events gap apart; every failEvery-th request fails with HTTP 429
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
		s.Err, s.ErrMsg, s.Status, s.Finish = model.HTTPError(429), "HTTP 429: slow down", 429, ""
	}
	return s
}

// scrape gets url/metrics in the text format and parses it.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(pmodel.LegacyValidation)
	mf, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return mf
}

// find is the metric of family name with the given label values (nil when none).
func find(mf map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := mf[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

func TestExporterServesARunsMetrics(t *testing.T) {
	x := New()
	srv, err := Serve("127.0.0.1:0", x.Registry())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	base := "http://" + srv.Addr()
	f := &fake{tokens: 20, gap: 2 * time.Millisecond, failEvery: 5}
	e, err := engine.Start(context.Background(), engine.Config{
		Endpoints:   []client.Endpoint{{Name: "gpu-a", BaseURL: "http://127.0.0.1:1/v1", Model: "llama"}},
		Ramp:        engine.Ramp{Levels: []int{2, 4}, Hold: 200 * time.Millisecond},
		FullRamp:    true,
		MinRequests: 25, // a fixed floor: at least 40 successes over the two levels
		Drain:       time.Second,
		NewStreamer: func(client.Endpoint, int) (probe.Streamer, error) { return f, nil },
		PoolOptions: []probe.Option{probe.WithTickEvery(50 * time.Millisecond)},
		Observers:   []engine.Observer{x},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	type result struct {
		res *engine.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := e.Run(context.Background(), nil)
		done <- result{res, err}
	}()
	lbl := map[string]string{"endpoint": "gpu-a", "model": "llama"}
	// During the run: the histograms fill as requests end.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := find(scrape(t, base), TTFT, lbl); m != nil && m.GetHistogram().GetSampleCount() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no TTFT observed during the run")
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkFinal(t, scrape(t, base), r.res.Outcomes[0], lbl)
}

// checkFinal compares the scraped metrics with the run's outcome.
func checkFinal(t *testing.T, mf map[string]*dto.MetricFamily, o engine.Outcome, lbl map[string]string) {
	t.Helper()
	for name := range mf {
		if !strings.HasPrefix(name, "tpsmon_") {
			t.Errorf("metric %s is not tpsmon's (own registry only)", name)
		}
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range lbl {
			m[a] = b
		}
		return m
	}
	ok := find(mf, Requests, with("outcome", OutcomeSuccess)).GetCounter().GetValue()
	failed := find(mf, Requests, with("outcome", OutcomeError)).GetCounter().GetValue()
	if int(ok) != o.Succeeded || int(failed) != o.Requests-o.Succeeded || o.Succeeded < 40 {
		t.Errorf("requests: %v ok, %v failed; the run: %+v", ok, failed, o)
	}
	if got := find(mf, Errors, with("kind", "http_429")).GetCounter().GetValue(); int(got) != o.Errors[model.HTTPError(429)] || got == 0 {
		t.Errorf("http_429 errors: %v, the run had %d", got, o.Errors[model.HTTPError(429)])
	}
	if got := find(mf, OutputTokens, lbl).GetCounter().GetValue(); int(got) != 20*o.Requests {
		t.Errorf("output tokens %v, want %d (20 per ended request)", got, 20*o.Requests)
	}
	for _, name := range []string{TTFT, TPOT, UserTPS} {
		h := find(mf, name, lbl).GetHistogram()
		if int(h.GetSampleCount()) != o.Succeeded || len(h.GetBucket()) < 10 || h.GetSampleSum() <= 0 {
			t.Errorf("%s: %d samples, %d classic buckets, sum %v; want %d samples", name, h.GetSampleCount(), len(h.GetBucket()), h.GetSampleSum(), o.Succeeded)
		}
	}
	// 20 tokens 2 ms apart: about 500 tok/s per user, TPOT about 2 ms.
	if h := find(mf, UserTPS, lbl).GetHistogram(); h.GetSampleSum()/float64(h.GetSampleCount()) < 100 {
		t.Errorf("mean user tok/s %v: want about 500", h.GetSampleSum()/float64(h.GetSampleCount()))
	}
	for _, g := range []string{Active, TargetUsers} {
		if find(mf, g, lbl) == nil {
			t.Errorf("gauge %s missing", g)
		}
	}
}

func TestNativeHistogramsOverProtobuf(t *testing.T) {
	x := New()
	e, err := engine.New(engine.Config{}, []engine.Part{{Endpoint: client.Endpoint{Name: "a", Model: "m"}, Control: nopCtl{}}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i := range 50 {
		s := &model.Sample{Send: t0, First: t0.Add(time.Duration(100+i) * time.Millisecond), Last: t0.Add(2 * time.Second), End: t0.Add(2 * time.Second), Tokens: 60}
		x.Observe(e, &probe.Event{Sample: s})
	}
	x.Observe(e, &probe.Event{Tick: &model.Tick{Target: 8, Active: 7}})
	srv, err := Serve("127.0.0.1:0", x.Registry())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req, _ := http.NewRequest("GET", "http://"+srv.Addr()+"/metrics", nil)
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeProtoDelim)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
	got := map[string]*dto.MetricFamily{}
	for {
		var mf dto.MetricFamily
		if err := dec.Decode(&mf); err != nil {
			break
		}
		got[mf.GetName()] = &mf
	}
	h := find(got, TTFT, map[string]string{"endpoint": "a"}).GetHistogram()
	if h.GetSampleCount() != 50 || h.GetSchema() == 0 || len(h.GetPositiveSpan()) == 0 || len(h.GetBucket()) == 0 {
		t.Errorf("TTFT: count %d, schema %d, %d native spans, %d classic buckets: want both kinds",
			h.GetSampleCount(), h.GetSchema(), len(h.GetPositiveSpan()), len(h.GetBucket()))
	}
	if g := find(got, TargetUsers, nil).GetGauge().GetValue(); g != 8 {
		t.Errorf("target users %v, want 8", g)
	}
}

type nopCtl struct{}

func (nopCtl) SetConcurrency(int) {}
func (nopCtl) Concurrency() int   { return 0 }
func (nopCtl) Active() int        { return 0 }
func (nopCtl) Pause()             {}
func (nopCtl) Resume()            {}
func (nopCtl) Paused() bool       { return false }
func (nopCtl) Stop()              {}

func TestParseAddr(t *testing.T) {
	tests := []struct {
		in, want string
		loop     bool
		err      string
	}{
		{"127.0.0.1:9464", "127.0.0.1:9464", true, ""},
		{":9464", "127.0.0.1:9464", true, ""},
		{"9464", "127.0.0.1:9464", true, ""},
		{"localhost:9464", "localhost:9464", true, ""},
		{"[::1]:9464", "[::1]:9464", true, ""},
		{"0.0.0.0:9464", "0.0.0.0:9464", false, ""},
		{"10.1.2.3:80", "10.1.2.3:80", false, ""},
		{"metrics.example:9464", "metrics.example:9464", false, ""},
		{"", "", false, "empty"},
		{"127.0.0.1", "", false, "HOST:PORT"},
		{"127.0.0.1:http", "", false, "port"},
		{"127.0.0.1:70000", "", false, "port"},
	}
	for _, tt := range tests {
		a, err := ParseAddr(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "--") {
				t.Errorf("ParseAddr(%q) = %v, %v; want an error saying %q", tt.in, a, err, tt.err)
			}
			continue
		}
		if err != nil || a.HostPort != tt.want || a.Loopback != tt.loop {
			t.Errorf("ParseAddr(%q) = %+v, %v; want %s loopback %v", tt.in, a, err, tt.want, tt.loop)
		}
	}
}

// BenchmarkObserveSample is the exporter's cost per finished request.
func BenchmarkObserveSample(b *testing.B) {
	x := New()
	e, err := engine.New(engine.Config{}, []engine.Part{{Endpoint: client.Endpoint{Name: "a", Model: "m"}, Control: nopCtl{}}})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	ev := &probe.Event{Sample: &model.Sample{Send: t0, First: t0.Add(150 * time.Millisecond), Last: t0.Add(5 * time.Second), End: t0.Add(5 * time.Second), Tokens: 256}}
	b.ReportAllocs()
	for b.Loop() {
		x.Observe(e, ev)
	}
}
