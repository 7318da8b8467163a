package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// runFlags are the flags of the live screen and of bench: the endpoint, the workload,
// the ramp and the capacity criteria.
type runFlags struct {
	url, model, api, apiKeyEnv string
	headers                    []string
	maxTokens, promptTokens    int
	prompt                     string
	ignoreEOS                  bool
	extraBody                  string
	timeout                    time.Duration
	insecure                   bool
	config                     string
	profile                    string
	ramp                       string
	hold                       time.Duration
	slo                        string
	maxHold, maxDuration       time.Duration
	serverMetrics              string
	seed                       uint64
	liveFlags                  // --timeseries, --metrics-addr (outputs.go)

	traffic trafficFlags // rate mode and workloads (traffic.go)
	real    realFlags    // traces and conversations (realtraffic.go)

	// bench only
	out, csv    string
	report      string
	minCapacity int
	fullRamp    bool
	shard       shardFlags

	// live screen only
	theme  string
	users  int
	settle string
}

func (f *runFlags) register(c *cobra.Command, ramp, hold string) {
	fs := c.Flags()
	fs.SortFlags = false
	fs.StringVar(&f.url, "url", "", "base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1 (default $"+baseURLEnv+")")
	fs.StringVar(&f.model, "model", "", "model name (default: the only model the server serves)")
	fs.StringVar(&f.api, "api", "chat", "API to call: chat (/chat/completions), completions (/completions), messages (Anthropic's /messages) or responses (OpenAI's /responses)")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", defaultKeyEnv, "name of the environment variable that holds the API key (the key is never printed)")
	fs.StringArrayVar(&f.headers, "header", nil, `extra request header "Name: value" (repeatable; values are never printed)`)
	fs.StringVar(&f.traffic.maxTokens, "max-tokens", "256", "max_tokens of every request: N, or drawn per request from uniform:LO:HI or normal:MEAN:STDEV")
	fs.StringVar(&f.prompt, "prompt", "", "prompt text (default: a synthetic prompt of --prompt-tokens tokens)")
	fs.StringVar(&f.traffic.promptTokens, "prompt-tokens", "128", "size of the synthetic prompt, in tokens (about): N, or drawn per request from uniform:LO:HI or normal:MEAN:STDEV")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the synthetic prompts, rate mode's arrivals, length draws and the dataset's order: the same seed sends the same requests again (default: a new random seed each run, written in the results' settings)")
	fs.BoolVar(&f.ignoreEOS, "ignore-eos", false, `ask the server to always generate max_tokens (extra body {"ignore_eos": true}, vLLM and SGLang)`)
	fs.StringVar(&f.extraBody, "extra-body", "", `JSON object merged into every request body, e.g. '{"temperature":0,"min_tokens":200}'`)
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "longest wait for response headers and for each next event of a stream")
	fs.BoolVar(&f.insecure, "insecure", false, "skip TLS certificate verification")
	fs.StringVar(&f.config, "config", "", "YAML file with endpoints, workload, ramp and slo (flags given explicitly override it)")
	fs.StringVar(&f.profile, "profile", "", "built-in simulator profile, used when no endpoint is configured (see tpsmon sim --help)")
	fs.StringVar(&f.ramp, "ramp", ramp, "concurrency levels of the ramp, in order")
	d, _ := time.ParseDuration(hold)
	fs.DurationVar(&f.hold, "hold", d, "the least steady time each ramp level is held (counted once its warm-up is over), with at least max(20, 2 x users) steady requests")
	fs.DurationVar(&f.maxHold, "max-hold", 0, "the longest a ramp level is held while it lacks max(20, 2 x users) steady requests; it is then marked short (default 2m or 4 x --hold, whichever is larger)")
	fs.DurationVar(&f.maxDuration, "max-duration", 0, "stop the whole run after this long, e.g. 30m (default: no limit)")
	registerServerMetrics(fs, &f.serverMetrics)
	fs.StringVar(&f.slo, "slo", "", `capacity criteria, e.g. "user_tps_p50>=30,ttft_p95<=2s,error_rate<=1%" (the default); add goodput>=95% to ask that share of requests to meet ttft and tok/s each; reasoning models may add ttfo_p95<=10s (time to first answer token)`)
	f.traffic.register(c)
	f.real.register(c)
}

// parseRamp parses "1,2,4,8".
func parseRamp(s string) ([]int, error) {
	var levels []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--ramp %q: %q is not a concurrency (a whole number of at least 1); write e.g. --ramp 1,2,4,8", s, part)
		}
		levels = append(levels, n)
	}
	return levels, nil
}

// parseHeader parses "Name: value". The error names the header, never its value.
func parseHeader(s string, h http.Header) error {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	switch {
	case !ok:
		return fmt.Errorf(`--header: want "Name: value", but found no ':' (the value is not shown)`)
	case name == "":
		return fmt.Errorf(`--header: want "Name: value", but the name before ':' is empty`)
	case !validHeaderName(name):
		return fmt.Errorf(`--header %q: not a valid header name (letters, digits and -, no spaces)`, name)
	}
	value = strings.TrimSpace(value)
	if !validHeaderValue(value) {
		return fmt.Errorf(`--header %q: the value holds a control character or a line break (the value is not shown)`, name)
	}
	h.Add(name, value)
	return nil
}

// validHeaderName reports whether name is an HTTP token (RFC 9110).
func validHeaderName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return name != ""
}

// validHeaderValue reports whether value can be sent as a header value: no control
// character but a tab (RFC 9110), which net/http's client would refuse at every request.
func validHeaderValue(value string) bool {
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// parseExtraBody parses a JSON object.
func parseExtraBody(s string) (map[string]any, error) {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf(`--extra-body: not valid JSON (%v); write a JSON object such as '{"temperature":0}'`, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`--extra-body: want a JSON object such as '{"temperature":0}', got a JSON %s`, jsonKind(v))
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "value"
}
