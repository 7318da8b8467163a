package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/settings"
)

// Distinctive secrets: they must never appear in any output.
const (
	testKey       = "sk-tpsmon-TEST-key-5f1c9e"
	testHeaderVal = "hdr-TEST-secret-8d2b"
)

type result struct {
	code           int
	stdout, stderr string
}

// cli runs tpsmon in-process with args, the environment env (nothing else), and no
// terminal. hook, when set, is the app's planned hook.
func cli(t *testing.T, ctx context.Context, env map[string]string, hook func(*settings.Plan) error, args ...string) result {
	t.Helper()
	if ctx == nil {
		ctx = context.Background()
	}
	var stdout, stderr bytes.Buffer
	a := &app{
		stdin:   strings.NewReader(""),
		stdout:  &stdout,
		stderr:  &stderr,
		getenv:  func(k string) string { return env[k] },
		planned: hook,
	}
	code := a.execute(ctx, args)
	return result{code, stdout.String(), stderr.String()}
}

// checkClean fails when an output shows a panic, a stack trace, a usage dump or a secret.
func checkClean(t *testing.T, r result) {
	t.Helper()
	all := r.stdout + r.stderr
	for _, bad := range []string{"panic", "goroutine ", ".go:", "Usage:", "Flags:", testKey, testHeaderVal} {
		if strings.Contains(all, bad) {
			t.Errorf("output contains %q:\nstdout: %s\nstderr: %s", bad, r.stdout, r.stderr)
		}
	}
}

