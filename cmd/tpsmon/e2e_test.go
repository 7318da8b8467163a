package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe/sim"
	"go.uber.org/goleak"
)

// readReport decodes results.json into a generic map, to check the exact keys.
func readReport(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("results not written: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("results.json: %v\n%s", err, data)
	}
	return m
}

func keys(t *testing.T, where string, v any, want ...string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object: %v", where, v)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: key %q missing", where, k)
		}
	}
	return m
}

// levelsByConcurrency returns the report's levels of endpoint e, keyed by concurrency.
func levelsByConcurrency(t *testing.T, e map[string]any) map[int]map[string]any {
	t.Helper()
	out := map[int]map[string]any{}
	levels, _ := e["levels"].([]any)
	for i, l := range levels {
		lm := keys(t, fmt.Sprintf("levels[%d]", i), l, "concurrency", "duration_s", "requests", "succeeded", "errors",
			"error_rate", "ttft_ms", "ttfo_ms", "tpot_ms", "e2e_ms", "user_tps", "aggregate_tps", "request_rate", "output_tokens")
		keys(t, "ttft_ms", lm["ttft_ms"], "mean", "min", "p50", "p90", "p95", "p99", "max")
		keys(t, "user_tps", lm["user_tps"], "mean", "min", "p10", "p50", "p90", "max")
		out[int(lm["concurrency"].(float64))] = lm
	}
	return out
}

func TestBenchOnBuiltInSimulator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, csv := filepath.Join(dir, "results.json"), filepath.Join(dir, "results.csv")
	r := cli(t, nil, secretEnv, nil, "bench", "--ramp", "1,2", "--hold", "2s", "--max-tokens", "16",
		"--out", out, "--csv", csv)
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	checkClean(t, r)
	for _, w := range []string{"built-in simulator", "SIMULATED", "wrote " + out, "wrote " + csv, "level 1/2", "level 2/2"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
	if !strings.Contains(r.stdout, "Simulated endpoint") {
		t.Errorf("stdout does not say the endpoint is simulated:\n%s", r.stdout)
	}

	m := readReport(t, out)
	keys(t, "report", m, "schema", "tool_version", "started_at", "finished_at", "interrupted", "settings", "endpoints")
	if m["schema"] != "tpsmon.bench/v1" || m["tool_version"] != "dev" || m["interrupted"] != false {
		t.Errorf("header: schema %v tool_version %v interrupted %v", m["schema"], m["tool_version"], m["interrupted"])
	}
	for _, k := range []string{"started_at", "finished_at"} {
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(m[k])); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	s := keys(t, "settings", m["settings"], "ramp", "hold_s", "api", "max_tokens", "prompt_tokens", "slo")
	if fmt.Sprint(s["ramp"]) != "[1 2]" || s["hold_s"] != 2.0 || s["api"] != "chat" || s["max_tokens"] != 16.0 || s["prompt_tokens"] != 128.0 || fmt.Sprintf("%#v", s["extra_body_keys"]) != "[]interface {}{}" {
		t.Errorf("settings: %v", s)
	}
	keys(t, "slo", s["slo"], "user_tps_min", "ttft_p95_max_ms", "error_rate_max")
	eps, _ := m["endpoints"].([]any)
	if len(eps) != 1 {
		t.Fatalf("endpoints: %v", m["endpoints"])
	}
	e := keys(t, "endpoint", eps[0], "name", "url", "model", "simulated", "token_source", "levels", "capacity", "saturation_users")
	if e["simulated"] != true || !strings.HasPrefix(fmt.Sprint(e["url"]), "http://127.0.0.1:") {
		t.Errorf("endpoint: simulated %v url %v", e["simulated"], e["url"])
	}
	keys(t, "capacity", e["capacity"], "users")
	if lv := levelsByConcurrency(t, e); len(lv) == 0 {
		t.Errorf("no level measured")
	}
	data, err := os.ReadFile(csv)
	if err != nil || bytes.Count(data, []byte("\n")) < 2 {
		t.Errorf("results.csv: %v\n%s", err, data)
	}
	// Written atomically: through temporary files that are gone once renamed.
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 2 {
		t.Errorf("the output directory holds %v, want results.json and results.csv only", names)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) != 0 {
		t.Errorf("temporary files left behind: %v", names)
	}
}

