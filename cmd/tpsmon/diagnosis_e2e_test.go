package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// startSimCommand runs `tpsmon sim --addr 127.0.0.1:0 ARGS...` through the program's
// entry point until the test ends, and returns its base URL and model.
func startSimCommand(t *testing.T, args ...string) (url, model string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	a := &app{stdin: strings.NewReader(""), stdout: out, stderr: out, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- a.execute(ctx, append([]string{"sim", "--addr", "127.0.0.1:0"}, args...)) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	serving := regexp.MustCompile(`serving (http://\S+) `)
	name := regexp.MustCompile(`model "([^"]+)"`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s := out.String()
		if m := serving.FindStringSubmatch(s); m != nil {
			return m[1], name.FindStringSubmatch(s)[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("tpsmon sim %v did not start:\n%s", args, out.String())
	return "", ""
}

// diagFinding is a finding as results.json holds it.
type diagFinding struct {
	Kind     string   `json:"kind"`
	Words    string   `json:"words"`
	Severity string   `json:"severity"`
	Evidence []string `json:"evidence"`
	First    float64  `json:"first_seen_s"`
	Last     float64  `json:"last_seen_s"`
}

// faultRun is what one row's bench said: its exit, its Markdown (stdout), stderr and
// results.json's findings.
type faultRun struct {
	code     int
	stdout   string
	stderr   string
	findings []diagFinding
	err      string // the run could not be read
}

// find is the finding of kind, when the run has one.
func (r *faultRun) find(kind string) (diagFinding, bool) {
	for _, f := range r.findings {
		if f.Kind == kind {
			return f, true
		}
	}
	return diagFinding{}, false
}

// faultRow is one row of the table "fault -> what tpsmon says" (docs/server-view.md):
// the simulator's flags, bench's flags, and what the diagnosis must say.
type faultRow struct {
	name  string
	sim   []string
	bench []string
	check func(t *testing.T, r *faultRun)
}

// number is the first number after prefix in s (e.g. "on 23% of" -> 23), or -1.
func number(s, prefix string) float64 {
	i := strings.Index(s, prefix)
	if i < 0 {
		return -1
	}
	m := regexp.MustCompile(`^[0-9][0-9,]*(\.[0-9]+)?`).FindString(s[i+len(prefix):])
	v, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
	if err != nil {
		return -1
	}
	return v
}

// want checks that the run has a finding of kind whose words match re, and returns it.
func want(t *testing.T, r *faultRun, kind, re string) diagFinding {
	t.Helper()
	f, ok := r.find(kind)
	if !ok {
		t.Fatalf("no %s finding; results.json's diagnosis: %+v\nstderr:\n%s", kind, r.findings, r.stderr)
	}
	if !regexp.MustCompile(re).MatchString(f.Words) {
		t.Errorf("%s says %q, want it to match %q", kind, f.Words, re)
	}
	if !strings.Contains(r.stderr, "diagnosis: ") {
		t.Errorf("bench's stderr does not say the diagnosis as it first held:\n%s", r.stderr)
	}
	if _, diag, ok := strings.Cut(r.stdout, "\nDiagnosis:\n"); !ok || !strings.Contains(diag, f.Words) {
		t.Errorf("bench's Markdown has no Diagnosis section that says %q:\n%s", f.Words, r.stdout)
	}
	return f
}

// between checks lo <= v <= hi.
func between(t *testing.T, what string, v, lo, hi float64) {
	t.Helper()
	if v < lo || v > hi {
		t.Errorf("%s = %v, want it from %v to %v", what, v, lo, hi)
	}
}

// faultRows is the table: each fault the simulator produces on a flag, and what
// tpsmon's diagnosis says of it. docs/server.md shows the same commands. A row whose
// levels would hold to the default maximum (2 min: stalls, prompt lengths and queues
// keep tok/s from being known to ±5%, a confirmation's TTFT p95 undecided) caps them
// with --max-hold, long enough for its finding and figures; the slowest row sets the
// table's time, as the rows run at once.
var faultRows = []faultRow{
	{"server down and back", []string{"--down-after", "5s", "--down-for", "5s"}, []string{"--ramp", "2", "--hold", "15s", "--max-tokens", "64", "--full-ramp"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "server-down", `^the server was down for \d+ s: connections refused from \d+ s to \d+ s, \d+ requests failed$`)
			between(t, "outage", f.Last-f.First, 3.5, 7)
			want(t, r, "server-back", `^the server is back after \d+ s down: requests succeed again since \d+ s`)
		}},
	{"server down as a stop rule ends the ramp", []string{"--down-after", "8s"}, []string{"--ramp", "4", "--hold", "20s", "--max-tokens", "256"},
		func(t *testing.T, r *faultRun) {
			want(t, r, "server-stopped", `^the server stopped answering as the run ended: the last \d+ requests failed \(connections refused\) from \d+ s \(its last answer at \d+ s\); the run ended before tpsmon could tell for how long$`)
			if strings.Contains(r.stdout, "no cause was named") || !strings.Contains(r.stdout, "the ramp stopped at 4 users: errors") {
				t.Errorf("bench's Markdown:\n%s", r.stdout)
			}
		}},
	{"authentication refused", []string{"--refuse", "401"}, []string{"--ramp", "1", "--hold", "5s", "--max-tokens", "16"},
		func(t *testing.T, r *faultRun) {
			want(t, r, "auth-refused", `^authentication refused: HTTP 401 on all \d+ requests: no API key was sent$`)
		}},
	{"key without permission", []string{"--refuse", "403"}, []string{"--ramp", "1", "--hold", "5s", "--max-tokens", "16"},
		func(t *testing.T, r *faultRun) {
			want(t, r, "auth-refused", `^authentication refused: HTTP 403 on all \d+ requests`)
		}},
	{"nothing at this path", []string{"--refuse", "404"}, []string{"--ramp", "1", "--hold", "5s", "--max-tokens", "16"},
		func(t *testing.T, r *faultRun) {
			want(t, r, "not-found", `^HTTP 404 on all \d+ requests although /models lists "sim-14b-h100": nothing at this path`)
		}},
	{"rate limited", []string{"--slots", "2", "--max-queue", "1", "--retry-after", "2s"}, []string{"--ramp", "8", "--hold", "10s", "--max-tokens", "64", "--full-ramp"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "rate-limited", `^rate limited: the server answers HTTP 429 to \d+% of requests \(\d+ of \d+\) and asks to retry after 2\.00 s$`)
			between(t, "429 share %", number(f.Words, "HTTP 429 to "), 10, 90)
		}},
	{"server errors", []string{"--error-rate", "0.2"}, []string{"--ramp", "4", "--hold", "10s", "--max-tokens", "64", "--full-ramp"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "server-errors", `^server errors: HTTP 500 on \d+% of requests \(\d+ of \d+\)$`)
			between(t, "500 share %", number(f.Words, "HTTP 500 on "), 8, 35)
		}},
	{"streams cut mid-answer", []string{"--drop-rate", "0.2"}, []string{"--ramp", "4", "--hold", "10s", "--max-tokens", "64", "--full-ramp"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "streams-cut", `^streams cut mid-answer: \d+% of requests \(\d+ of \d+\) ended without a finish_reason or \[DONE\], typically after \d+ chunks$`)
			between(t, "cut share %", number(f.Words, "mid-answer: "), 8, 35)
		}},
	{"errors inside the stream", []string{"--stream-error-rate", "0.2"}, []string{"--ramp", "4", "--hold", "10s", "--max-tokens", "64", "--full-ramp"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "stream-errors", `^errors inside the stream: the server ended \d+% of streams \(\d+ of \d+\) with an error event: "simulated engine failure`)
			between(t, "stream error share %", number(f.Words, "ended "), 8, 35)
		}},
	{"stalls", []string{"--stall-rate", "0.3", "--stall-ms", "2000"}, []string{"--ramp", "4", "--hold", "15s", "--max-tokens", "128", "--max-hold", "30s"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "stalls", `^answers pause mid-stream: \d+% of requests \(\d+ of \d+\) paused, typically for 2\.0\d s`)
			between(t, "stalled share %", number(f.Words, "mid-stream: "), 12, 55)
		}},
	{"KV cache full", []string{"--kv-tokens", "3000"}, []string{"--ramp", "16", "--hold", "15s", "--max-tokens", "256"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "kv-full", `^the KV cache (is full|runs out) \(\d+%( used now)?\): the server preempts \d+\.\d sequences/s \(\d+ since the start\)$`)
			between(t, "preemptions since the start", number(f.Words, "sequences/s ("), 1, 1e6)
		}},
	{"requests queue on the server", []string{"--slots", "2"}, []string{"--ramp", "1,8", "--max-tokens", "64", "--max-hold", "15s"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "server-queue", `^TTFT rises to .* because requests queue on the server \(\d+ waiting, KV \d+%\)$`)
			between(t, "waiting", number(f.Words, "server ("), 2, 8)
		}},
	{"slow prefill", []string{"--prefill-ms-per-token", "1"}, []string{"--ramp", "1", "--hold", "15s", "--max-tokens", "16", "--prompt-tokens", "uniform:200:1500", "--max-hold", "30s"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "slow-prefill", `^slow prefill: TTFT grows \d\.\d+ ms per prompt token \(fit over \d+ requests with prompts of`)
			between(t, "ms per prompt token", number(f.Words, "TTFT grows "), 0.7, 1.4)
		}},
	{"a proxy buffers whole answers", []string{"--buffer-answers"}, []string{"--ramp", "2", "--hold", "10s", "--max-tokens", "64", "--max-hold", "20s"},
		func(t *testing.T, r *faultRun) {
			want(t, r, "buffered", `^answers arrive in one burst: every token of (all \d+ requests|\d+% of requests \(\d+ of \d+\)) came at once, .* per-user tok/s means nothing here`)
			if f, ok := r.find("other-traffic"); ok {
				t.Errorf("the first bursts, before the buffering was named, read as another client: %q", f.Words)
			}
		}},
	{"another client on the server", []string{"--other-users", "8"}, []string{"--ramp", "2", "--hold", "10s", "--max-tokens", "64", "--max-hold", "20s"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "other-traffic", `^another client uses the server: it generates \d+\.\dx the tokens tpsmon receives`)
			between(t, "server/received", number(f.Words, "generates "), 2, 12)
		}},
	{"a queue before the server", []string{"--proxy-limit", "1"}, []string{"--ramp", "1,4", "--max-tokens", "64", "--max-hold", "15s"},
		func(t *testing.T, r *faultRun) {
			want(t, r, "no-server-queue", `^TTFT rises to .* with no queue on the server: the time is spent between tpsmon and the server`)
		}},
	// The prefill is three times the datacenter profile's (0.15 ms a token, ~23 ms a prompt)
	// so that the 32 prompts prefilled together (~0.75 s) stand well clear of the rise's bar
	// (the low-load TTFT + 250 ms) on a busy machine too: at the profile's own 0.05 the burst
	// came to ~300 ms against a bar of ~270 ms, and a CI run under -race found no rise at all.
	// 256-token answers keep the 32 users in step, one burst a round (at 128, on a busy
	// machine, the burst split in two, one waiting on the other's prefill).
	{"a level's new users sent together", []string{"--prefill-ms-per-token", "0.15"}, []string{"--ramp", "1,32", "--refine=false", "--max-hold", "15s", "--max-tokens", "256"},
		func(t *testing.T, r *faultRun) {
			f := want(t, r, "sent-together", `^TTFT rises to \d+ ms \(\d+ ms at low load\) with no (lasting )?queue on the server( \(at most \d+ waiting, at \d+ of its last \d+ scrapes\))?: tpsmon sent \d+ requests within \d+ ms of each other, and the server prefills them together$`)
			between(t, "TTFT", number(f.Words, "rises to "), 450, 1200)
			between(t, "requests sent together", number(f.Words, "tpsmon sent "), 24, 32)
			between(t, "their sends' span (ms)", number(f.Words, " within "), 1, 40)
			if f.Severity != "" && f.Severity != "info" {
				t.Errorf("severity %q, want info", f.Severity)
			}
			if g, ok := r.find("no-server-queue"); ok {
				t.Errorf("the server's own prefill sent to the network: %q", g.Words)
			}
		}},
	{"healthy", nil, []string{"--ramp", "1,4", "--hold", "10s", "--max-tokens", "64"},
		func(t *testing.T, r *faultRun) {
			if len(r.findings) != 0 || strings.Contains(r.stderr, "diagnosis: ") {
				t.Errorf("a healthy run found %+v\nstderr:\n%s", r.findings, r.stderr)
			}
			if !regexp.MustCompile(`\nDiagnosis:\n- nothing wrong seen \(\d+ requests\)\n`).MatchString(r.stdout) {
				t.Errorf("bench's Markdown does not say nothing wrong was seen:\n%s", r.stdout)
			}
		}},
}