var secretEnv = map[string]string{"OPENAI_API_KEY": testKey, "MY_KEY": testKey}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string // substrings of stderr
	}{
		{"unknown flag", nil, []string{"--bogus"}, []string{"unknown flag: --bogus", "tpsmon --help"}},
		{"unknown bench flag", nil, []string{"bench", "--bogus"}, []string{"unknown flag: --bogus", "tpsmon bench --help"}},
		{"unknown command", nil, []string{"benchh"}, []string{`unknown command "benchh"`}},
		{"bad flag value", nil, []string{"bench", "--max-tokens", "many"}, []string{"--max-tokens", "many"}},
		{"url without scheme", nil, []string{"bench", "--url", "localhost:8000"}, []string{"--url", "http://localhost:8000"}},
		{"url without host", nil, []string{"bench", "--url", "http://"}, []string{"--url", "no host"}},
		{"url ftp", nil, []string{"bench", "--url", "ftp://127.0.0.1/v1"}, []string{"--url", "http:// or https://"}},
		{"url chat endpoint", nil, []string{"bench", "--url", "http://127.0.0.1:8000/v1/chat/completions"}, []string{"--url", "API base", "--url http://127.0.0.1:8000/v1"}},
		{"url completions endpoint", nil, []string{"bench", "--url", "http://127.0.0.1:8000/v1/completions/"}, []string{"--url", "--url http://127.0.0.1:8000/v1"}},
		{"url models endpoint", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:8000/openai/v1/models"}, []string{"bench"}, []string{"$OPENAI_BASE_URL", "write e.g. OPENAI_BASE_URL=http://127.0.0.1:8000/openai/v1"}},
		{"url unparsable password hidden", nil, []string{"bench", "--url", "http://me:" + testKey + "@127.0.0.1:80x/v1"}, []string{`--url "http://127.0.0.1:80x/v1"`, "invalid port"}},
		{"url no scheme password hidden", nil, []string{"bench", "--url", "me:" + testKey + "@127.0.0.1:8000"}, []string{`--url "127.0.0.1:8000"`, "write e.g. --url http://127.0.0.1:8000"}},
		{"url query hidden", nil, []string{"bench", "--url", "http://127.0.0.1:8000/v1?api-key=" + testKey}, []string{"--url", "http://127.0.0.1:8000/v1?…", "no ?query"}},
		{"url bad port", nil, []string{"bench", "--url", "http://127.0.0.1:99999/v1"}, []string{"--url", "port"}},
		{"url password hidden", nil, []string{"bench", "--url", "http://me:" + testKey + "@127.0.0.1:0/v1?x=1"}, []string{`--url "http://127.0.0.1:0/v1"`, "port"}},
		{"bad base url env", map[string]string{"OPENAI_BASE_URL": "127.0.0.1:8000"}, []string{"bench"}, []string{"$OPENAI_BASE_URL"}},
		{"bad ramp word", nil, []string{"bench", "--ramp", "1,x,4"}, []string{"--ramp", `"x"`, "1,2,4,8"}},
		{"bad ramp zero", nil, []string{"bench", "--ramp", "0"}, []string{"--ramp", "at least 1"}},
		{"bad ramp empty", nil, []string{"bench", "--ramp", ""}, []string{"--ramp"}},
		{"bad ramp screen", nil, []string{"--ramp", "2,-4"}, []string{"--ramp", `"-4"`}},
		{"bad hold", nil, []string{"bench", "--hold", "0s"}, []string{"--hold", "positive"}},
		{"bad api", nil, []string{"bench", "--api", "embeddings"}, []string{"--api", "want chat (/chat/completions), completions (/completions), messages (Anthropic's /messages) or responses"}},
		{"bad theme", nil, []string{"--theme", "neon"}, []string{"--theme", `unknown theme "neon"`, "colorblind"}},
		{"bad max tokens", nil, []string{"bench", "--max-tokens", "0"}, []string{"--max-tokens", "tokens from 1"}},
		{"bad slo key", nil, []string{"bench", "--slo", "tps>=3"}, []string{"--slo", `unknown term "tps"`}},
		{"bad slo number", nil, []string{"bench", "--slo", "user_tps_p50>=fast"}, []string{"--slo", `"fast"`}},
		{"bad slo unit", nil, []string{"bench", "--slo", "ttft_p95<=2"}, []string{"--slo", "unit"}},
		{"bad slo op", nil, []string{"bench", "--slo", "ttft_p95>=2s"}, []string{"--slo", "maximum"}},
		{"bad slo rate", nil, []string{"bench", "--slo", "error_rate<=150%"}, []string{"--slo", "150%"}},
		{"bad slo no op", nil, []string{"bench", "--slo", "user_tps_p50"}, []string{"--slo", "NAME>=VALUE"}},
		{"bad extra body", nil, []string{"bench", "--extra-body", `{"temperature":`}, []string{"--extra-body", "not valid JSON", "unexpected end of JSON input"}},
		{"extra body not object", nil, []string{"bench", "--extra-body", `[1,2]`}, []string{"--extra-body", "JSON object", "array"}},
		{"header no colon", nil, []string{"bench", "--header", "Authorization=" + testHeaderVal}, []string{"--header", "Name: value"}},
		{"header empty name", nil, []string{"bench", "--header", ": " + testHeaderVal}, []string{"--header", "empty"}},
		{"header bad name", nil, []string{"bench", "--header", "X Team: " + testHeaderVal}, []string{`--header "X Team"`, "not a valid header name"}},
		// Found by FuzzParseHeader: net/http refuses to send a DEL or any control
		// character but a tab, so every request would fail.
		{"header DEL in value", nil, []string{"bench", "--header", "X-A: " + testHeaderVal + "\x7f"}, []string{`--header "X-A"`, "control character"}},
		{"header control in value", nil, []string{"bench", "--header", "X-A: a\x01" + testHeaderVal}, []string{`--header "X-A"`, "control character"}},
		{"empty key env", nil, []string{"bench", "--api-key-env", ""}, []string{"--api-key-env"}},
		// The key itself given where its variable's name belongs: never echo it.
		{"key as key env", nil, []string{"bench", "--url", "http://127.0.0.1:8000/v1", "--api-key-env", testKey}, []string{"--api-key-env", "name of an environment variable"}},
		{"key as key env, sim", nil, []string{"bench", "--api-key-env", "Bearer " + testKey}, []string{"--api-key-env", "name of an environment variable"}},
		{"out dir missing", nil, []string{"bench", "--out", filepath.Join(dir, "nope", "r.json")}, []string{"--out", "does not exist"}},
		{"out is a directory", nil, []string{"bench", "--out", dir}, []string{"--out " + dir, "is a directory"}},
		{"csv is a directory", nil, []string{"bench", "--csv", dir + "/"}, []string{"--csv", "is a directory"}},
		{"out and csv the same file", nil, []string{"bench", "--out", filepath.Join(dir, "r"), "--csv", filepath.Join(dir, ".", "r")}, []string{"--out", "--csv", "same file"}},
		{"min capacity", nil, []string{"bench", "--min-capacity", "-1"}, []string{"--min-capacity"}},
		{"sim slots", nil, []string{"sim", "--slots", "0"}, []string{"--slots 0", "at least 1"}},
		{"sim jitter", nil, []string{"sim", "--jitter", "2"}, []string{"--jitter"}},
		{"sim addr", nil, []string{"sim", "--addr", "8000"}, []string{"--addr", "host:port"}},
		{"sim profile", nil, []string{"sim", "--profile", "no-such-profile"}, []string{"--profile", "no-such-profile"}},
		{"sim url flag", nil, []string{"sim", "--url", "http://127.0.0.1:1"}, []string{"unknown flag: --url"}},
		{"version args", nil, []string{"version", "extra"}, []string{`unexpected argument "extra"`, "tpsmon version --help"}},
		{"bench args", nil, []string{"bench", "http://127.0.0.1:8000/v1"}, []string{`unexpected argument "http://127.0.0.1:8000/v1"`, "tpsmon bench --help"}},
		{"bench profile", nil, []string{"bench", "--profile", "no-such-profile"}, []string{"--profile", "no-such-profile", "datacenter"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"OPENAI_API_KEY": testKey}
			for k, v := range tt.env {
				env[k] = v
			}
			called := false
			r := cli(t, nil, env, func(*settings.Plan) error { called = true; return errors.New("planned") }, tt.args...)
			if r.code != exitUsage {
				t.Errorf("exit code %d, want %d; stderr: %s", r.code, exitUsage, r.stderr)
			}
			if called {
				t.Errorf("the run was planned despite the bad input")
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
			if !strings.HasPrefix(r.stderr, "tpsmon: ") {
				t.Errorf("stderr does not start with \"tpsmon: \": %q", r.stderr)
			}
			if n := strings.Count(r.stderr, "\n"); n > 2 {
				t.Errorf("stderr has %d lines, want at most 2:\n%s", n, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout is not empty: %q", r.stdout)
			}
			if n := strings.Count(r.stderr, "small-gpu"); n > 1 {
				t.Errorf("stderr lists the profiles %d times:\n%s", n, r.stderr)
			}
			checkClean(t, r)
		})
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"unknown key", "endpoints:\n  - name: a\n    url: http://127.0.0.1:8000/v1\n    modle: x\n",
			[]string{"line 4", `unknown key "modle"`}},
		{"unknown top key", "ramps: {levels: [1]}\n", []string{"line 1", `unknown key "ramps"`}},
		// yaml.v3 gives syntax errors no line on line 1, and counts some from 0: the
		// line must be the one to fix (where the unclosed bracket or the tab is).
		{"syntax error", "endpoints:\n  - name: a\n    url: [http://x\nramp: {hold: 1s}\n", []string{"line 3: ", "did not find expected"}},
		{"unclosed flow mapping", "workload: {max_tokens: 8}\nramp: {levels: [1, 2], hold: 1s\n", []string{"line 2: ", "did not find expected"}},
		{"syntax error on line 1", "ramp: levels: [1]\n", []string{"line 1: ", "mapping values are not allowed"}},
		{"unclosed quote", "workload:\n  max_tokens: 8\n  prompt: \"hello\n", []string{"line 3: ", "end of stream"}},
		{"tab indentation", "workload:\n\tmax_tokens: 3\n", []string{"line 2: "}},
		{"tab indentation later", "workload:\n  max_tokens: 3\n\tprompt: x\n", []string{"line 3: "}},
		{"unknown alias", "workload:\n  max_tokens: 8\n  prompt: *p\n", []string{"line 3: ", "unknown anchor 'p'"}},
		{"duplicate key", "ramp:\n  hold: 1s\n  hold: 2s\n", []string{"line 3: ", `"hold" already defined at line 2`}},
		{"extra_body a list", "endpoints:\n  - url: http://127.0.0.1:8000/v1\n    extra_body: [1]\n", []string{"line 3: ", "found a list, want a mapping (key: value)\n"}},
		{"bad type", "workload:\n  max_tokens: many\n", []string{"line 2", "workload.max_tokens", `"many"`}},
		{"bad bool", "workload:\n  ignore_eos: maybe\n", []string{"line 2", `"maybe"`, "true or false"}},
		{"bad duration", "ramp:\n  levels: [1, 2]\n  hold: 15\n", []string{"line 3", "ramp.hold", "15s"}},
		{"bad level", "ramp:\n  levels: [1, 0]\n", []string{"line 2", "ramp.levels[1]"}},
		{"bad api", "endpoints:\n  - url: http://127.0.0.1:8000/v1\n    api: embeddings\n", []string{"line 3", "endpoints[0].api", "want chat (/chat/completions), completions (/completions), messages"}},
		{"bad rate", "slo:\n  error_rate_max: 5\n", []string{"line 2", "slo.error_rate_max"}},
		// The config accepts exactly what --slo accepts: no infinity, NaN or negative.
		{"slo inf", "slo: {user_tps_p50_min: .inf}\n", []string{"line 1", "slo.user_tps_p50_min", "+Inf", "finite"}},
		{"slo nan", "slo:\n  user_tps_p50_min: .nan\n", []string{"line 2", "slo.user_tps_p50_min", "NaN"}},
		{"slo negative", "slo:\n  user_tps_p50_min: -3\n", []string{"line 2", "slo.user_tps_p50_min", "-3"}},
		{"slo not a number", "slo:\n  user_tps_p50_min: fast\n", []string{"line 2", "slo.user_tps_p50_min", `"fast"`}},
		{"slo rate inf", "slo:\n  error_rate_max: .inf\n", []string{"line 2", "slo.error_rate_max"}},
		{"slo ttft negative", "slo:\n  ttft_p95_max: -1s\n", []string{"line 2", "slo.ttft_p95_max"}},
		{"slo ttfo negative", "slo:\n  ttfo_p95_max: -1s\n", []string{"line 2", "slo.ttfo_p95_max"}},
		{"endpoints not a list", "endpoints: {a: 1}\n", []string{"line 1", "want a list"}},
		{"not a mapping", "- a\n- b\n", []string{"line 1", "mapping"}},
		{"missing url", "workload: {max_tokens: 8}\nendpoints:\n  - name: a\n    url: http://127.0.0.1:8000/v1\n  - name: b\n    model: m\n", []string{"line 5", "endpoints[1] (b)", "url is required"}},
		{"malformed url", "endpoints:\n  - url: 127.0.0.1:8000\n", []string{"line 2", "endpoints[0]", "http://"}},
		{"url names an endpoint", "endpoints:\n  - name: a\n    url: http://127.0.0.1:8000/v1/chat/completions\n",
			[]string{"line 3: endpoints[0].url (a) \"http://127.0.0.1:8000/v1/chat/completions\": names an API endpoint", "write e.g. url: http://127.0.0.1:8000/v1"}},
		{"key as api_key_env", "endpoints:\n  - url: http://127.0.0.1:8000/v1\n    api_key_env: " + testKey + "\n", []string{"line 3: ", "api_key_env", "name of an environment variable"}},
		{"bad header name", "endpoints:\n  - url: http://127.0.0.1:8000/v1\n    headers: {\"X Y\": " + testHeaderVal + "}\n", []string{"line 2", `headers: "X Y": not a valid header name`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "tpsmon.yaml", tt.yaml)
			for _, cmd := range [][]string{{"bench"}, {}} {
				r := cli(t, nil, secretEnv, func(*settings.Plan) error { return errors.New("planned") }, append(cmd, "--config", path)...)
				if r.code != exitUsage {
					t.Errorf("%v: exit code %d, want 2; stderr: %s", cmd, r.code, r.stderr)
				}
				for _, w := range append([]string{"config " + path + ": "}, tt.want...) {
					if !strings.Contains(r.stderr, w) {
						t.Errorf("%v: stderr does not say %q:\n%s", cmd, w, r.stderr)
					}
				}
				checkClean(t, r)
			}
		})
	}

	t.Run("unreadable", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "missing.yaml")
		r := cli(t, nil, nil, nil, "bench", "--config", path)
		if r.code != exitUsage || !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, "cannot read") {
			t.Errorf("exit %d, stderr %q; want 2 and the file name", r.code, r.stderr)
		}
	})
}