// arithmeticSim starts a simulator whose per-user rate at concurrency c is exactly
// 1000 / (10 + 10c) tokens/s: 50 at c=1, 33.3 at c=2.
// It stops at the end of the test, or earlier when stop is called.
func arithmeticSim(t *testing.T) (inst *sim.Instance, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inst, err := sim.Start(ctx, "127.0.0.1:0", sim.Config{
		Name: "arithmetic", Model: "arith-model", Slots: 8, StepMs: 10, StepMsPerSeq: 10,
		TokensPerChunk: 1, Seed: 1, DefaultMaxTokens: 16,
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	stop = func() {
		inst.Close()
		cancel()
	}
	t.Cleanup(stop)
	return inst, stop
}

func TestBenchSimulatorArithmetic(t *testing.T) {
	t.Parallel()
	inst, _ := arithmeticSim(t)
	out := filepath.Join(t.TempDir(), "results.json")
	// c=1 meets 42 tok/s, c=2 does not: capacity 1, below --min-capacity 2: exit 1.
	r := cli(t, nil, secretEnv, nil, "bench", "--url", inst.URL, "--model", "arith-model", "--ramp", "1,2",
		"--hold", "2s", "--max-tokens", "16", "--prompt-tokens", "8", "--slo", "user_tps_p50>=42",
		"--min-capacity", "2", "--out", out)
	if r.code != exitCapacity {
		t.Fatalf("exit %d, want 1; stderr:\n%s", r.code, r.stderr)
	}
	checkClean(t, r)
	if !regexp.MustCompile(`endpoint 127\.0\.0\.1:\d+: capacity 1 user is below --min-capacity 2`).MatchString(r.stderr) {
		t.Errorf("stderr does not name the endpoint below the minimum:\n%s", r.stderr)
	}
	m := readReport(t, out)
	e := m["endpoints"].([]any)[0].(map[string]any)
	if e["simulated"] != true || e["model"] != "arith-model" { // a tpsmon sim at --url is simulated too
		t.Errorf("endpoint: %v", e)
	}
	if c := e["capacity"].(map[string]any)["users"]; c != 1.0 {
		t.Errorf("capacity %v, want 1", c)
	}
	lv := levelsByConcurrency(t, e)
	for c, want := range map[int]float64{1: 1000.0 / 20, 2: 1000.0 / 30} {
		l, ok := lv[c]
		if !ok {
			t.Errorf("level %d missing", c)
			continue
		}
		// Timers only run late, so the measured rate may be a little lower, never higher.
		got := l["user_tps"].(map[string]any)["p50"].(float64)
		if got < 0.85*want || got > 1.05*want {
			t.Errorf("c=%d: per-user tok/s p50 %.1f, want %.1f (1000/(step_ms+step_ms_per_seq*c))", c, got, want)
		}
	}
}

func TestBenchInterruptedWritesResults(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	inst, stop := arithmeticSim(t)
	defer stop() // before the leak check
	out := filepath.Join(t.TempDir(), "results.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(2500*time.Millisecond, cancel) // Ctrl-C during the first level
	start := time.Now()
	r := cli(t, ctx, secretEnv, nil, "bench", "--url", inst.URL, "--model", "arith-model", "--ramp", "1,2",
		"--hold", "1m", "--max-tokens", "1000", "--out", out)
	if r.code != exitInterrupt {
		t.Errorf("exit %d, want 130; stderr:\n%s", r.code, r.stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %s: Ctrl-C must cut in-flight requests", d)
	}
	checkClean(t, r)
	if !strings.Contains(r.stderr, "interrupted") || !strings.Contains(r.stderr, "wrote "+out) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if m := readReport(t, out); m["interrupted"] != true {
		t.Errorf("interrupted = %v, want true", m["interrupted"])
	}
}

// TestBenchInterruptedOnBuiltInSimulator: Ctrl-C on the in-process simulator cuts the
// in-flight requests as ours (canceled, counted nowhere); the simulator must not shut
// down under them first and turn them into the endpoint's "truncated" errors.
func TestBenchInterruptedOnBuiltInSimulator(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	out := filepath.Join(t.TempDir(), "results.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// 32 requests in flight, each about 2 s long: Ctrl-C lands mid-request.
	time.AfterFunc(2500*time.Millisecond, cancel)
	r := cli(t, ctx, secretEnv, nil, "bench", "--ramp", "32", "--hold", "1m", "--max-tokens", "40", "--out", out)
	if r.code != exitInterrupt {
		t.Fatalf("exit %d, want 130; stderr:\n%s", r.code, r.stderr)
	}
	checkClean(t, r)
	m := readReport(t, out)
	e := m["endpoints"].([]any)[0].(map[string]any)
	lv := levelsByConcurrency(t, e)
	if len(lv) == 0 {
		t.Fatalf("no level measured before the interruption:\n%s", r.stdout)
	}
	for c, l := range lv {
		if errs := l["errors"].(map[string]any); len(errs) > 0 || l["requests"] != l["succeeded"] {
			t.Errorf("c=%d: requests %v, succeeded %v, errors %v: Ctrl-C made the endpoint's errors", c, l["requests"], l["succeeded"], errs)
		}
	}
}

func TestBenchUnreachable(t *testing.T) {
	// Nothing listens on port 1 of 127.0.0.1.
	start := time.Now()
	r := cli(t, nil, secretEnv, nil, "bench", "--url", "http://127.0.0.1:1/v1", "--model", "m", "--ramp", "1", "--hold", "1s")
	if r.code != exitUnusable {
		t.Errorf("exit %d, want 3; stderr:\n%s", r.code, r.stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s to say the endpoint is unreachable", d)
	}
	if !strings.Contains(r.stderr, "127.0.0.1:1") || !strings.Contains(r.stderr, "unusable") {
		t.Errorf("stderr does not name the URL:\n%s", r.stderr)
	}
	checkClean(t, r)
}

// failingServer lists model m, and answers every completion with HTTP 500, or every
// request with 401 when the key is not testKey.
func failingServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)
			return
		}
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"engine exploded","type":"server_error"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestBenchEveryRequestFails(t *testing.T) {
	t.Parallel()
	srv := failingServer(t)
	out := filepath.Join(t.TempDir(), "results.json")
	// No --model: the only model served is used.
	r := cli(t, nil, secretEnv, nil, "bench", "--url", srv.URL+"/v1", "--ramp", "1", "--hold", "1s", "--out", out)
	if r.code != exitUnusable {
		t.Errorf("exit %d, want 3; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "requests failed; last error:") {
		t.Errorf("stderr does not give the last error:\n%s", r.stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("results not written: %v", err)
	}
	checkClean(t, r)

	// A refused key: exit 3, the key never shown.
	r = cli(t, nil, map[string]string{"OPENAI_API_KEY": "sk-wrong-" + testKey}, nil, "bench", "--url", srv.URL+"/v1", "--model", "m", "--ramp", "1", "--hold", "1s")
	if r.code != exitUnusable {
		t.Errorf("refused key: exit %d, want 3; stderr:\n%s", r.code, r.stderr)
	}
	checkClean(t, r)
}

func TestBenchModelRequired(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"alpha"},{"id":"beta"}]}`)
	}))
	defer srv.Close()
	r := cli(t, nil, secretEnv, nil, "bench", "--url", srv.URL+"/v1", "--ramp", "1", "--hold", "1s")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--model is required; the server serves: alpha, beta") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	checkClean(t, r)
	// From the config: the config's key is named, at the endpoint's line.
	path := writeFile(t, "c.yaml", "endpoints:\n  - name: a\n    url: "+srv.URL+"/v1\n")
	r = cli(t, nil, secretEnv, nil, "bench", "--config", path, "--ramp", "1", "--hold", "1s")
	if want := "line 2: endpoints[0] (a): model: is required for this endpoint (or --model for every endpoint); the server serves: alpha, beta"; r.code != exitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("config: exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, want)
	}
	checkClean(t, r)
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSimCommand(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	done := make(chan int)
	go func() {
		done <- a.execute(ctx, []string{"sim", "--addr", "127.0.0.1:0", "--model", "my-model", "--slots", "3"})
	}()

	re := regexp.MustCompile(`tpsmon --url (http://127\.0\.0\.1:\d+/v1) --model my-model\n`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); {
		if m := re.FindStringSubmatch(stdout.String()); m != nil {
			url = m[1]
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("no ready-to-paste line; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	resp, err := http.Get(url + "/models")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "my-model") {
		t.Errorf("/v1/models: %s", body)
	}
	http.DefaultClient.CloseIdleConnections()
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tpsmon sim did not stop after Ctrl-C")
	}
}

func TestSimAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := cli(t, nil, nil, nil, "sim", "--addr", ln.Addr().String())
	if r.code != exitUsage {
		t.Errorf("exit %d, want 2; stderr:\n%s", r.code, r.stderr)
	}
	for _, w := range []string{"--addr " + ln.Addr().String(), "address already in use", "--addr 127.0.0.1:0"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
	if n := strings.Count(r.stderr, "listen"); n > 1 {
		t.Errorf("stderr says the listen failure %d times:\n%s", n, r.stderr)
	}
	checkClean(t, r)
}
