package main

import (
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// given is a Changed func for the flags named.
func given(flags ...string) func(string) bool {
	return func(name string) bool {
		for _, f := range flags {
			if f == name {
				return true
			}
		}
		return false
	}
}

func defaultFlags() *runFlags {
	return &runFlags{api: "chat", apiKeyEnv: defaultKeyEnv, maxTokens: 256, promptTokens: 128,
		timeout: time.Minute, ramp: "1,2,4", hold: 15 * time.Second}
}

// errSays fails unless err is a usage error saying every one of want (or nil when want is empty).
func errSays(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("%s: unexpected error %v", what, err)
		}
		return
	}
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitUsage {
		t.Errorf("%s: err %v, want a usage error", what, err)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestResolveWorkload(t *testing.T) {
	tests := []struct {
		name    string
		flags   func(*runFlags)
		changed []string
		wc      workloadConfig
		check   func(client.Endpoint) bool
		err     []string
	}{
		{name: "defaults", check: func(w client.Endpoint) bool {
			return w.API == "chat" && w.MaxTokens == 256 && w.PromptTokens == 128 && w.Timeout == time.Minute
		}},
		{name: "config over defaults", wc: workloadConfig{MaxTokens: &lengthSpec{text: "9", l: workload.Fix(9)}, Timeout: ptr(posDur(time.Second)), IgnoreEOS: ptr(true), Prompt: ptr("hi")},
			check: func(w client.Endpoint) bool {
				return w.MaxTokens == 9 && w.Timeout == time.Second && w.IgnoreEOS && w.Prompt == "hi"
			}},
		{name: "flag over config", flags: func(f *runFlags) { f.maxTokens = 7 }, changed: []string{"max-tokens"},
			wc: workloadConfig{MaxTokens: &lengthSpec{text: "9", l: workload.Fix(9)}}, check: func(w client.Endpoint) bool { return w.MaxTokens == 7 }},
		{name: "api given", flags: func(f *runFlags) { f.api = "completions" }, changed: []string{"api"},
			check: func(w client.Endpoint) bool { return w.API == "completions" }},
		{name: "bad max tokens", flags: func(f *runFlags) { f.maxTokens = 0 }, err: []string{"--max-tokens 0", "at least 1"}},
		{name: "bad prompt tokens", flags: func(f *runFlags) { f.promptTokens = -1 }, err: []string{"--prompt-tokens -1"}},
		{name: "bad timeout", flags: func(f *runFlags) { f.timeout = 0 }, err: []string{"--timeout 0s", "positive"}},
		{name: "bad api", flags: func(f *runFlags) { f.api = "embeddings" }, err: []string{`--api "embeddings"`}},
	}
	for _, tt := range tests {
		f := defaultFlags()
		if tt.flags != nil {
			tt.flags(f)
		}
		w, err := resolveWorkload(f, tt.wc, given(tt.changed...))
		errSays(t, tt.name, err, tt.err...)
		if err == nil && tt.check != nil && !tt.check(w) {
			t.Errorf("%s: workload %+v", tt.name, w)
		}
	}
}

func TestResolveRamp(t *testing.T) {
	tests := []struct {
		name    string
		ramp    string
		changed []string
		rc      rampConfig
		levels  []int
		hold    time.Duration
		err     []string
	}{
		{name: "flags", ramp: "1,2,4", levels: []int{1, 2, 4}, hold: 15 * time.Second},
		{name: "config", ramp: "1,2,4", rc: rampConfig{Levels: []posInt{3, 6}, Hold: ptr(posDur(time.Second))}, levels: []int{3, 6}, hold: time.Second},
		{name: "flag over config", ramp: "5", changed: []string{"ramp"}, rc: rampConfig{Levels: []posInt{3}}, levels: []int{5}, hold: 15 * time.Second},
		{name: "bad flag with config", ramp: "x", rc: rampConfig{Levels: []posInt{3}}, err: []string{"--ramp", `"x"`}},
	}
	for _, tt := range tests {
		f := defaultFlags()
		f.ramp = tt.ramp
		r, err := resolveRamp(f, &fileConfig{Ramp: tt.rc}, given(tt.changed...))
		errSays(t, tt.name, err, tt.err...)
		if err == nil && (!equal(r.Levels, tt.levels) || r.Hold != tt.hold) {
			t.Errorf("%s: %+v, want levels %v hold %s", tt.name, r, tt.levels, tt.hold)
		}
	}
	f := defaultFlags()
	f.hold = 0
	_, err := resolveRamp(f, &fileConfig{}, given())
	errSays(t, "zero hold", err, "--hold 0s", "positive")
}

func TestResolveSLO(t *testing.T) {
	tests := []struct {
		name string
		flag string
		sc   sloConfig
		want model.SLO
		err  []string
	}{
		{name: "default", want: model.DefaultSLO},
		{name: "config", sc: sloConfig{UserTPSP50Min: ptr(sloNumber(5)), ErrorRateMax: ptr(rate(0.1))},
			want: model.SLO{UserTPSMin: 5, TTFTP95Max: model.DefaultSLO.TTFTP95Max, ErrorRateMax: 0.1}},
		{name: "flag over config", flag: "user_tps_p50>=7", sc: sloConfig{UserTPSP50Min: ptr(sloNumber(5)), TTFTP95Max: ptr(posDur(time.Second))},
			want: model.SLO{UserTPSMin: 7, TTFTP95Max: time.Second, ErrorRateMax: model.DefaultSLO.ErrorRateMax}},
		{name: "bad flag", flag: "tps>=1", err: []string{"--slo", "tps"}},
		{name: "config inf", sc: sloConfig{UserTPSP50Min: ptr(sloNumber(math.Inf(1)))}, err: []string{"config c.yaml: line 4: slo.user_tps_p50_min: ", "+Inf", "finite"}},
		{name: "config negative", flag: "user_tps_p50>=3", sc: sloConfig{UserTPSP50Min: ptr(sloNumber(-1))}, err: []string{"line 4: slo.user_tps_p50_min", "-1"}},
	}
	for _, tt := range tests {
		slo, err := resolveSLO(tt.flag, &fileConfig{path: "c.yaml", SLO: tt.sc, lines: map[string]int{"slo.user_tps_p50_min": 4}})
		errSays(t, tt.name, err, tt.err...)
		if err == nil && slo != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, slo, tt.want)
		}
	}
}