// planOf resolves args without running anything.
func planOf(t *testing.T, env map[string]string, args ...string) *settings.Plan {
	t.Helper()
	p, _ := planAndOutput(t, env, args...)
	return p
}

func planAndOutput(t *testing.T, env map[string]string, args ...string) (*settings.Plan, result) {
	t.Helper()
	var got *settings.Plan
	stop := errors.New("stop")
	r := cli(t, nil, env, func(p *settings.Plan) error { got = p; return stop }, args...)
	if got == nil {
		t.Fatalf("not planned: exit %d, stderr %s", r.code, r.stderr)
	}
	checkClean(t, r)
	return got, r
}

func TestConfigEndpoints(t *testing.T) {
	path := writeFile(t, "endpoints.yaml", `# two servers compared side by side
endpoints:
  - name: a100
    url: http://127.0.0.1:8000/v1
    model: llama-8b
    api_key_env: MY_KEY
    headers: {X-Team: perf}
    extra_body: {temperature: 0, min_tokens: 64}
  - url: https://127.0.0.1:8443
    model: qwen
    api: completions
    insecure: true
workload: {max_tokens: 300, prompt_tokens: 500, ignore_eos: true, timeout: 30s, prompt: "Tell a story"}
ramp: {levels: [1, 4, 16], hold: 20s}
slo: {user_tps_p50_min: 25, ttft_p95_max: 1500ms, error_rate_max: 2%}
`)
	env := map[string]string{"MY_KEY": testKey, "OPENAI_API_KEY": "other-key"}

	p := planOf(t, env, "bench", "--config", path)
	if p.Simulate || len(p.Endpoints) != 2 {
		t.Fatalf("simulate %v, %d endpoints; want 2 real endpoints", p.Simulate, len(p.Endpoints))
	}
	a, b := p.Endpoints[0], p.Endpoints[1]
	checks := []struct {
		what      string
		got, want any
	}{
		{"a.Name", a.Name, "a100"},
		{"a.BaseURL", a.BaseURL, "http://127.0.0.1:8000/v1"},
		{"a.Model", a.Model, "llama-8b"},
		{"a.API", a.API, "chat"},
		{"a.APIKey from MY_KEY", a.APIKey, testKey},
		{"a.Headers", a.Headers.Get("X-Team"), "perf"},
		{"a.ExtraBody.temperature", a.ExtraBody["temperature"], 0},
		{"a.ExtraBody.min_tokens", a.ExtraBody["min_tokens"], 64},
		{"a.Insecure", a.Insecure, false},
		{"b.Name (host)", b.Name, "127.0.0.1:8443"},
		{"b.BaseURL (/v1 added)", b.BaseURL, "https://127.0.0.1:8443/v1"},
		{"b.API", b.API, "completions"},
		{"b.APIKey from OPENAI_API_KEY", b.APIKey, "other-key"},
		{"b.Insecure", b.Insecure, true},
		{"MaxTokens", b.MaxTokens, 300},
		{"PromptTokens", a.PromptTokens, 500},
		{"Prompt", a.Prompt, "Tell a story"},
		{"IgnoreEOS", b.IgnoreEOS, true},
		{"Timeout", a.Timeout, 30 * time.Second},
		{"ramp", p.Ramp.Levels, []int{1, 4, 16}},
		{"hold", p.Ramp.Hold, 20 * time.Second},
		{"slo", p.SLO, model.SLO{UserTPSMin: 25, TTFTP95Max: 1500 * time.Millisecond, ErrorRateMax: 0.02}},
	}
	for _, c := range checks {
		if !equal(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.what, c.got, c.want)
		}
	}

	// Flags given explicitly override the config; the others keep it.
	p = planOf(t, env, "bench", "--config", path, "--max-tokens", "32", "--ramp", "2,8", "--model", "m2",
		"--header", "X-Team: infra", "--extra-body", `{"temperature":0.5}`, "--slo", "ttft_p95<=3s", "--api-key-env", "OPENAI_API_KEY")
	a, b = p.Endpoints[0], p.Endpoints[1]
	checks = []struct {
		what      string
		got, want any
	}{
		{"MaxTokens", a.MaxTokens, 32},
		{"PromptTokens (config)", a.PromptTokens, 500},
		{"ramp", p.Ramp.Levels, []int{2, 8}},
		{"hold (config)", p.Ramp.Hold, 20 * time.Second},
		{"a.Model", a.Model, "m2"},
		{"b.Model", b.Model, "m2"},
		{"a.Headers", a.Headers.Get("X-Team"), "infra"},
		{"b.Headers", b.Headers.Get("X-Team"), "infra"},
		{"a.ExtraBody.temperature", a.ExtraBody["temperature"], 0.5},
		{"a.ExtraBody.min_tokens (config)", a.ExtraBody["min_tokens"], 64},
		{"a.APIKey", a.APIKey, "other-key"},
		{"slo", p.SLO, model.SLO{UserTPSMin: 25, TTFTP95Max: 3 * time.Second, ErrorRateMax: 0.02}},
	}
	for _, c := range checks {
		if !equal(c.got, c.want) {
			t.Errorf("with flags: %s = %#v, want %#v", c.what, c.got, c.want)
		}
	}

	// --url replaces the config's endpoints with one.
	p = planOf(t, env, "bench", "--config", path, "--url", "http://127.0.0.1:9000/v1", "--model", "x")
	if len(p.Endpoints) != 1 || p.Endpoints[0].BaseURL != "http://127.0.0.1:9000/v1" || p.Endpoints[0].MaxTokens != 300 {
		t.Errorf("--url with --config: %+v", p.Endpoints)
	}
}

