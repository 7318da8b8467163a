package timeseries

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// TestLinesCarryTheServersMetrics: when the engine scrapes the endpoint's /metrics, the
// lines carry the server object (the README's schema promises it) from the engine's own
// scrapes, with no SetServer call: which server it is and its preemptions as the live
// screen says them.
func TestLinesCarryTheServersMetrics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 2\n"+
			"# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 3\n"+
			"# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{model_name=\"m\"} 0.5\n"+
			"# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{model_name=\"m\"} 100\n"+
			"# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total{model_name=\"m\"} 0\n")
	}))
	defer srv.Close()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	e, err := engine.Start(context.Background(), engine.Config{
		Endpoints: []client.Endpoint{{Name: "a", BaseURL: srv.URL + "/v1", Model: "m"}},
		Ramp:      engine.Ramp{Levels: []int{2}, Hold: 400 * time.Millisecond},
		FullRamp:  true,
		Drain:     time.Second,
		NewStreamer: func(client.Endpoint, int) (probe.Streamer, error) {
			return &fake{tokens: 20, gap: 3 * time.Millisecond}, nil
		},
		PoolOptions: []probe.Option{probe.WithTickEvery(50 * time.Millisecond)},
		ServerEvery: 20 * time.Millisecond,
		Observers:   []engine.Observer{w},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	with, preempt := 0, 0
	for _, l := range s.Lines {
		if l.Server == nil {
			continue
		}
		with++
		if l.Server.Waiting == nil || *l.Server.Waiting != 3 || l.Server.KVPct == nil || *l.Server.KVPct != 50 || l.Server.Kind != "vLLM" {
			t.Fatalf("server object %+v: want vLLM, 3 waiting, KV 50%%", *l.Server)
		}
		if l.Server.PreemptPerS != nil && l.Server.PreemptedTotal != nil {
			preempt++
			if *l.Server.PreemptPerS != 0 || *l.Server.PreemptedTotal != 0 {
				t.Errorf("preemptions %v/s, %v in all; the server counts none", *l.Server.PreemptPerS, *l.Server.PreemptedTotal)
			}
		}
	}
	if with == 0 || preempt == 0 {
		t.Fatalf("of %d lines, %d have the server object, %d its preemptions", len(s.Lines), with, preempt)
	}
}

// TestSelfIsTpsmonsLoad: a line records tpsmon's own load as the live screen shows it
// (percent of a core, cores, the readers' p99 wait in ms), and none before it is known.
func TestSelfIsTpsmonsLoad(t *testing.T) {
	if got := selfOf(engine.SelfUse{}); got != nil {
		t.Errorf("unknown load recorded as %+v", *got)
	}
	u := engine.SelfUse{WithSim: true}
	u.CPU, u.Cores, u.Sched, u.Known = 1.234, 2, 1500*time.Microsecond, true
	got := selfOf(u)
	if want := (Self{CPUPct: 123.4, Cores: 2, SchedMs: 1.5, WithSim: true}); got == nil || *got != want {
		t.Errorf("selfOf = %+v, want %+v", got, want)
	}
}