func TestResolveShared(t *testing.T) {
	tests := []struct {
		name  string
		flags func(*runFlags)
		err   []string
	}{
		{name: "defaults"},
		{name: "header", flags: func(f *runFlags) { f.headers = []string{"X-A: b"} }},
		{name: "bad header", flags: func(f *runFlags) { f.headers = []string{"X A: b"} }, err: []string{"--header", "X A"}},
		{name: "bad extra body", flags: func(f *runFlags) { f.extraBody = "[]" }, err: []string{"--extra-body", "array"}},
		{name: "no key env", flags: func(f *runFlags) { f.apiKeyEnv = "" }, err: []string{"--api-key-env"}},
		{name: "key as key env", flags: func(f *runFlags) { f.apiKeyEnv = testKey }, err: []string{"--api-key-env: want the name"}},
	}
	for _, tt := range tests {
		f := defaultFlags()
		if tt.flags != nil {
			tt.flags(f)
		}
		_, err := resolveShared(f)
		errSays(t, tt.name, err, tt.err...)
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("%s: %q shows the key", tt.name, err)
		}
	}
}

func TestEndpointSpecs(t *testing.T) {
	cfg := &fileConfig{path: "c.yaml", Endpoints: []endpointConfig{{Name: "a", URL: "http://h:1", Model: "m", APIKeyEnv: "K", API: "completions", Insecure: true}},
		lines: map[string]int{"endpoints[0]": 2, "endpoints[0].url": 3}}
	env := map[string]string{baseURLEnv: "http://e:2/v1", "K": "key", defaultKeyEnv: "dk"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name    string
		url     string
		cfg     *fileConfig
		env     func(string) string
		changed []string
		where   []string
	}{
		{name: "--url wins", url: "http://u:1/v1", cfg: cfg, env: getenv, where: []string{"--url"}},
		{name: "config over env", cfg: cfg, env: getenv, where: []string{"config c.yaml: line 2: endpoints[0] (a)"}},
		{name: "env", cfg: &fileConfig{}, env: getenv, where: []string{"$OPENAI_BASE_URL"}},
		{name: "simulator", cfg: &fileConfig{}, env: func(string) string { return "" }},
	}
	for _, tt := range tests {
		f := defaultFlags()
		f.url = tt.url
		specs, err := endpointSpecs(f, tt.cfg, sharedFlags{keyEnv: defaultKeyEnv}, given(tt.changed...), tt.env)
		if err != nil || len(specs) != len(tt.where) {
			t.Errorf("%s: %d specs, %v; want %v", tt.name, len(specs), err, tt.where)
			continue
		}
		for i, s := range specs {
			if s.where != tt.where[i] {
				t.Errorf("%s: where %q, want %q", tt.name, s.where, tt.where[i])
			}
		}
	}

	// A config endpoint: its key variable, API and insecure, unless a flag was given.
	specs, _ := endpointSpecs(defaultFlags(), cfg, sharedFlags{keyEnv: defaultKeyEnv}, given(), getenv)
	ep, note, err := specs[0].build(client.Endpoint{API: "chat"}, getenv)
	if err != nil || note != "" || ep.BaseURL != "http://h:1/v1" || ep.APIKey != "key" || ep.API != "completions" || !ep.Insecure || ep.Name != "a" {
		t.Errorf("config endpoint: %+v, note %q, err %v", ep, note, err)
	}
	specs, _ = endpointSpecs(defaultFlags(), cfg, sharedFlags{keyEnv: defaultKeyEnv}, given("api-key-env", "api", "insecure"), getenv)
	ep, _, _ = specs[0].build(client.Endpoint{API: "chat"}, getenv)
	if ep.APIKey != "dk" || ep.API != "chat" || ep.Insecure {
		t.Errorf("config endpoint, flags given: %+v", ep)
	}
	// A bad URL is said where it was written, with how to write it there.
	bad := &fileConfig{path: "c.yaml", Endpoints: []endpointConfig{{URL: "h:1"}}, lines: map[string]int{"endpoints[0].url": 3}}
	specs, _ = endpointSpecs(defaultFlags(), bad, sharedFlags{keyEnv: "NOPE"}, given(), getenv)
	_, _, err = specs[0].build(client.Endpoint{}, getenv)
	errSays(t, "config url", err, `config c.yaml: line 3: endpoints[0].url "h:1": want an http:// or https:// URL; write e.g. url: http://h:1`)
}

