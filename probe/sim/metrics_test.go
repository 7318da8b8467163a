package sim

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	tpsmodel "github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/servermetrics"
)

// scraper reads the simulator's /metrics the way tpsmon reads a real server's.
func scraper(t *testing.T, metricsURL, modelName string) *servermetrics.Scraper {
	t.Helper()
	s, err := servermetrics.New(servermetrics.Config{URL: metricsURL, Model: modelName})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestMetricsUnderLoad(t *testing.T) {
	// 2 slots, 3 long answers: 2 run, 1 waits; the KV budget is 1000 tokens.
	inst, client := startSim(t, Config{Slots: 2, StepMs: 5, KVTokens: 1000})
	u, err := servermetrics.DefaultURL(inst.URL)
	if err != nil {
		t.Fatal(err)
	}
	sc := scraper(t, u, "m")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			send(ctx, t, client, inst, "/chat/completions", chatBody(`"max_tokens":2000,"ignore_eos":true`))
		})
	}
	var smp tpsmodel.ServerSample
	deadline := time.Now().Add(5 * time.Second)
	for smp.Running != 2 || smp.Waiting != 1 || smp.Generated == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no scrape with 2 running, 1 waiting and tokens within 5 s; last %+v", smp)
		}
		time.Sleep(10 * time.Millisecond)
		if smp, err = sc.Scrape(ctx); err != nil {
			t.Fatal(err)
		}
	}
	all := tpsmodel.SigRunning | tpsmodel.SigWaiting | tpsmodel.SigKV | tpsmodel.SigGenerated | tpsmodel.SigPreemptions
	if smp.Kind != servermetrics.KindVLLM || smp.Has != all {
		t.Errorf("scrape %+v: want vLLM with every signal", smp)
	}
	// Each running sequence holds its prompt (9 tokens) and the tokens generated.
	if want := (2*9 + smp.Generated) / 1000; smp.KV < 0.9*want || smp.KV > 1.1*want+0.01 {
		t.Errorf("KV use %.3f, want about %.3f (prompts + %v generated tokens of 1000)", smp.KV, want, smp.Generated)
	}
	cancel()
	wg.Wait()
	// The clients left: the slots empty, the counters stay.
	deadline = time.Now().Add(5 * time.Second)
	for {
		after, err := sc.Scrape(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if after.Running == 0 && after.Waiting == 0 {
			if after.Generated < smp.Generated || after.KV != 0 {
				t.Errorf("after the load: %+v; want the counter kept and no KV held", after)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slots still held 5 s after the clients left: %+v", after)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestMetricsTextFormat(t *testing.T) {
	s := New(Config{Model: "org/we\"ird\\name", KVTokens: 0})
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the text format 0.0.4", ct)
	}
	text := string(s.metricsText())
	for _, want := range []string{
		"# TYPE vllm:num_requests_running gauge\n",
		"# TYPE vllm:generation_tokens_total counter\n",
		`vllm:num_preemptions_total{engine="0",model_name="org/we\"ird\\name"} 0` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics text lacks %q:\n%s", want, text)
		}
	}
	// Without a budget there is no KV gauge; the escaped label parses back.
	smp, err := scraper(t, srv.URL+"/metrics", "org/we\"ird\\name").Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if smp.Has.Has(tpsmodel.SigKV) || !smp.Has.Has(tpsmodel.SigRunning|tpsmodel.SigPreemptions) {
		t.Errorf("signals %b: want running and preemptions, no KV without a budget", smp.Has)
	}
	if r, _ := http.Post(srv.URL+"/metrics", "text/plain", nil); r == nil || r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics: %v, want 405", r)
	} else {
		r.Body.Close()
	}
}

// TestMetricsDiagnoseQueue runs the whole server view against the simulator: 8 users on
// 2 slots make TTFT rise while requests queue, and the scrapes, turned into a series,
// let the diagnosis name the queue.
func TestMetricsDiagnoseQueue(t *testing.T) {
	inst, client := startSim(t, Config{Slots: 2, StepMs: 8})
	u, _ := servermetrics.DefaultURL(inst.URL)
	sc := scraper(t, u, "m")
	body := chatBody(`"max_tokens":40,"ignore_eos":true`)
	ttft := func(r *result) float64 {
		ev := r.tokenEvents(t)
		if len(ev) == 0 {
			return 0
		}
		return ev[0].at.Sub(r.sent).Seconds()
	}
	base := 1.0 // the lowest of three TTFTs alone: a loaded machine may slow one
	for range 3 {
		base = min(base, ttft(send(context.Background(), t, client, inst, "/chat/completions", body)))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var mu sync.Mutex
	var ttfts []float64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for ctx.Err() == nil {
				r := send(ctx, t, client, inst, "/chat/completions", body)
				if r.done() {
					mu.Lock()
					ttfts = append(ttfts, ttft(r))
					mu.Unlock()
				}
			}
		})
	}
	series := tpsmodel.NewServerSeries()
	for ctx.Err() == nil {
		if smp, err := sc.Scrape(ctx); err == nil {
			series.Add(smp, 8)
		}
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	f, ok := tpsmodel.DiagnoseTTFT(tpsmodel.DiagInput{TTFT: ttfts, BaseTTFT: base, Server: series.Points()})
	// No KV budget here, so no KV figure: "(6 waiting)".
	if !ok || f.Rule != tpsmodel.DiagQueue || !strings.HasSuffix(f.Text, " waiting)") {
		t.Errorf("diagnosis %+v (%v) from base TTFT %.3fs and %v; want the queue named", f, ok, base, ttfts)
	}
	t.Log(f.Text)
	if l, _ := series.Level(8); l.WaitingMean == nil || *l.WaitingMean < 4 || l.GenTPS == nil || *l.GenTPS <= 0 {
		t.Errorf("level summary %+v: want about 6 waiting and a token rate", l)
	}
}
