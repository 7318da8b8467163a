package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tpsmon/tpsmon/probe/sim"
)

// TestBenchAgainstClosingServer: against the simulator closing its sockets after every
// stream while it advertises keep-alive (tpsmon sim --close-after-stream, as llama.cpp's
// llama-server does), bench counts no error: a request that finds its reused connection
// dead is sent once more on a new one. (A plain client fails about one request in five
// there: probe/sim TestCloseAfterStream.)
func TestBenchAgainstClosingServer(t *testing.T) {
	t.Parallel()
	inst, err := sim.Start(context.Background(), "127.0.0.1:0", sim.Config{Model: "m", Slots: 8, StepMs: 2, TokensPerChunk: 2, CloseAfterStream: true})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	r := cli(t, nil, secretEnv, nil, "bench", "--url", inst.URL, "--model", "m", "--ramp", "1,4", "--hold", "300ms", "--max-hold", "5s",
		"--max-tokens", "4", "--out", out)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	ep := readReport(t, out)["endpoints"].([]any)[0].(map[string]any)
	total := 0
	for _, l := range ep["levels"].([]any) {
		l := l.(map[string]any)
		total += int(l["requests"].(float64))
		if errs := l["errors"].(map[string]any); len(errs) > 0 {
			t.Errorf("%v users: errors %v, want none", l["concurrency"], errs)
		}
	}
	if total < 40 {
		t.Errorf("%d requests in all, want at least 40 (20 per level)", total)
	}
}
