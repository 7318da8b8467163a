package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/settings"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// TestBenchKnowsTpsmonSim: `tpsmon sim` in another terminal, then `tpsmon bench --url`
// at it (the demo the simulator's banner suggests). Its numbers are as simulated as the
// built-in simulator's, and were reported as a real endpoint's.
func TestBenchKnowsTpsmonSim(t *testing.T) {
	inst, err := sim.Start(context.Background(), "127.0.0.1:0", sim.Config{Model: "m", Slots: 4, StepMs: 2, TokensPerChunk: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	r := cli(t, nil, secretEnv, nil, "bench", "--url", inst.URL, "--model", "m", "--ramp", "1", "--hold", "200ms",
		"--max-hold", "5s", "--max-tokens", "4", "--out", out)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkClean(t, r)
	if !strings.Contains(r.stderr, `is tpsmon's simulator (its /models says owned_by "tpsmon-sim"): every number of it is SIMULATED`) ||
		!strings.Contains(r.stdout, "> **Simulated endpoint**: ") {
		t.Errorf("not said to be simulated:\nstderr %s\nstdout %s", r.stderr, r.stdout)
	}
	ep := readReport(t, out)["endpoints"].([]any)[0].(map[string]any)
	if ep["simulated"] != true {
		t.Errorf("results.json endpoint simulated = %v, want true", ep["simulated"])
	}
}

// TestPreflightMarksOnlyTheSimulator: the screen (no check) with a model given asks
// /models for a second only to learn whether the server is tpsmon's simulator; a real
// server's models, another model of the simulator's name list, or a server that is down
// leave the endpoint real and the start going.
func TestPreflightMarksOnlyTheSimulator(t *testing.T) {
	models := func(body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/v1"
	}
	// The down server is closed only once the others listen, so that none of them can
	// take its port (a simulator there made "down" look simulated).
	down := httptest.NewServer(http.NotFoundHandler())
	cases := []struct {
		name, url string
		want      bool
	}{
		{"the simulator", models(`{"data":[{"id":"m","owned_by":"tpsmon-sim"}]}`), true},
		{"vLLM", models(`{"data":[{"id":"m","owned_by":"vllm"}]}`), false},
		{"the simulator serving another model", models(`{"data":[{"id":"other","owned_by":"tpsmon-sim"}]}`), false},
		{"down", down.URL + "/v1", false},
	}
	down.Close()
	for _, tc := range cases {
		for _, check := range []bool{false, true} {
			var stderr bytes.Buffer
			a := &app{stderr: &stderr, getenv: func(string) string { return "" }}
			p := &settings.Plan{Endpoints: []client.Endpoint{{Name: "x", BaseURL: tc.url, Model: "m"}}, Sources: []string{"--url"}, KeyEnvs: []string{"OPENAI_API_KEY"}}
			err := a.preflight(context.Background(), p, check)
			// bench (check) refuses a server that is down, and one whose /models does
			// not list the model (every request would be answered 404).
			if (err != nil) != (check && (tc.name == "down" || tc.name == "the simulator serving another model")) {
				t.Errorf("%s (check %v): err %v", tc.name, check, err)
			}
			if got := p.Endpoints[0].Simulated; got != tc.want && err == nil {
				t.Errorf("%s (check %v): simulated %v, want %v (stderr %q)", tc.name, check, got, tc.want, stderr.String())
			}
			if said := strings.Contains(stderr.String(), "SIMULATED"); said != (tc.want && err == nil) {
				t.Errorf("%s (check %v): stderr %q", tc.name, check, stderr.String())
			}
		}
	}
}
