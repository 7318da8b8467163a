package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/settings"
)

// TestConfigRunKeys: the config's ramp keys set what --max-hold, --settle,
// --max-duration and --full-ramp set, the flags given override them, and workload.seed
// sets what --seed sets.
func TestConfigRunKeys(t *testing.T) {
	path := writeFile(t, "run.yaml", `ramp:
  levels: [1, 2]
  hold: 5s
  max_hold: 40s
  settle: 3
  max_duration: 10m
  full_ramp: true
workload: {seed: 42}
`)
	p, _ := planAndOutput(t, secretEnv, "--config", path)
	if p.Ramp.MaxHold != 40*time.Second || p.Settle != 3 || p.MaxDuration != 10*time.Minute || !p.FullRamp || p.Template.PromptSeed != 42 {
		t.Errorf("from the config: max hold %s, settle %d, max duration %s, full ramp %v, seed %d", p.Ramp.MaxHold, p.Settle, p.MaxDuration, p.FullRamp, p.Template.PromptSeed)
	}
	p, _ = planAndOutput(t, secretEnv, "--config", path, "--max-hold", "1m", "--settle", "capacity", "--max-duration", "1h", "--seed", "7")
	if p.Ramp.MaxHold != time.Minute || p.Settle != engine.SettleCapacity || p.MaxDuration != time.Hour || p.Template.PromptSeed != 7 {
		t.Errorf("flags over the config: max hold %s, settle %d, max duration %s, seed %d", p.Ramp.MaxHold, p.Settle, p.MaxDuration, p.Template.PromptSeed)
	}
	p, _ = planAndOutput(t, secretEnv, "bench", "--config", path, "--full-ramp=false")
	if p.FullRamp {
		t.Error("--full-ramp=false did not override the config's full_ramp: true")
	}
}

// TestConfigRunKeysRefused: a bad value of the new keys is refused at its file and line,
// as the flag's would be.
func TestConfigRunKeysRefused(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"ramp:\n  hold: 10s\n  max_hold: 5s\n", `line 3: ramp.max_hold "5s": the maximum hold must be at least the hold (10s)`},
		{"ramp:\n  max_hold: -5s\n", "line 2: ramp.max_hold: want a duration with a unit"},
		{"ramp:\n  settle: lots\n", `line 2: ramp.settle: want capacity, 0 (stop the load) or a number of users up to 10000, got "lots"`},
		{"ramp:\n  max_duration: forever\n", "line 2: ramp.max_duration: want a duration"},
		{"ramp:\n  full_ramp: maybe\n", "line 2"},
		{"workload:\n  seed: -1\n", `line 2: workload.seed: want a whole number of 0 or more (0: a new random seed each run), got "-1"`},
	} {
		path := writeFile(t, "bad.yaml", tt.yaml)
		r := cli(t, nil, secretEnv, func(*settings.Plan) error { return errors.New("planned") }, "bench", "--config", path)
		if r.code != exitUsage || !strings.Contains(r.stderr, "config "+path+": ") || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tt.yaml, r.code, r.stderr, tt.want)
		}
	}
}

// TestSeed: with no seed given every run draws its own (never 0, exact in JSON); a seed
// given is used as is; a prompt given is sent as is, with no seed. bench records the
// seed in results.json so that the run can be repeated.
func TestSeed(t *testing.T) {
	p1, _ := planAndOutput(t, secretEnv, "bench")
	p2, _ := planAndOutput(t, secretEnv, "bench")
	s1, s2 := p1.Template.PromptSeed, p2.Template.PromptSeed
	if s1 == 0 || s2 == 0 || s1 == s2 || s1 >= maxExactSeed || s2 >= maxExactSeed {
		t.Errorf("random seeds %d and %d: want two different ones in [1, 2^53)", s1, s2)
	}
	if p, _ := planAndOutput(t, secretEnv, "bench", "--prompt", "hi", "--seed", "5"); p.Template.PromptSeed != 0 {
		t.Errorf("--prompt: seed %d, want none", p.Template.PromptSeed)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	r := cli(t, nil, secretEnv, nil, "bench", "--ramp", "1", "--hold", "100ms", "--max-hold", "1s", "--max-tokens", "4", "--seed", "1234", "--out", out)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	settings := readReport(t, out)["settings"].(map[string]any)
	if settings["seed"] != float64(1234) {
		t.Errorf("settings.seed = %v, want 1234", settings["seed"])
	}
	if !strings.Contains(r.stdout, "prompt seed 1234") {
		t.Errorf("the Markdown does not name the seed:\n%s", r.stdout)
	}
}

// maxExactSeed bounds the random seeds: below 2^53 every JSON reader holds them exactly.
const maxExactSeed = 1 << 53

// limitedCLI is cli with the open-files limit replaced by lim.
func limitedCLI(t *testing.T, lim settings.StreamLimit, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv:  func(k string) string { return secretEnv[k] },
		planned: func(*settings.Plan) error { return errors.New("planned") },
		limit:   func() settings.StreamLimit { return lim }}
	code := a.execute(context.Background(), args)
	return result{code, stdout.String(), stderr.String()}
}