// TestDiagnosisFaultTable runs every row of the table through the program: tpsmon sim
// with the fault's flags, then tpsmon bench against it, and checks the finding's kind
// and key numbers in results.json (and that bench said it on stderr as it held). The
// rows run at once (each is mostly waiting on its simulator), then each is checked.
func TestDiagnosisFaultTable(t *testing.T) {
	t.Parallel()
	runs := make([]*faultRun, len(faultRows))
	var wg sync.WaitGroup
	for k, row := range faultRows {
		url, model := startSimCommand(t, row.sim...)
		out := filepath.Join(t.TempDir(), "results.json")
		wg.Go(func() { runs[k] = benchRow(t, row, url, model, out) })
	}
	wg.Wait()
	for k, row := range faultRows {
		t.Run(row.name, func(t *testing.T) {
			r := runs[k]
			t.Logf("tpsmon sim %s; tpsmon bench %s", strings.Join(row.sim, " "), strings.Join(row.bench, " "))
			if r.err != "" {
				t.Fatal(r.err)
			}
			for _, f := range r.findings {
				t.Logf("  %s (%s, %.0f-%.0f s): %s", f.Kind, f.Severity, f.First, f.Last, f.Words)
			}
			row.check(t, r)
		})
	}
}

// benchRow runs bench for a row against the simulator at url (on any goroutine: it
// reports a failure in faultRun.err).
func benchRow(t *testing.T, row faultRow, url, model, out string) *faultRun {
	args := append([]string{"bench", "--url", url, "--model", model, "--out", out}, row.bench...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := cli(t, ctx, nil, nil, args...)
	run := &faultRun{code: r.code, stdout: r.stdout, stderr: r.stderr}
	data, err := os.ReadFile(out)
	if err != nil {
		run.err = fmt.Sprintf("exit %d, no results.json: %v\nstderr:\n%s", r.code, err, r.stderr)
		return run
	}
	var rep struct {
		Endpoints []struct {
			Diagnosis []diagFinding `json:"diagnosis"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Endpoints) != 1 {
		run.err = fmt.Sprintf("results.json: %v", err)
		return run
	}
	run.findings = rep.Endpoints[0].Diagnosis
	return run
}

// TestBenchRefusesAnUnknownModel: bench asks /models first and refuses before any load
// when the model is not served, naming what is.
func TestBenchRefusesAnUnknownModel(t *testing.T) {
	t.Parallel()
	url, _ := startSimCommand(t)
	r := cli(t, nil, nil, nil, "bench", "--url", url, "--model", "gpt-x", "--ramp", "1", "--hold", "1s")
	want := `tpsmon: --model "gpt-x": ` + url + ` does not serve it; its /models lists: sim-14b-h100 (name one of them with --model)`
	if r.code != exitUsage || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "level 1/1") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q before any load", r.code, r.stderr, exitUsage, want)
	}
}

// TestBenchRefusesWithoutTheKey: a server that wants a key (tpsmon sim --auth-key) and
// none given: bench refuses at /models, before any load.
func TestBenchRefusesWithoutTheKey(t *testing.T) {
	t.Parallel()
	url, model := startSimCommand(t, "--auth-key", "sk-local")
	r := cli(t, nil, nil, nil, "bench", "--url", url, "--model", model, "--ramp", "1", "--hold", "1s")
	if r.code != exitUnusable || !strings.Contains(r.stderr, "http 401 Unauthorized: the server wants an API key and none was sent") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	r = cli(t, nil, map[string]string{"OPENAI_API_KEY": "sk-local"}, nil, "bench", "--url", url, "--model", model, "--ramp", "1", "--hold", "1s", "--max-tokens", "8")
	if r.code != exitOK {
		t.Errorf("with the key: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestDiagnosisTableInDocs: docs/server.md's table "fault -> what tpsmon says" shows
// each row's commands exactly as TestDiagnosisFaultTable runs them, and no other row.
func TestDiagnosisTableInDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "server.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "### Fault: what tpsmon says")
	if !ok {
		t.Fatal(`docs/server.md has no "Fault: what tpsmon says" section`)
	}
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "`tpsmon sim") {
			rows++
		}
	}
	for _, row := range faultRows {
		cmd := strings.TrimSpace("`tpsmon sim "+strings.Join(row.sim, " ")) + "` / `tpsmon bench " + strings.Join(row.bench, " ") + "`"
		if !strings.Contains(table, "| "+cmd+" |") {
			t.Errorf("the table has no row with %s (%s)", cmd, row.name)
		}
	}
	if rows != len(faultRows) {
		t.Errorf("the table has %d rows with commands, the test %d", rows, len(faultRows))
	}
}
