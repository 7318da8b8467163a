package settings

import (
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
)

// testKey is a distinctive secret: it must never appear in any message.
const testKey = "sk-tpsmon-TEST-key-5f1c9e"

// flagsOf is command c's flags with args parsed, as the command line gives them.
func flagsOf(t *testing.T, c Command, args ...string) *Flags {
	t.Helper()
	fs := pflag.NewFlagSet("tpsmon", pflag.ContinueOnError)
	f := Register(fs, c)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return f
}

// merged is the settings of bench with file's layer (nil: none) under the flags args.
func merged(t *testing.T, file *fileConfig, args ...string) Settings {
	t.Helper()
	f := flagsOf(t, Bench, args...)
	layer := Settings{}
	if file != nil {
		var err error
		if layer, err = file.layer(); err != nil {
			t.Fatal(err)
		}
	}
	return Apply(Apply(f.Defaults, layer), f.Given)
}

// planOf resolves command c's args over file (nil: none) in the environment env.
func planOf(c Command, file *fileConfig, env map[string]string, args ...string) (*Plan, error) {
	fs := pflag.NewFlagSet("tpsmon", pflag.ContinueOnError)
	f := Register(fs, c)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if file == nil {
		file = &fileConfig{}
	}
	return resolve(f, file, Input{Getenv: func(k string) string { return env[k] }, Limit: func() StreamLimit { return StreamLimit{Max: 10000} }, Now: time.Now()})
}

// errSays fails unless err is a refused setting saying every one of want (or nil when
// want is empty).
func errSays(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Errorf("%s: unexpected error %v", what, err)
		}
		return
	}
	var se *Error
	if !errors.As(err, &se) {
		t.Errorf("%s: err %v, want a refused setting", what, err)
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
		name  string
		args  []string
		wc    workloadFile
		check func(client.Endpoint) bool
		err   []string
	}{
		{name: "defaults", check: func(w client.Endpoint) bool {
			return w.MaxTokens == 128 && w.PromptTokens == 128 && w.Timeout == time.Minute
		}},
		{name: "config over defaults", wc: workloadFile{MaxTokens: &lengthSpec{text: "9"}, Timeout: ptr(posDur(time.Second)), IgnoreEOS: ptr(true), Prompt: ptr("hi")},
			check: func(w client.Endpoint) bool {
				return w.MaxTokens == 9 && w.Timeout == time.Second && w.IgnoreEOS && w.Prompt == "hi"
			}},
		{name: "flag over config", args: []string{"--max-tokens", "7"},
			wc: workloadFile{MaxTokens: &lengthSpec{text: "9"}}, check: func(w client.Endpoint) bool { return w.MaxTokens == 7 }},
		{name: "bad timeout", args: []string{"--timeout", "0s"}, err: []string{"--timeout 0s", "positive"}},
	}
	for _, tt := range tests {
		s := merged(t, &fileConfig{Workload: tt.wc}, tt.args...)
		w, err := (&Plan{}).workload(s.Workload, nil)
		errSays(t, tt.name, err, tt.err...)
		if err == nil && tt.check != nil && !tt.check(w) {
			t.Errorf("%s: workload %+v", tt.name, w)
		}
	}
	// The API, and requests that no length given as text can ask for.
	if s := merged(t, nil); s.Endpoint.API.V != "chat" || checkAPI(s.Endpoint.API) != nil {
		t.Errorf("default API %q", s.Endpoint.API.V)
	}
	if s := merged(t, nil, "--api", "completions"); s.Endpoint.API.V != "completions" || checkAPI(s.Endpoint.API) != nil {
		t.Errorf("api given: %q", s.Endpoint.API.V)
	}
	errSays(t, "bad api", checkAPI(merged(t, nil, "--api", "embeddings").Endpoint.API), `--api "embeddings": want chat (/chat/completions), completions (/completions), messages (Anthropic's /messages) or responses`)
	ok := client.Endpoint{MaxTokens: 256, PromptTokens: 128, Timeout: time.Minute}
	bad := ok
	bad.MaxTokens = 0
	errSays(t, "bad max tokens", checkRequest(bad), "--max-tokens 0", "at least 1")
	bad = ok
	bad.PromptTokens = -1
	errSays(t, "bad prompt tokens", checkRequest(bad), "--prompt-tokens -1")
}

