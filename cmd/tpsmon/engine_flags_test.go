package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestEngineErrorsNameFlags: the engine's refusals of a run setting name its flag.
func TestEngineErrorsNameFlags(t *testing.T) {
	r := cli(t, nil, secretEnv, nil, "bench", "--hold", "10s", "--max-hold", "5s")
	if r.code != exitUsage || !strings.Contains(r.stderr, `--max-hold "5s": the maximum hold must be at least the hold (10s)`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = cli(t, nil, secretEnv, nil, "bench", "--max-duration", "-1s")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--max-duration") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestBenchMaxDuration: --max-duration cuts a ramp that would take minutes; the report
// says so (interrupted, capacity "at least"), and it is not an exit 130.
func TestBenchMaxDuration(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r.json")
	r := cli(t, nil, secretEnv, nil, "bench", "--ramp", "1,2", "--hold", "1m", "--max-tokens", "8",
		"--max-duration", "2s", "--out", out)
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "The run reached its maximum duration (2s): the ramp was cut") {
		t.Errorf("stdout does not say the run was cut:\n%s", r.stdout)
	}
	if rep := readReport(t, out); rep["interrupted"] != true {
		t.Errorf("interrupted = %v, want true", rep["interrupted"])
	}
}

// TestBenchStopsOnErrors: bench stops the ramp at a level with more than 5% errors and
// says why; --full-ramp walks every level anyway.
func TestBenchStopsOnErrors(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%4 == 0 { // one request in four fails
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []string{`{"choices":[{"index":0,"delta":{"content":"a"}}]}`, `{"choices":[{"index":0,"delta":{"content":"b"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]"} {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	}))
	defer srv.Close()
	args := []string{"bench", "--url", srv.URL + "/v1", "--model", "m", "--ramp", "1,2,4", "--hold", "100ms"}
	r := cli(t, nil, secretEnv, nil, args...)
	if !strings.Contains(r.stdout, "the ramp stopped at 1 user: errors ") || !strings.Contains(r.stdout, "> 5% (") || !strings.Contains(r.stdout, "requests) when it stopped (--full-ramp walks every level)") ||
		strings.Contains(r.stdout, "\n| 2 |") {
		t.Errorf("exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// Two-token answers: per-user rates vary too much to be known to ±5%; each level
	// ends at the maximum hold.
	r = cli(t, nil, secretEnv, nil, append(args, "--full-ramp", "--max-hold", "1s")...)
	for _, w := range []string{"\n| 1 |", "\n| 2 |", "\n| 4 |"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("--full-ramp: no row %q:\n%s", w, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "at 1 user errors ") || !strings.Contains(r.stderr, "requests); going on (--full-ramp)") {
		t.Errorf("--full-ramp: no warning:\n%s", r.stderr)
	}
}
