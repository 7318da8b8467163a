package settings

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// Workload is what every request asks for: the config file's workload block.
type Workload struct {
	MaxTokens    Value[string] // N, uniform:LO:HI or normal:MEAN:STDEV
	PromptTokens Value[string] // likewise
	Prompt       Value[string]
	IgnoreEOS    Value[bool]
	Timeout      Value[time.Duration]
	Seed         Value[uint64] // 0: a new random seed each run
	Dataset      Value[string]
	PrefixTokens Value[int]
	Traffic      Traffic // traces and conversations (traffic.go)
}

// workloadFlags registers the workload's flags.
func (f *Flags) workloadFlags(fs *pflag.FlagSet) {
	g, d := &f.Given.Workload, &f.Defaults.Workload
	// 128, as vLLM's `bench serve` asks of its random dataset: per-user tok/s is a decode rate
	// and does not depend on the length; a shorter answer halves every level's rounds.
	bind(fs, &g.MaxTokens, &d.MaxTokens, text, "max-tokens", "128",
		"max_tokens of every request: N, or drawn per request from uniform:LO:HI or normal:MEAN:STDEV")
	bind(fs, &g.Prompt, &d.Prompt, text, "prompt", "", "prompt text (default: a synthetic prompt of --prompt-tokens tokens)")
	bind(fs, &g.PromptTokens, &d.PromptTokens, text, "prompt-tokens", "128",
		"size of the synthetic prompt, in tokens (about): N, or drawn per request from uniform:LO:HI or normal:MEAN:STDEV")
	bind(fs, &g.Seed, &d.Seed, seedKind, "seed", 0,
		"seed of the synthetic prompts, rate mode's arrivals, length draws and the dataset's order: the same seed sends the same requests again (default: a new random seed each run, written in the results' settings)")
	bind(fs, &g.IgnoreEOS, &d.IgnoreEOS, boolean, "ignore-eos", false,
		`ask the server to always generate max_tokens (extra body {"ignore_eos": true}, vLLM and SGLang)`)
	bind(fs, &g.Timeout, &d.Timeout, duration, "timeout", 60*time.Second,
		"longest wait for response headers and for each next event of a stream")
	bind(fs, &g.Dataset, &d.Dataset, text, "dataset", "",
		`JSON Lines file of requests, one a line: {"prompt": "..."} or {"messages": [...]}, optionally "max_tokens"; or a ShareGPT JSON file`)
	bind(fs, &g.PrefixTokens, &d.PrefixTokens, whole, "prefix-tokens", 0,
		"a shared prefix of N tokens before every prompt (to measure prefix caching; default: every prompt differs)")
	f.trafficFlags(fs)
}

// workloadFile is the config file's workload block.
type workloadFile struct {
	MaxTokens    *lengthSpec `yaml:"max_tokens"`
	Prompt       *string     `yaml:"prompt"`
	PromptTokens *lengthSpec `yaml:"prompt_tokens"`
	IgnoreEOS    *bool       `yaml:"ignore_eos"`
	Timeout      *posDur     `yaml:"timeout"`
	Dataset      *string     `yaml:"dataset"`
	PrefixTokens *int        `yaml:"prefix_tokens"`
	Seed         *seed       `yaml:"seed"`
	// Traces and conversations (traffic.go).
	Trace       *string  `yaml:"trace"`
	TraceSpeed  *float64 `yaml:"trace_speed"`
	TraceWindow *posDur  `yaml:"trace_window"`
	Turns       *string  `yaml:"turns"`
	History     *string  `yaml:"history"`
	ThinkTime   *zeroDur `yaml:"think_time"`
}

// layer is the block's keys as settings, each at its line.
func (w workloadFile) layer(c *fileConfig) Workload {
	at := func(key string) Origin { return c.origin("workload." + key) }
	return Workload{
		MaxTokens:    opt(w.MaxTokens, at("max_tokens"), lengthSpec.String),
		Prompt:       opt(w.Prompt, at("prompt"), same),
		PromptTokens: opt(w.PromptTokens, at("prompt_tokens"), lengthSpec.String),
		IgnoreEOS:    opt(w.IgnoreEOS, at("ignore_eos"), same),
		Timeout:      opt(w.Timeout, at("timeout"), posDur.Duration),
		Dataset:      opt(w.Dataset, at("dataset"), same),
		PrefixTokens: opt(w.PrefixTokens, at("prefix_tokens"), same),
		Seed:         opt(w.Seed, at("seed"), func(s seed) uint64 { return uint64(s) }),
		Traffic:      w.trafficLayer(at),
	}
}

// maxExactSeed bounds the random seeds: below 2^53 every JSON reader holds them exactly.
const maxExactSeed = 1 << 53