func equal(a, b any) bool {
	switch b := b.(type) {
	case []int:
		a, ok := a.([]int)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	case int:
		// YAML and JSON numbers decode as int or float64.
		switch a := a.(type) {
		case int:
			return a == b
		case float64:
			return a == float64(b)
		}
		return false
	}
	return a == b
}

func TestEndpointSources(t *testing.T) {
	// No endpoint anywhere: the simulator, with the default workload and ramp.
	p := planOf(t, nil, "bench")
	if !p.Simulate || len(p.Endpoints) != 0 || p.Profile == "" {
		t.Errorf("no endpoint: simulate %v, endpoints %d, profile %q", p.Simulate, len(p.Endpoints), p.Profile)
	}
	if !equal(p.Ramp.Levels, []int{1, 2, 4, 8, 16, 32}) || p.Ramp.Hold != 5*time.Second || p.SLO != model.DefaultSLO {
		t.Errorf("bench defaults: ramp %v hold %s slo %+v", p.Ramp.Levels, p.Ramp.Hold, p.SLO)
	}
	if p.Template.MaxTokens != 128 || p.Template.PromptTokens != 128 || p.Template.Timeout != 60*time.Second {
		t.Errorf("workload defaults: %+v", p.Template)
	}
	p = planOf(t, nil)
	if !equal(p.Ramp.Levels, []int{1, 2, 4, 8, 16, 32, 64}) || p.Ramp.Hold != 5*time.Second {
		t.Errorf("screen defaults: ramp %v hold %s", p.Ramp.Levels, p.Ramp.Hold)
	}

	// OPENAI_BASE_URL when --url is absent; --url wins over it.
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:7000/v1", "OPENAI_API_KEY": testKey}
	p = planOf(t, env, "bench", "--model", "m")
	if p.Simulate || len(p.Endpoints) != 1 || p.Endpoints[0].BaseURL != "http://127.0.0.1:7000/v1" || p.Endpoints[0].APIKey != testKey {
		t.Errorf("OPENAI_BASE_URL: %+v", p.Endpoints)
	}
	p = planOf(t, env, "bench", "--url", "http://127.0.0.1:7001/", "--header", "Authorization: Bearer "+testHeaderVal)
	if ep := p.Endpoints[0]; ep.BaseURL != "http://127.0.0.1:7001/v1" || ep.Headers.Get("Authorization") != "Bearer "+testHeaderVal {
		t.Errorf("--url: %+v", ep)
	}

	// Notes for settings that do nothing.
	_, r := planAndOutput(t, env, "bench", "--url", "http://127.0.0.1:7001/v1", "--api-key-env", "NO_SUCH_KEY", "--profile", "x")
	for _, w := range []string{"$NO_SUCH_KEY is empty or unset", `--profile "x" is ignored`} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
	// --model without an endpoint (a forgotten --url): the simulator serves its own model.
	_, r = planAndOutput(t, nil, "bench", "--model", "my-model")
	if w := `--model "my-model" is ignored`; !strings.Contains(r.stderr, w) || !strings.Contains(r.stderr, "--url") {
		t.Errorf("stderr does not say %q and name --url:\n%s", w, r.stderr)
	}
}

