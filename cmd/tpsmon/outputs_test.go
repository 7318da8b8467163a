package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe/output/timeseries"
	"github.com/tpsmon/tpsmon/probe/settings"
)

// readSeries reads a --timeseries file.
func readSeries(t *testing.T, path string) *timeseries.Series {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := timeseries.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

func TestBenchLiveOutputsAndReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ts, rep := filepath.Join(dir, "ts.jsonl"), filepath.Join(dir, "report.md")
	r := cli(t, nil, secretEnv, nil, "bench", "--ramp", "1,2", "--hold", "1s", "--max-tokens", "16",
		"--timeseries", ts, "--report", rep, "--metrics-addr", "127.0.0.1:0")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	checkClean(t, r)
	s := readSeries(t, ts)
	for _, w := range []string{"metrics at http://127.0.0.1:", "wrote " + ts + " (", "wrote " + rep} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "warning: --metrics-addr") {
		t.Errorf("a loopback address is warned about:\n%s", r.stderr)
	}
	if len(s.Lines) < 2 || s.Cut || s.Lines[0].Endpoint != "simulator" || !s.Lines[0].Simulated {
		t.Fatalf("%d lines, cut %v, first %+v", len(s.Lines), s.Cut, s.Lines[0])
	}
	md, err := os.ReadFile(rep)
	if err != nil || !bytes.Contains(md, []byte("simulator")) || !bytes.Contains(bytes.ToLower(md), []byte("capacity")) {
		t.Errorf("report: %v\n%s", err, md)
	}
	// The recording ends on the run's diagnosis, in the report's words.
	if end := s.Lines[len(s.Lines)-1]; !end.End || len(end.RunDiagnosis) == 0 || !bytes.Contains(md, []byte(end.RunDiagnosis[0].Words)) {
		t.Errorf("the last line %+v does not say the report's diagnosis:\n%s", end, md)
	}
}

func TestBenchInterruptedKeepsTheTimeSeries(t *testing.T) {
	ts := filepath.Join(t.TempDir(), "ts.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 3500*time.Millisecond)
	defer cancel()
	r := cli(t, ctx, secretEnv, nil, "bench", "--ramp", "1,2", "--hold", "1m", "--max-tokens", "16", "--timeseries", ts)
	if r.code != exitInterrupt {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	s := readSeries(t, ts)
	// About one line a second until Ctrl-C.
	if len(s.Lines) < 2 || len(s.Lines) > 5 || s.Lines[len(s.Lines)-1].ElapsedS < 1.5 {
		t.Errorf("%d lines, the last at %v s: want one a second until the interruption", len(s.Lines), s.Lines[len(s.Lines)-1].ElapsedS)
	}
	if !strings.Contains(r.stderr, "wrote "+ts) {
		t.Errorf("stderr does not say where the time series is:\n%s", r.stderr)
	}
}

func TestLiveOutputUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--report", filepath.Join(dir, "r.txt")}, ".html, .svg, .png or .md"},
		{[]string{"bench", "--report", filepath.Join(dir, "nodir", "r.md")}, "does not exist"},
		{[]string{"bench", "--csv", out + ".md", "--report", out + ".md"}, "own name"},
		{[]string{"bench", "--timeseries", filepath.Join(dir, "nodir", "ts.jsonl")}, "--timeseries"},
		{[]string{"bench", "--out", out, "--timeseries", out}, "own name"},
		{[]string{"bench", "--metrics-addr", "9464x"}, "--metrics-addr"},
		{[]string{"bench", "--metrics-addr", "127.0.0.1:99999"}, "port"},
		{[]string{"--metrics-addr", "nohost"}, "HOST:PORT"},
		{[]string{"--timeseries", dir + "/"}, "directory"},
	}
	for _, tt := range tests {
		r := cli(t, nil, nil, func(*settings.Plan) error { t.Fatalf("%v: the run started", tt.args); return nil }, tt.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

func TestReplayCommandErrors(t *testing.T) {
	dir := t.TempDir()
	good := `{"schema":"tpsmon.timeseries/v1","t":"2026-11-23T15:24:00.925Z","elapsed_s":1,"width_s":1,"endpoint":"a","endpoint_index":0,"target_users":1,"active_streams":1,"aggregate_tps":90,"started":1,"finished":0,"requests_total":0,"succeeded_total":0,"steady":true,"capacity_users":0}`
	cut := writeFile(t, "cut.jsonl", good+"\n"+good[:40])
	empty := writeFile(t, "empty.jsonl", "")
	bad := writeFile(t, "bad.jsonl", good+"\n{oops\n")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"replay"}, []string{"want one time series file"}},
		{[]string{"replay", cut, "--speed", "3"}, []string{"--speed 3: want 1 (real time), 2, 4, 8, 16, 32 or 64"}},
		{[]string{"replay", filepath.Join(dir, "none.jsonl")}, []string{"none.jsonl: cannot read the time series"}},
		{[]string{"replay", empty}, []string{"no time series line"}},
		{[]string{"replay", bad}, []string{"bad.jsonl: line 2: not a time series line"}},
		{[]string{"replay", cut}, []string{"ends inside a line", "replaying its 1 whole lines", "needs a terminal"}},
	}
	for _, tt := range tests {
		r := cli(t, nil, nil, nil, tt.args...)
		checkClean(t, r)
		for _, w := range tt.want {
			if r.code != exitUsage || !strings.Contains(r.stderr, w) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, w)
			}
		}
	}
}
