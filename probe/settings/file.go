package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

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
//
// Each block is declared beside its settings (endpoints.go, workload.go, ramp.go,
// slo.go), with its layer: the block's keys as Values, each at its line.
type fileConfig struct {
	Endpoints []endpointFile `yaml:"endpoints"`
	Workload  workloadFile   `yaml:"workload"`
	Ramp      rampFile       `yaml:"ramp"`
	SLO       sloFile        `yaml:"slo"`

	path  string
	lines map[string]int // line of the value of each key path, such as "endpoints[0].url"
}

// layer is what the file sets. A walk of both levels and rates is refused, wherever
// the flags take the walk from.
func (c *fileConfig) layer() (Settings, error) {
	var s Settings
	if c.Ramp.Rate != nil && len(c.Ramp.Levels) > 0 {
		return s, errorf("%s: rate and levels exclude each other: rate walks arrival rates (requests/s), levels walks users; keep one", c.at("ramp.rate"))
	}
	if len(c.Endpoints) > 0 {
		eps := make([]Endpoint, len(c.Endpoints))
		for i, e := range c.Endpoints {
			eps[i] = e.layer(c, i)
		}
		s.Endpoints = val(eps, c.origin("endpoints"))
	}
	s.Workload = c.Workload.layer(c)
	s.Ramp = c.Ramp.layer(c)
	s.SLO = c.SLO.layer(c)
	return s, nil
}

// opt is the Value of an optional key: unset when absent (p nil), else conv(*p) at o.
func opt[F, T any](p *F, o Origin, conv func(F) T) Value[T] {
	if p == nil {
		return Value[T]{}
	}
	return val(conv(*p), o)
}

// same is a key's value as it is.
func same[T any](v T) T { return v }

// readFile loads the --config file, or an empty config when there is none.
func readFile(path string) (*fileConfig, error) {
	if path == "" {
		return &fileConfig{}, nil
	}
	cfg, err := loadConfig(path)
	if err != nil {
		return nil, errorf("%s", err)
	}
	return cfg, nil
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

// origin is where key is written in the file; a corrected value is written "name: "
// (the key's last part).
func (c *fileConfig) origin(key string) Origin {
	return Origin{Layer: File, Where: c.at(key), WriteAs: key[strings.LastIndexByte(key, '.')+1:] + ": "}
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
func (c *fileConfig) keyOrigin(i int, key string) Origin {
	o := c.origin(fmt.Sprintf("endpoints[%d].%s", i, key))
	if name := c.Endpoints[i].Name; name != "" {
		o.Where += " (" + name + ")"
	}
	return o
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

// unwrapPathError is err without the *os.PathError's operation and path (the message
// names the file itself).
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
