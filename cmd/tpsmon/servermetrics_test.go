package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/settings"
)

func TestServerMetricsPlan(t *testing.T) {
	two := writeFile(t, "two.yaml", `endpoints:
  - url: http://127.0.0.1:8000/v1
    model: a
  - url: http://127.0.0.1:8001/v1
    model: b
    server_metrics: off
  - url: http://127.0.0.1:8002/v1
    model: c
    server_metrics: http://127.0.0.1:9400/metrics
`)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--url", "http://127.0.0.1:8000/v1", "--model", "m"}, "[]"},
		{[]string{"bench", "--url", "http://127.0.0.1:8000/v1", "--model", "m", "--server-metrics", "off"}, "[off]"},
		{[]string{"bench", "--url", "http://127.0.0.1:8000/v1", "--model", "m", "--server-metrics", "http://127.0.0.1:9400/metrics"}, "[http://127.0.0.1:9400/metrics]"},
		{[]string{"bench"}, "[]"}, // the simulator: its own /metrics
		{[]string{"bench", "--server-metrics", "off"}, "[off]"},
		{[]string{"bench", "--config", two}, "[ off http://127.0.0.1:9400/metrics]"},
		{[]string{"bench", "--config", two, "--server-metrics", "off"}, "[off off off]"},
		{[]string{"--config", two}, "[ off http://127.0.0.1:9400/metrics]"}, // the screen too
	}
	for _, tt := range tests {
		p := planOf(t, secretEnv, tt.args...)
		if got := fmt.Sprint(p.ServerMetrics); got != tt.want {
			t.Errorf("%v: server metrics %s, want %s", tt.args, got, tt.want)
		}
	}
}

func TestServerMetricsErrors(t *testing.T) {
	two := writeFile(t, "two.yaml", "endpoints:\n  - url: http://127.0.0.1:8000/v1\n  - url: http://127.0.0.1:8001/v1\n")
	bad := writeFile(t, "bad.yaml", "endpoints:\n  - name: a\n    url: http://127.0.0.1:8000/v1\n    server_metrics: 127.0.0.1:9400\n")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"bench", "--server-metrics", "ftp://me:" + testKey + "@h/metrics"}, []string{"--server-metrics", "http:// or https://"}},
		{[]string{"bench", "--config", two, "--server-metrics", "http://127.0.0.1:9400/metrics"}, []string{"--server-metrics", "2 endpoints", "server_metrics:"}},
		{[]string{"bench", "--config", bad}, []string{"line 4: endpoints[0].server_metrics (a)", "http:// or https://"}},
	}
	for _, tt := range tests {
		r := cli(t, nil, secretEnv, func(*settings.Plan) error { return errors.New("planned") }, tt.args...)
		if r.code != exitUsage {
			t.Errorf("%v: exit %d, want 2; stderr %s", tt.args, r.code, r.stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr does not say %q:\n%s", tt.args, w, r.stderr)
			}
		}
		checkClean(t, r)
	}
}

// TestBenchServerViewOnBuiltInSimulator: the simulator publishes vLLM's names on
// /metrics; bench scrapes them, says so once, and results.json holds each level's
// server view (waiting, KV %); off leaves it out.
func TestBenchServerViewOnBuiltInSimulator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "results.json")
	r := cli(t, nil, secretEnv, nil, "bench", "--ramp", "4", "--hold", "3s", "--max-tokens", "32", "--out", out)
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	checkClean(t, r)
	if strings.Count(r.stderr, "server metrics: vLLM at http://127.0.0.1:") != 1 {
		t.Errorf("stderr does not say once where the server metrics are:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "| users | waiting mean | waiting max |") {
		t.Errorf("the Markdown has no server's view:\n%s", r.stdout)
	}
	m := readReport(t, out)
	e := m["endpoints"].([]any)[0].(map[string]any)
	lv := levelsByConcurrency(t, e)
	sv := keys(t, "levels[4].server", lv[4]["server"], "scrapes", "waiting_mean", "waiting_max", "running_mean", "kv_mean_pct", "server_tps")
	if sv["kv_mean_pct"].(float64) <= 0 || sv["server_tps"].(float64) <= 0 {
		t.Errorf("server view %v: want KV use and generated tok/s", sv)
	}

	r = cli(t, nil, secretEnv, nil, "bench", "--ramp", "1", "--hold", "1s", "--max-tokens", "8", "--out", out, "--server-metrics", "off")
	if r.code != exitOK {
		t.Fatalf("off: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "server metrics") {
		t.Errorf("off: stderr speaks of server metrics:\n%s", r.stderr)
	}
	e = readReport(t, out)["endpoints"].([]any)[0].(map[string]any)
	if _, ok := levelsByConcurrency(t, e)[1]["server"]; ok {
		t.Error("off: results.json has a server view")
	}
}

func TestProgressNotes(t *testing.T) {
	var buf bytes.Buffer
	pr := newProgressPrinter(&buf, 1)
	pr.update(engine.Progress{Name: "a", Note: "a: server metrics: vLLM at http://h/metrics"})
	if buf.String() != "tpsmon: a: server metrics: vLLM at http://h/metrics\n" {
		t.Errorf("not a TTY: %q", buf.String())
	}
	buf.Reset()
	tty := &progressPrinter{w: &buf, tty: true, width: 30, lines: []string{"a: level 1/2"}, drawn: 1}
	tty.update(engine.Progress{Name: "a", Note: "a: server down: http://127.0.0.1:8000/metrics: connection refused"})
	want := "\x1b[1A\r\x1b[2Ktpsmon: a: server down: http:\n\r\x1b[2Ka: level 1/2\n"
	if buf.String() != want {
		t.Errorf("TTY: got %q, want %q (the note above, cut to the width, the progress drawn again)", buf.String(), want)
	}
}