func TestResolveRamp(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		rc     rampFile
		levels []int
		hold   time.Duration
		err    []string
	}{
		{name: "flags", args: []string{"--ramp", "1,2,4"}, levels: []int{1, 2, 4}, hold: 5 * time.Second},
		{name: "config", rc: rampFile{Levels: []posInt{3, 6}, Hold: ptr(posDur(time.Second))}, levels: []int{3, 6}, hold: time.Second},
		{name: "flag over config", args: []string{"--ramp", "5"}, rc: rampFile{Levels: []posInt{3}}, levels: []int{5}, hold: 5 * time.Second},
		{name: "bad flag with config", args: []string{"--ramp", "x"}, rc: rampFile{Levels: []posInt{3}}, err: []string{"--ramp", `"x"`}},
	}
	for _, tt := range tests {
		p := &Plan{}
		err := p.ramp(merged(t, &fileConfig{Ramp: tt.rc}, tt.args...).Ramp)
		errSays(t, tt.name, err, tt.err...)
		if err == nil && (!equalInts(p.Ramp.Levels, tt.levels) || p.Ramp.Hold != tt.hold) {
			t.Errorf("%s: %+v, want levels %v hold %s", tt.name, p.Ramp, tt.levels, tt.hold)
		}
	}
	err := (&Plan{}).ramp(merged(t, nil, "--hold", "0s").Ramp)
	errSays(t, "zero hold", err, "--hold 0s", "positive")
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestResolveSLO(t *testing.T) {
	tests := []struct {
		name string
		flag string
		sc   sloFile
		want model.SLO
		err  []string
	}{
		{name: "default", want: model.DefaultSLO},
		{name: "config", sc: sloFile{UserTPSP50Min: ptr(sloNumber(5)), ErrorRateMax: ptr(rate(0.1))},
			want: model.SLO{UserTPSMin: 5, TTFTP95Max: model.DefaultSLO.TTFTP95Max, ErrorRateMax: 0.1}},
		{name: "flag over config", flag: "user_tps_p50>=7", sc: sloFile{UserTPSP50Min: ptr(sloNumber(5)), TTFTP95Max: ptr(posDur(time.Second))},
			want: model.SLO{UserTPSMin: 7, TTFTP95Max: time.Second, ErrorRateMax: model.DefaultSLO.ErrorRateMax}},
		{name: "bad flag", flag: "tps>=1", err: []string{"--slo", "tps"}},
		{name: "config inf", sc: sloFile{UserTPSP50Min: ptr(sloNumber(math.Inf(1)))}, err: []string{"config c.yaml: line 4: slo.user_tps_p50_min: ", "+Inf", "finite"}},
		{name: "config negative", flag: "user_tps_p50>=3", sc: sloFile{UserTPSP50Min: ptr(sloNumber(-1))}, err: []string{"line 4: slo.user_tps_p50_min", "-1"}},
	}
	for _, tt := range tests {
		var args []string
		if tt.flag != "" {
			args = []string{"--slo", tt.flag}
		}
		s := merged(t, &fileConfig{path: "c.yaml", SLO: tt.sc, lines: map[string]int{"slo.user_tps_p50_min": 4}}, args...)
		got, err := slo(s.SLO)
		errSays(t, tt.name, err, tt.err...)
		if err == nil && got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestResolveShared(t *testing.T) {
	tests := []struct {
		name string
		args []string
		err  []string
	}{
		{name: "defaults"},
		{name: "header", args: []string{"--header", "X-A: b"}},
		{name: "bad header", args: []string{"--header", "X A: b"}, err: []string{"--header", "X A"}},
		{name: "bad extra body", args: []string{"--extra-body", "[]"}, err: []string{"--extra-body", "array"}},
		{name: "no key env", args: []string{"--api-key-env", ""}, err: []string{"--api-key-env"}},
		{name: "key as key env", args: []string{"--api-key-env", testKey}, err: []string{"--api-key-env: want the name"}},
	}
	for _, tt := range tests {
		f := flagsOf(t, Bench, tt.args...)
		_, err := f.sharedFlags(f.Defaults.Endpoint)
		errSays(t, tt.name, err, tt.err...)
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("%s: %q shows the key", tt.name, err)
		}
	}
}

func TestEndpointSpecs(t *testing.T) {
	cfg := &fileConfig{path: "c.yaml", Endpoints: []endpointFile{{Name: "a", URL: "http://h:1", Model: "m", APIKeyEnv: "K", API: "completions", Insecure: true}},
		lines: map[string]int{"endpoints[0]": 2, "endpoints[0].url": 3}}
	env := map[string]string{BaseURLEnv: "http://e:2/v1", "K": "key", DefaultKeyEnv: "dk"}
	tests := []struct {
		name  string
		args  []string
		cfg   *fileConfig
		env   map[string]string
		where []string
	}{
		{name: "--url wins", args: []string{"--url", "http://u:1/v1"}, cfg: cfg, env: env, where: []string{"--url"}},
		{name: "config over env", cfg: cfg, env: env, where: []string{"config c.yaml: line 2: endpoints[0] (a)"}},
		{name: "env", cfg: &fileConfig{}, env: env, where: []string{"$OPENAI_BASE_URL"}},
		{name: "simulator", cfg: &fileConfig{}},
	}
	for _, tt := range tests {
		p, err := planOf(Bench, tt.cfg, tt.env, tt.args...)
		if err != nil || len(p.Sources) != len(tt.where) || p.Simulate != (len(tt.where) == 0) {
			t.Errorf("%s: %v, %v; want %v", tt.name, p, err, tt.where)
			continue
		}
		for i, s := range p.Sources {
			if s != tt.where[i] {
				t.Errorf("%s: where %q, want %q", tt.name, s, tt.where[i])
			}
		}
	}

	// A config endpoint: its key variable, API and insecure, unless a flag was given.
	p, err := planOf(Bench, cfg, env)
	if ep := p.Endpoints[0]; err != nil || len(p.Notes) != 0 || ep.BaseURL != "http://h:1/v1" || ep.APIKey != "key" || ep.API != "completions" || !ep.Insecure || ep.Name != "a" {
		t.Errorf("config endpoint: %+v, notes %q, err %v", ep, p.Notes, err)
	}
	p, _ = planOf(Bench, cfg, env, "--api-key-env", DefaultKeyEnv, "--api", "chat", "--insecure=false")
	if ep := p.Endpoints[0]; ep.APIKey != "dk" || ep.API != "chat" || ep.Insecure {
		t.Errorf("config endpoint, flags given: %+v", ep)
	}
	// A bad URL is said where it was written, with how to write it there.
	bad := &fileConfig{path: "c.yaml", Endpoints: []endpointFile{{URL: "h:1"}}, lines: map[string]int{"endpoints[0].url": 3}}
	_, err = planOf(Bench, bad, env, "--api-key-env", "NOPE")
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
		errSays(t, tt.want, Refused(tt.err), tt.want)
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
	low := StreamLimit{Max: 1000, Soft: 2100}
	tests := []struct {
		name      string
		levels    []int
		from      string
		users     int
		endpoints int
		lim       StreamLimit
		err       []string
	}{
		{name: "fits", levels: []int{1, 64}, from: "--ramp", users: 64, endpoints: 1, lim: StreamLimit{Max: 64}},
		{name: "users above", levels: []int{1}, from: "--ramp", users: 20000, endpoints: 1, lim: low,
			err: []string{"--users 20000", "at most 1000 concurrent streams", "ulimit -n) is 2100", "raise the hard limit"}},
		{name: "level above", levels: []int{1, 2000}, from: "--ramp", endpoints: 1, lim: low, err: []string{"--ramp: level 2000", "at most 1000", "ulimit -n"}},
		{name: "config level", levels: []int{4096}, from: "config c.yaml: line 3: ramp.levels", endpoints: 1, lim: low,
			err: []string{"config c.yaml: line 3: ramp.levels: level 4096"}},
		{name: "summed over endpoints", levels: []int{1, 600}, from: "--ramp", endpoints: 2, lim: low,
			err: []string{"--ramp: level 600 on each of 2 endpoints loaded together is 1200 streams", "at most 1000"}},
		{name: "the cap", levels: []int{20000}, from: "--ramp", endpoints: 1, lim: StreamLimit{Max: 10000, Soft: 1 << 20},
			err: []string{"level 20000", "at most 10000 concurrent streams in one process (its cap"}},
	}
	for _, tt := range tests {
		errSays(t, tt.name, checkConcurrency(tt.levels, tt.from, tt.users, tt.endpoints, tt.lim), tt.err...)
	}
}

func TestRampFrom(t *testing.T) {
	cfg := &fileConfig{path: "c.yaml", Ramp: rampFile{Levels: []posInt{1}}, lines: map[string]int{"ramp.levels": 3}}
	for _, tt := range []struct {
		cfg  *fileConfig
		args []string
		want string
	}{
		{&fileConfig{}, nil, "--ramp"},
		{cfg, nil, "config c.yaml: line 3: ramp.levels"},
		{cfg, []string{"--ramp", "1"}, "--ramp"},
	} {
		p := &Plan{}
		if err := p.ramp(merged(t, tt.cfg, tt.args...).Ramp); err != nil || p.walkFrom != tt.want {
			t.Errorf("the levels are from %q (%v), want %q", p.walkFrom, err, tt.want)
		}
	}
}

// TestFlagTypeWords: a value that a flag's type refuses says what the flag wants, in
// words, never strconv's or time's.
func TestFlagTypeWords(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--seed", "-1"}, `invalid argument "-1" for "--seed" flag: want a whole number from 0 to 18446744073709551615 (2^64-1), the same one to send the same requests again; 0 or no --seed draws a new seed each run`},
		{[]string{"--hold", "15"}, `invalid argument "15" for "--hold" flag: want a duration with a unit such as 15s or 500ms`},
		{[]string{"--users", "many"}, `invalid argument "many" for "--users" flag: want a whole number such as 8`},
		{[]string{"--ignore-eos=maybe"}, `invalid argument "maybe" for "--ignore-eos" flag: want true or false`},
	} {
		fs := pflag.NewFlagSet("tpsmon", pflag.ContinueOnError)
		Register(fs, Screen)
		if err := fs.Parse(tt.args); err == nil || err.Error() != tt.want {
			t.Errorf("%v: %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestEmptyURL: --url "" names no endpoint: the file's endpoints, $OPENAI_BASE_URL or
// the simulator are measured, as without it.
func TestEmptyURL(t *testing.T) {
	cfg := &fileConfig{path: "c.yaml", Endpoints: []endpointFile{{URL: "http://h:1", Model: "m"}}}
	if p, err := planOf(Bench, cfg, nil, "--url", ""); err != nil || len(p.Endpoints) != 1 || p.Endpoints[0].BaseURL != "http://h:1/v1" {
		t.Errorf("--url \"\" with a config: %v, %v", p, err)
	}
	if p, err := planOf(Bench, nil, nil, "--url", ""); err != nil || !p.Simulate {
		t.Errorf("--url \"\" alone: %v, %v", p, err)
	}
}

// TestResolveLevelRule: --min-requests and --refine, and their config keys
// ramp.min_requests and ramp.refine; the bisection is on by default.
func TestResolveLevelRule(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		rc     rampFile
		min    int
		refine bool
		err    []string
	}{
		{name: "defaults", refine: true},
		{name: "flags", args: []string{"--min-requests", "60", "--refine=false"}, min: 60},
		{name: "config", rc: rampFile{MinRequests: ptr(posInt(30)), Refine: ptr(false)}, min: 30},
		{name: "flag over config", args: []string{"--min-requests", "10", "--refine"}, rc: rampFile{MinRequests: ptr(posInt(30)), Refine: ptr(false)}, min: 10, refine: true},
		{name: "negative", args: []string{"--min-requests", "-1"}, err: []string{"--min-requests -1", "want 0"}},
	}
	for _, tt := range tests {
		p := &Plan{}
		err := p.ramp(merged(t, &fileConfig{Ramp: tt.rc}, tt.args...).Ramp)
		errSays(t, tt.name, err, tt.err...)
		if err == nil && (p.MinRequests != tt.min || p.Refine != tt.refine || p.Engine().MinRequests != tt.min || p.Engine().Refine != tt.refine) {
			t.Errorf("%s: min requests %d refine %v, want %d %v", tt.name, p.MinRequests, p.Refine, tt.min, tt.refine)
		}
	}
}
