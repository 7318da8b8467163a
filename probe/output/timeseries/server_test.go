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
// scrapes, with no SetServer call.
func TestLinesCarryTheServersMetrics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 2\n"+
			"# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 3\n"+
			"# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{model_name=\"m\"} 0.5\n"+
			"# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{model_name=\"m\"} 100\n")
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
	with := 0
	for _, l := range s.Lines {
		if l.Server == nil {
			continue
		}
		with++
		if l.Server.Waiting == nil || *l.Server.Waiting != 3 || l.Server.KVPct == nil || *l.Server.KVPct != 50 {
			t.Fatalf("server object %+v: want 3 waiting, KV 50%%", *l.Server)
		}
	}
	if with == 0 {
		t.Fatalf("none of %d lines has the server object", len(s.Lines))
	}
}