// workload is the request every endpoint sends (its endpoint fields left to
// endpoints), and the workload in words for the report. shard gets its own seed.
func (p *Plan) workload(w Workload, shard *model.ReportShard) (client.Endpoint, error) {
	if v := w.PrefixTokens; v.V < 0 && v.From.Layer == File {
		return client.Endpoint{}, errorf("%s: the shared prefix must be 0 tokens or more", v.From.Where)
	}
	maxTok, err := workload.ParseLengths(w.MaxTokens.V)
	if err != nil {
		return client.Endpoint{}, errorf("--max-tokens: %v", err)
	}
	promptTok, err := workload.ParseLengths(w.PromptTokens.V)
	if err != nil {
		return client.Endpoint{}, errorf("--prompt-tokens: %v", err)
	}
	ep := client.Endpoint{MaxTokens: int(maxTok.Mean()), Prompt: w.Prompt.V, PromptTokens: int(promptTok.Mean()),
		IgnoreEOS: w.IgnoreEOS.V, Timeout: w.Timeout.V}
	if err := checkRequest(ep); err != nil {
		return ep, err
	}
	if ep.Prompt == "" { // a prompt given is sent as it is: no seed
		ep.PromptSeed = w.Seed.V
		if ep.PromptSeed == 0 {
			ep.PromptSeed = 1 + rand.Uint64N(maxExactSeed-1)
		}
	}
	ep.PromptSeed = shardSeed(ep.PromptSeed, shard)
	p.Rate.Seed = ep.PromptSeed // the seed (given or drawn): arrivals and draws too
	dist := maxTok.Kind != workload.Fixed || promptTok.Kind != workload.Fixed
	if ep.Workload, err = source(w, ep, maxTok, promptTok, dist); err != nil {
		return ep, err
	}
	p.Workload = workloadWords(w, dist)
	return ep, nil
}

// checkRequest refuses a request no server could answer, naming the flag.
func checkRequest(ep client.Endpoint) error {
	switch {
	case ep.MaxTokens < 1:
		return errorf("--max-tokens %d: want at least 1", ep.MaxTokens)
	case ep.PromptTokens < 0:
		return errorf("--prompt-tokens %d: want 0 or more", ep.PromptTokens)
	case ep.Timeout <= 0:
		return errorf("--timeout %s: want a positive duration such as 60s", ep.Timeout)
	}
	return nil
}

// source is the run's workload: the dataset, or length distributions and a shared
// prefix; nil when every request is the default synthetic one.
func source(w Workload, ep client.Endpoint, maxTok, promptTok workload.Lengths, dist bool) (workload.Source, error) {
	prefix, seed := w.PrefixTokens.V, ep.PromptSeed
	if w.Dataset.V != "" && conversing(w.Traffic) {
		return nil, nil // conversations: Plan.traffic reads the dataset's whole dialogs
	}
	if ds := w.Dataset.V; ds != "" {
		entries, _, err := workload.LoadFile(ds)
		if err != nil {
			return nil, datasetError(ds, err)
		}
		src, err := workload.NewSampled(entries, seed, prefix)
		if err != nil {
			return nil, workloadError(ds, err)
		}
		return src, nil
	}
	if !dist && prefix == 0 {
		return nil, nil
	}
	if ep.Prompt != "" {
		return nil, errorf("--prompt sends one fixed prompt: it excludes --prefix-tokens and length distributions")
	}
	if maxTok.Kind == workload.Fixed {
		maxTok = workload.Fix(ep.MaxTokens)
	}
	if promptTok.Kind == workload.Fixed {
		promptTok = workload.Fix(max(ep.PromptTokens, 1))
	}
	src, err := workload.NewSynthetic(promptTok, maxTok, prefix, seed)
	if err != nil {
		return nil, workloadError("", err)
	}
	return src, nil
}

// workloadError maps the workload's typed errors to the flag behind them.
func workloadError(dataset string, err error) error {
	var pe *workload.PrefixError
	switch {
	case errors.As(err, &pe):
		return errorf("--prefix-tokens: %v", err)
	case errors.Is(err, workload.ErrEmpty):
		return errorf("--dataset %s: %v", dataset, err)
	}
	return errorf("%v", err)
}

// datasetError says which --dataset file failed and where.
func datasetError(path string, err error) error {
	var le *workload.LineError
	if errors.As(err, &le) {
		return errorf("--dataset %v", err) // err begins with the file's name
	}
	if errors.Is(err, workload.ErrEmpty) {
		return errorf("--dataset %s: %v", path, err)
	}
	return errorf("--dataset: %v", err)
}

// workloadWords describes the workload for the report: the dataset, the length
// distributions and the shared prefix ("" when none is set).
func workloadWords(w Workload, dist bool) string {
	var out []string
	if w.Dataset.V != "" {
		out = append(out, "dataset "+w.Dataset.V)
	} else if dist {
		for _, d := range []struct{ name, v string }{{"max_tokens drawn from ", w.MaxTokens.V}, {"prompt tokens drawn from ", w.PromptTokens.V}} {
			if strings.Contains(d.v, ":") {
				out = append(out, d.name+d.v)
			}
		}
	}
	if w.PrefixTokens.V > 0 {
		out = append(out, "shared prefix "+strconv.Itoa(w.PrefixTokens.V)+" tokens")
	}
	return strings.Join(out, " · ")
}
