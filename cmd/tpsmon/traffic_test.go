package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recordingServer is an OpenAI-compatible chat server that records the prompt (the
// last message's content) and max_tokens of every request, and streams 3 tokens.
// Its answers come at once: their per-user rates vary too much for a level to be
// decided, so a run against it caps its level with --max-hold (else the level holds for
// anything from 1 s to the default 2 min, sending requests as fast as a CPU allows).
type recordingServer struct {
	mu      sync.Mutex
	prompts []string
	maxToks []int
}

func (s *recordingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" {
		fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
		return
	}
	var body struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		MaxTokens int `json:"max_tokens"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	if n := len(body.Messages); n > 0 {
		s.mu.Lock()
		s.prompts = append(s.prompts, body.Messages[n-1].Content)
		s.maxToks = append(s.maxToks, body.MaxTokens)
		s.mu.Unlock()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for i := range 3 {
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t%d \"}}]}\n\n", i)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
}

// TestDatasetSendsTheFilesPrompts: --dataset sends exactly the file's prompts (each
// one, nothing else), with each line's own max_tokens.
func TestDatasetSendsTheFilesPrompts(t *testing.T) {
	rec := &recordingServer{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	want := []string{"alpha one", "beta two", "gamma three"}
	var lines []string
	for i, p := range want {
		lines = append(lines, fmt.Sprintf(`{"prompt": %q, "max_tokens": %d}`, p, 10+i))
	}
	lines = append(lines, `{"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "delta four"}]}`)
	want = append(want, "delta four")
	ds := writeFile(t, "d.jsonl", strings.Join(lines, "\n")+"\n")
	out := filepath.Join(t.TempDir(), "r.json")
	r := cli(t, nil, nil, nil, "bench", "--url", srv.URL+"/v1", "--model", "m", "--dataset", ds, "--ramp", "1",
		"--hold", "1s", "--max-hold", "2s", "--max-tokens", "7", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.prompts) < 20 {
		t.Fatalf("%d requests", len(rec.prompts))
	}
	seen := map[string]int{}
	for i, p := range rec.prompts {
		if !slices.Contains(want, p) {
			t.Fatalf("sent a prompt not in the file: %q", p)
		}
		seen[p]++
		wantMax := 7
		if k := slices.Index(want, p); k < 3 {
			wantMax = 10 + k
		}
		if rec.maxToks[i] != wantMax {
			t.Errorf("%q sent with max_tokens %d, want %d", p, rec.maxToks[i], wantMax)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("prompts sent %v, want each of %v", seen, want)
	}
	if lv := readReport(t, out)["endpoints"].([]any)[0].(map[string]any)["levels"].([]any)[0].(map[string]any); lv["goodput"] == nil || lv["chunk_gap_ms"] == nil || lv["lengths"] == nil {
		t.Errorf("level without goodput, chunk gaps or lengths: %v", lv)
	}
}

// TestMaxTokensUniformSpreads: --max-tokens uniform:50:150 asks for lengths spread
// over the range.
func TestMaxTokensUniformSpreads(t *testing.T) {
	rec := &recordingServer{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r := cli(t, nil, nil, nil, "bench", "--url", srv.URL+"/v1", "--model", "m", "--ramp", "2",
		"--hold", "1s", "--max-hold", "2s", "--max-tokens", "uniform:50:150")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	lo, hi, distinct := 1000, 0, map[int]bool{}
	for _, m := range rec.maxToks {
		lo, hi, distinct[m] = min(lo, m), max(hi, m), true
	}
	if lo < 50 || hi > 150 || hi-lo < 60 || len(distinct) < 15 {
		t.Errorf("max_tokens from %d to %d, %d distinct over %d requests: want spread over 50..150", lo, hi, len(distinct), len(rec.maxToks))
	}
}

// TestTrafficUsageErrors: the workload and rate flags' errors name the flag.
func TestTrafficUsageErrors(t *testing.T) {
	empty := writeFile(t, "empty.jsonl", "\n\n")
	bad := writeFile(t, "bad.jsonl", `{"prompt": "ok"}`+"\n"+`{"nope": 1}`+"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-tokens", "uniform:9:3"}, "--max-tokens"},
		{[]string{"--prompt-tokens", "normal:x:1"}, "--prompt-tokens"},
		{[]string{"--prefix-tokens", "-1"}, "--prefix-tokens"},
		{[]string{"--dataset", empty}, "--dataset"},
		{[]string{"--dataset", bad}, "line 2"},
		{[]string{"--rate", "0"}, "--rate"},
		{[]string{"--rate", "2.5"}, "--rate"},
		{[]string{"--rate", "4", "--ramp", "1,2"}, "exclude each other"},
		{[]string{"--arrival", "burst", "--rate", "4"}, "--arrival"},
		{[]string{"--max-concurrency", "4"}, "--rate"},
		{[]string{"--slo", "goodput>=150%"}, "--slo"},
	} {
		r := cli(t, nil, nil, nil, append([]string{"bench"}, c.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", c.args, r.code, r.stderr, c.want)
		}
		checkClean(t, r)
	}
}

// TestRatePlan: --rate makes the ramp's levels arrival rates and the pools open loop.
func TestRatePlan(t *testing.T) {
	p := planOf(t, nil, "bench", "--rate", "2,4,8", "--arrival", "constant", "--max-concurrency", "16")
	if !p.Rate.On || !slices.Equal(p.Ramp.Levels, []int{2, 4, 8}) || p.Rate.MaxConcurrency != 16 || p.Rate.Kind.String() != "constant" {
		t.Errorf("plan: rate %+v levels %v", p.Rate, p.Ramp.Levels)
	}
	if cfg := p.Engine(); len(cfg.PoolOptions) != 1 || cfg.Connections() != 16 {
		t.Errorf("pool options %d, conns %d", len(cfg.PoolOptions), cfg.Connections())
	}
}

// TestBenchRateOnSimulator: bench --rate holds an arrival rate on the simulator: the
// level is keyed by the rate, achieves it within 10% over a short hold, and says its
// mean in flight and client-side wait.
func TestBenchRateOnSimulator(t *testing.T) {
	t.Parallel()
	inst, _ := arithmeticSim(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := cli(t, nil, nil, nil, "bench", "--url", inst.URL, "--model", "arith-model", "--rate", "20", "--arrival", "constant",
		"--hold", "3s", "--max-tokens", "8", "--out", out)
	if r.code != 0 && r.code != exitCapacity {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	m := readReport(t, out)
	if s := m["settings"].(map[string]any); s["mode"] != "rate" || s["arrival"] != "constant" {
		t.Errorf("settings %v", s)
	}
	l := m["endpoints"].([]any)[0].(map[string]any)["levels"].([]any)[0].(map[string]any)
	if l["rate"] != 20.0 || l["client_wait_ms"] == nil || l["in_flight_mean"].(float64) <= 0 {
		t.Errorf("level: rate %v wait %v in flight %v", l["rate"], l["client_wait_ms"], l["in_flight_mean"])
	}
	if got := l["request_rate"].(float64); got < 18 || got > 22 {
		t.Errorf("achieved %.2f requests/s at --rate 20", got)
	}
	if !strings.Contains(r.stdout, "| rate req/s |") || !strings.Contains(r.stdout, "20 requests/s") {
		t.Errorf("Markdown does not name the rate:\n%s", r.stdout)
	}
}

// TestWorkloadConfig: the config takes the workload keys the flags take, and flags
// given override them; a bad distribution is refused at its line.
func TestWorkloadConfig(t *testing.T) {
	ds := writeFile(t, "d.jsonl", `{"prompt": "hello"}`+"\n")
	cfg := writeFile(t, "c.yaml", "workload:\n  max_tokens: uniform:50:150\n  prompt_tokens: 64\n  prefix_tokens: 32\n  dataset: "+ds+"\n")
	p := planOf(t, nil, "bench", "--config", cfg)
	if p.Template.Workload == nil || p.Template.MaxTokens != 100 || p.Template.PromptTokens != 64 || !strings.Contains(p.Workload, "dataset") {
		t.Errorf("template: workload %v max %d prompt %d (%q)", p.Template.Workload, p.Template.MaxTokens, p.Template.PromptTokens, p.Workload)
	}
	p = planOf(t, nil, "bench", "--config", cfg, "--max-tokens", "7", "--dataset", "")
	if p.Template.MaxTokens != 7 || !strings.Contains(p.Workload, "shared prefix 32") {
		t.Errorf("flags over config: max %d (%q)", p.Template.MaxTokens, p.Workload)
	}
	bad := writeFile(t, "b.yaml", "workload:\n  max_tokens: uniform:9\n")
	r := cli(t, nil, nil, nil, "bench", "--config", bad)
	if r.code != exitUsage || !strings.Contains(r.stderr, "line 2") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}