// TestStreamLimitRefused: a concurrency the process cannot hold is refused before the
// run, saying why and what to do, for --users, --ramp, the config's levels and settle,
// summed over the endpoints loaded together.
func TestStreamLimitRefused(t *testing.T) {
	lim := settings.StreamLimit{Max: 462, Soft: 1024}
	two := writeFile(t, "two.yaml", `endpoints:
  - {url: "http://127.0.0.1:8000/v1", model: m}
  - {url: "http://127.0.0.1:8001/v1", model: m}
ramp:
  levels: [1, 300]
`)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--users", "20000"}, []string{"tpsmon: --users 20000: this process can hold at most 462 concurrent streams", "ulimit -n) is 1024"}},
		{[]string{"bench", "--ramp", "1,500"}, []string{"tpsmon: --ramp: level 500: this process can hold at most 462"}},
		{[]string{"bench", "--config", two}, []string{"ramp.levels: level 300 on each of 2 endpoints loaded together is 600 streams", "at most 462"}},
		{[]string{"--settle", "500"}, []string{"settle at 500 users: this process can hold at most 462"}},
	} {
		r := limitedCLI(t, lim, tt.args...)
		for _, w := range tt.want {
			if r.code != exitUsage || !strings.Contains(r.stderr, w) {
				t.Errorf("%v: exit %d, stderr %q; want %q", tt.args, r.code, r.stderr, w)
			}
		}
	}
	if r := limitedCLI(t, lim, "bench", "--ramp", "1,400"); r.code != exitUsage || !strings.Contains(r.stderr, "planned") {
		t.Errorf("a ramp that fits was refused: exit %d, %s", r.code, r.stderr)
	}
	var got *settings.Plan
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" },
		planned: func(p *settings.Plan) error { got = p; return errors.New("planned") }, limit: func() settings.StreamLimit { return lim }}
	a.execute(context.Background(), []string{"bench"})
	if got == nil || got.Engine().MaxStreams != 462 {
		t.Error("the engine is not given the limit (the screen's keys stop there)")
	}
}

// TestSeedAndURLWords: a seed that is not one says what a seed is and what to write,
// not strconv's words; a URL whose scheme is misspelled or lacks its // says so and
// suggests the URL meant, not "http://htp:/bad".
func TestSeedAndURLWords(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--seed", "-1"}, `invalid argument "-1" for "--seed" flag: want a whole number from 0 to 18446744073709551615 (2^64-1)`},
		{[]string{"bench", "--seed", "18446744073709551616"}, "want a whole number from 0 to 18446744073709551615"},
		{[]string{"--seed", "x"}, "0 or no --seed draws a new seed each run"},
		{[]string{"bench", "--url", "htp:/bad"}, `--url "htp:/bad": is malformed: the scheme "htp" is not http or https (a typo?); write e.g. --url http://bad`},
		{[]string{"bench", "--url", "http:/127.0.0.1:8000/v1"}, "a scheme is followed by // (http://, not http:/); write e.g. --url http://127.0.0.1:8000/v1"},
	} {
		r := cli(t, nil, secretEnv, func(*settings.Plan) error { return errors.New("planned") }, tt.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "strconv") || strings.Contains(r.stderr, "http://htp") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
		checkClean(t, r)
	}
	path := writeFile(t, "url.yaml", "endpoints:\n  - url: htps://127.0.0.1:8443\n")
	r := cli(t, nil, secretEnv, nil, "bench", "--config", path)
	if want := `line 2: endpoints[0].url "htps://127.0.0.1:8443": is malformed: the scheme "htps" is not http or https (a typo?); write e.g. url: https://127.0.0.1:8443`; r.code != exitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("config: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
}
