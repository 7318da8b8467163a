package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/arrival"
	"github.com/tpsmon/tpsmon/probe/client"
	"go.yaml.in/yaml/v3"
)

// fileConfig is the --config YAML file. Every key is optional; unknown keys are errors.
//
//	endpoints:
//	  - name: a100
//	    url: http://127.0.0.1:8000/v1
//	    model: meta-llama/Llama-3.1-8B-Instruct
//	    api: chat                 # or completions
//	    api_key_env: VLLM_API_KEY # the key itself never goes in the file
//	    headers: {X-Team: perf}
//	    extra_body: {temperature: 0}
//	    insecure: false
//	    server_metrics: off       # or its URL; default: the url's origin + /metrics
//	workload: {max_tokens: 256, prompt_tokens: 128, ignore_eos: true, timeout: 60s, seed: 42}
//	ramp: {levels: [1, 2, 4, 8, 16, 32], hold: 15s, max_hold: 2m, settle: capacity, max_duration: 30m, full_ramp: false}
//	  # or rate mode instead of levels: rate: [2, 4, 8], arrival: poisson, max_concurrency: 64
//	slo: {user_tps_p50_min: 30, ttft_p95_max: 2s, error_rate_max: 0.01}  # ttfo_p95_max: 10s, goodput_min: 95% (optional)
type fileConfig struct {
	Endpoints []endpointConfig `yaml:"endpoints"`
	Workload  workloadConfig   `yaml:"workload"`
	Ramp      rampConfig       `yaml:"ramp"`
	SLO       sloConfig        `yaml:"slo"`

	path  string
	lines map[string]int // line of the value of each key path, such as "endpoints[0].url"
}

type endpointConfig struct {
	Name      string            `yaml:"name"`
	URL       string            `yaml:"url"`
	Model     string            `yaml:"model"`
	API       apiName           `yaml:"api"`
	APIKeyEnv envName           `yaml:"api_key_env"`
	Headers   map[string]string `yaml:"headers"`
	ExtraBody map[string]any    `yaml:"extra_body"`
	Insecure  bool              `yaml:"insecure"`
	// ServerMetrics is the server's Prometheus metrics URL, or off (default: the URL's
	// origin + /metrics).
	ServerMetrics string `yaml:"server_metrics"`
}

type workloadConfig struct {
	MaxTokens    *lengthSpec      `yaml:"max_tokens"`
	Prompt       *string          `yaml:"prompt"`
	PromptTokens *lengthSpec      `yaml:"prompt_tokens"`
	IgnoreEOS    *bool            `yaml:"ignore_eos"`
	Timeout      *posDur          `yaml:"timeout"`
	Dataset      *string          `yaml:"dataset"`
	PrefixTokens *int             `yaml:"prefix_tokens"`
	Seed         *seed            `yaml:"seed"`
	realConfig   `yaml:",inline"` // trace, trace_speed, trace_window, turns, history, think_time
}

type rampConfig struct {
	Levels      []posInt `yaml:"levels"`
	Hold        *posDur  `yaml:"hold"`
	MaxHold     *posDur  `yaml:"max_hold"`
	Settle      *settle  `yaml:"settle"`
	MaxDuration *posDur  `yaml:"max_duration"`
	FullRamp    *bool    `yaml:"full_ramp"`
	// Rate mode, as --rate, --arrival and --max-concurrency (rateFromConfig).
	Rate           *rateList    `yaml:"rate"`
	Arrival        *arrivalKind `yaml:"arrival"`
	MaxConcurrency *capInt      `yaml:"max_concurrency"`
}

type sloConfig struct {
	UserTPSP50Min *sloNumber `yaml:"user_tps_p50_min"`
	TTFTP95Max    *posDur    `yaml:"ttft_p95_max"`
	ErrorRateMax  *rate      `yaml:"error_rate_max"`
	TTFOP95Max    *posDur    `yaml:"ttfo_p95_max"` // reasoning models: time to first answer token
	GoodputMin    *rate      `yaml:"goodput_min"`  // --slo goodput>=95%: the share meeting the per-request SLO
}

// apiName is one of client.APIs.
type apiName string

func (a *apiName) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || !slices.Contains(client.APIs(), n.Value) {
		return lineError(n, "want %s, got %q%s", client.APIWords, n.Value, client.APIHint(n.Value))
	}
	*a = apiName(n.Value)
	return nil
}

// envName is the name of an environment variable (the key itself never goes in the file).
type envName string

func (e *envName) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return lineError(n, "%s", client.KeyEnvHint)
	}
	if client.CheckKeyEnv(n.Value) != nil {
		return lineError(n, "%s", client.KeyEnvHint)
	}
	*e = envName(n.Value)
	return nil
}

// posInt is a whole number of at least 1.
type posInt int

func (p *posInt) UnmarshalYAML(n *yaml.Node) error {
	v, err := wholeAtLeast(n, 1, "a whole number of at least 1")
	*p = posInt(v)
	return err
}

// wholeAtLeast reads n as a whole number of at least lo; want says what is wanted.
func wholeAtLeast(n *yaml.Node, lo int, want string) (int, error) {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < lo {
		return 0, lineError(n, "want %s, got %q", want, n.Value)
	}
	return v, nil
}

// posDur is a positive Go duration such as 15s or 500ms.
type posDur time.Duration

func (p *posDur) UnmarshalYAML(n *yaml.Node) error {
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		return lineError(n, "want a duration with a unit such as 15s or 500ms, got %q", n.Value)
	}
	*p = posDur(d)
	return nil
}