func TestFlagUsage(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&client.FieldError{Field: client.FieldModel, Problem: "is required"}, "--model: is required"},
		{&client.FieldError{Field: client.FieldMaxTokens, Value: "-1", Problem: "want at least 1"}, `--max-tokens "-1": want at least 1`},
		{&client.FieldError{Field: client.FieldURL, Value: "x", Problem: "p", Suggest: "http://x"}, `--url "x": p; write e.g. --url http://x`},
		{errors.New("other"), "other"},
	}
	for _, tt := range tests {
		errSays(t, tt.want, flagUsage(tt.err), tt.want)
	}
}

// TestParseHeaderValues: values net/http can send are accepted (a tab included); any
// other control character is refused (found by FuzzParseHeader: "0:0\x7f0").
func TestParseHeaderValues(t *testing.T) {
	for s, ok := range map[string]bool{"X: a\tb": true, "X: ä": true, "0:0\x7f0": false, "X: a\x01": false, "X: a\rb": false, "X: \x00": false} {
		err := parseHeader(s, http.Header{})
		if (err == nil) != ok {
			t.Errorf("parseHeader(%q) = %v, want ok %v", s, err, ok)
		}
		if err == nil {
			req, _ := http.NewRequest("GET", "http://127.0.0.1:1/", nil)
			h := http.Header{}
			parseHeader(s, h)
			req.Header = h
			if _, err := http.DefaultTransport.RoundTrip(req); err != nil && strings.Contains(err.Error(), "invalid header") {
				t.Errorf("parseHeader(%q) accepted a value net/http refuses: %v", s, err)
			}
		}
	}
}

func TestCheckConcurrency(t *testing.T) {
	low := streamLimit{max: 1000, soft: 2100}
	tests := []struct {
		name      string
		levels    []int
		from      string
		users     int
		endpoints int
		lim       streamLimit
		err       []string
	}{
		{name: "fits", levels: []int{1, 64}, from: "--ramp", users: 64, endpoints: 1, lim: streamLimit{max: 64}},
		{name: "users above", levels: []int{1}, from: "--ramp", users: 20000, endpoints: 1, lim: low,
			err: []string{"--users 20000", "at most 1000 concurrent streams", "ulimit -n) is 2100", "raise the hard limit"}},
		{name: "level above", levels: []int{1, 2000}, from: "--ramp", endpoints: 1, lim: low, err: []string{"--ramp: level 2000", "at most 1000", "ulimit -n"}},
		{name: "config level", levels: []int{4096}, from: "config c.yaml: line 3: ramp.levels", endpoints: 1, lim: low,
			err: []string{"config c.yaml: line 3: ramp.levels: level 4096"}},
		{name: "summed over endpoints", levels: []int{1, 600}, from: "--ramp", endpoints: 2, lim: low,
			err: []string{"--ramp: level 600 on each of 2 endpoints loaded together is 1200 streams", "at most 1000"}},
		{name: "the cap", levels: []int{20000}, from: "--ramp", endpoints: 1, lim: streamLimit{max: 10000, soft: 1 << 20},
			err: []string{"level 20000", "at most 10000 concurrent streams in one process (its cap"}},
	}
	for _, tt := range tests {
		errSays(t, tt.name, checkConcurrency(tt.levels, tt.from, tt.users, tt.endpoints, tt.lim), tt.err...)
	}
}

func TestRampFrom(t *testing.T) {
	cfg := &fileConfig{path: "c.yaml", Ramp: rampConfig{Levels: []posInt{1}}, lines: map[string]int{"ramp.levels": 3}}
	for _, tt := range []struct {
		cfg     *fileConfig
		changed []string
		want    string
	}{
		{&fileConfig{}, nil, "--ramp"},
		{cfg, nil, "config c.yaml: line 3: ramp.levels"},
		{cfg, []string{"ramp"}, "--ramp"},
	} {
		if got := rampFrom(tt.cfg, given(tt.changed...)); got != tt.want {
			t.Errorf("rampFrom = %q, want %q", got, tt.want)
		}
	}
}