func TestNoTerminal(t *testing.T) {
	// Buffers are not terminals; neither is /dev/null (a character device).
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	for _, stdin := range []any{strings.NewReader(""), devnull} {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: stdin.(interface{ Read([]byte) (int, error) }), stdout: &stdout, stderr: &stderr,
			getenv: func(string) string { return "" }}
		code := a.execute(context.Background(), nil)
		if code != exitUsage {
			t.Errorf("exit %d, want 2", code)
		}
		want := "tpsmon: the live screen needs a terminal; for scripts and CI use `tpsmon bench`\n"
		if stderr.String() != want || stdout.Len() != 0 {
			t.Errorf("stderr %q stdout %q; want %q", stderr.String(), stdout.String(), want)
		}
	}
}

func TestVersion(t *testing.T) {
	r := cli(t, nil, nil, nil, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "tpsmon dev ") || !strings.Contains(r.stdout, runtime.Version()) {
		t.Errorf("version: exit %d, stdout %q", r.code, r.stdout)
	}
	r = cli(t, nil, nil, nil, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "bench") || !strings.Contains(r.stdout, "--url") {
		t.Errorf("--help: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	pr := newProgressPrinter(&buf, 2)
	if pr.tty {
		t.Fatal("a buffer is not a terminal")
	}
	live := model.Live{AggregateTPS: 812, UserTPS: 203, HasUser: true, TTFTP95: 120 * time.Millisecond, HasTTFT: true}
	pr.update(engine.Progress{Endpoint: 0, Name: "a", Level: 1, Levels: 2, Concurrency: 1, Hold: time.Second, LevelChange: true})
	pr.update(engine.Progress{Endpoint: 0, Name: "a", Level: 1, Levels: 2, Concurrency: 1, Hold: time.Second, Live: live})
	pr.update(engine.Progress{Endpoint: 1, Name: "b", Level: 2, Levels: 2, Concurrency: 4, Hold: time.Second, LevelChange: true, Errors: 3})
	want := "tpsmon: a: level 1/2: 1 user, held at least 1 s once warm-up is over, until decided at 95%, 0 errors so far\ntpsmon: b: level 2/2: 4 users, held at least 1 s once warm-up is over, until decided at 95%, 3 errors so far\n"
	if buf.String() != want {
		t.Errorf("not a TTY: got\n%q\nwant\n%q", buf.String(), want)
	}
}

// TestProgressLinesTTYWidth: on a terminal each line is cut to the width (so that the
// in-place redraw never wraps), and never inside a UTF-8 character.
func TestProgressLinesTTYWidth(t *testing.T) {
	var buf bytes.Buffer
	pr := &progressPrinter{w: &buf, tty: true, width: 24, lines: make([]string, 1)}
	pr.update(engine.Progress{Endpoint: 0, Name: "GPU-" + strings.Repeat("Ä", 30), Level: 1, Levels: 2, Concurrency: 1, Hold: time.Second, LevelChange: true})
	out := buf.String()
	if !utf8.ValidString(out) {
		t.Errorf("a character was cut: %q", out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		line = strings.TrimPrefix(line, "\r\x1b[2K")
		if n := utf8.RuneCountInString(line); n > 23 || n < 20 {
			t.Errorf("line %q is %d characters wide, want the terminal's 24 - 1", line, n)
		}
	}
}