// capInt is a whole number of 0 or more (max_concurrency: 0 is no cap).
type capInt int

func (c *capInt) UnmarshalYAML(n *yaml.Node) error {
	v, err := wholeAtLeast(n, 0, "0 (no cap) or a whole number of requests in flight such as 64")
	*c = capInt(v)
	return err
}

// rateList is rate mode's arrival rates, judged as --rate's are (parseRates): a list,
// or one rate (or "2,4,8" as --rate takes it), each a whole number of requests/s from
// 1 to 10000. text is the list as --rate takes it.
type rateList struct{ text string }

func (r *rateList) UnmarshalYAML(n *yaml.Node) error {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var parts []string
	for _, it := range items {
		if _, err := parseRates(it.Value); it.Kind != yaml.ScalarNode || err != nil {
			return lineError(it, "want a rate of requests per second (a whole number from 1 to 10000) or a list of them such as [2, 4, 8, 16], got %q", it.Value)
		}
		parts = append(parts, it.Value)
	}
	if len(parts) == 0 {
		return lineError(n, "want at least one rate of requests per second, such as [2, 4, 8, 16]")
	}
	r.text = strings.Join(parts, ",")
	return nil
}

// arrivalKind is how rate mode's arrivals are spaced, as --arrival takes it.
type arrivalKind string

func (a *arrivalKind) UnmarshalYAML(n *yaml.Node) error {
	if _, err := arrival.ParseKind(n.Value); n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "want poisson or constant, got %q", n.Value)
	}
	*a = arrivalKind(n.Value)
	return nil
}

// sloNumber is a number (model.SLO.Validate, called by resolveSLO, judges its value
// as --slo's is judged).
type sloNumber float64

func (v *sloNumber) UnmarshalYAML(n *yaml.Node) error {
	var f float64
	if n.Kind != yaml.ScalarNode || n.Decode(&f) != nil {
		return lineError(n, "want a number of tok/s such as 30, got %q", n.Value)
	}
	*v = sloNumber(f)
	return nil
}

// rate is a fraction in [0, 1], written 0.01 or "1%".
type rate float64

func (r *rate) UnmarshalYAML(n *yaml.Node) error {
	v, err := model.ParseRate(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "want a fraction such as 0.01 or a percentage such as 1%%, got %q", n.Value)
	}
	*r = rate(v)
	return nil
}

// lineError is a decoding error at n's line, gathered by yaml.v3 with the others.
// configError replaces the column mark with the key's path.
func lineError(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: @%d: ", n.Line, n.Column) + fmt.Sprintf(format, args...)}}
}

// walkKeys calls visit for every node of the document with its key path, such as
// "workload.max_tokens" or "ramp.levels[1]".
func walkKeys(n *yaml.Node, path string, visit func(n *yaml.Node, path string)) {
	visit(n, path)
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walkKeys(c, path, visit)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			walkKeys(n.Content[i+1], p, visit)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walkKeys(c, fmt.Sprintf("%s[%d]", path, i), visit)
		}
	}
}

// keyPaths maps "line:column" of every value in the document to its key path.
func keyPaths(n *yaml.Node, path string, out map[string]string) {
	walkKeys(n, path, func(n *yaml.Node, path string) { out[fmt.Sprintf("%d:%d", n.Line, n.Column)] = path })
}

// loadConfig reads and strictly decodes a --config file. Every error names the file,
// and the line when there is one.
func loadConfig(path string) (*fileConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: cannot read it: %v", path, unwrapPathError(err))
	}
	return parseConfig(path, data)
}

func parseConfig(path string, data []byte) (*fileConfig, error) {
	cfg := &fileConfig{path: path}
	// First pass: syntax, and the line of every endpoint for later messages.
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, syntaxError(path, data, err)
	}
	if len(root.Content) == 0 {
		return cfg, nil // empty file, or only comments
	}
	if doc := root.Content[0]; doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config %s: line %d: want a mapping with endpoints, workload, ramp and slo (see the examples in docs/config.md)", path, doc.Line)
	}
	// Second pass: strict decoding into the typed config.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		paths := map[string]string{}
		keyPaths(&root, "", paths)
		return nil, configErrorAt(path, err, paths)
	}
	cfg.lines = map[string]int{}
	walkKeys(&root, "", func(n *yaml.Node, path string) { cfg.lines[path] = n.Line })
	return cfg, nil
}

// at names the value of a key path of the file for messages: "config F: line N: key".
func (c *fileConfig) at(key string) string {
	if line, ok := c.lines[key]; ok {
		return fmt.Sprintf("config %s: line %d: %s", c.path, line, key)
	}
	return fmt.Sprintf("config %s: %s", c.path, key)
}

// where names endpoint i of the file for messages.
func (c *fileConfig) where(i int) string {
	s := c.at(fmt.Sprintf("endpoints[%d]", i))
	if name := c.Endpoints[i].Name; name != "" {
		s += " (" + name + ")"
	}
	return s
}

// keyOrigin is where key of endpoint i is written in the file, for messages.
func (c *fileConfig) keyOrigin(i int, key string) origin {
	where := c.at(fmt.Sprintf("endpoints[%d].%s", i, key))
	if name := c.Endpoints[i].Name; name != "" {
		where += " (" + name + ")"
	}
	return origin{where: where, writeAs: key + ": "}
}
