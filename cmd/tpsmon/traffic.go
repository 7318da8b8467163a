package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/arrival"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/workload"
	"go.yaml.in/yaml/v3"
)

// trafficFlags are the flags of rate mode and workloads (issue 8), shared by the live
// screen and bench.
type trafficFlags struct {
	rate           string
	arrival        string
	maxConcurrency int
	dataset        string
	prefixTokens   int
	maxTokens      string // N | uniform:LO:HI | normal:MEAN:STDEV
	promptTokens   string
	seed           uint64 // the run's seed (--seed): arrivals, length draws, the dataset's order
}

// registerTraffic adds the rate-mode and workload flags.
func (t *trafficFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&t.rate, "rate", "", "rate mode (open loop): requests start at R per second whatever the answers take; bench takes a list of rates to walk, e.g. 2,4,8,16 (excludes --ramp)")
	fs.StringVar(&t.arrival, "arrival", "poisson", "how rate-mode arrivals are spaced: poisson (seeded) or constant")
	fs.IntVar(&t.maxConcurrency, "max-concurrency", 0, "rate mode: the most requests in flight; an arrival that finds it full waits on tpsmon's side (measured apart from TTFT) (default: no cap)")
	fs.StringVar(&t.dataset, "dataset", "", `JSON Lines file of requests, one a line: {"prompt": "..."} or {"messages": [...]}, optionally "max_tokens"; or a ShareGPT JSON file`)
	fs.IntVar(&t.prefixTokens, "prefix-tokens", 0, "a shared prefix of N tokens before every prompt (to measure prefix caching; default: every prompt differs)")
}

// rateMode is a run's rate mode: on when --rate was given.
type rateMode struct {
	on             bool
	kind           arrival.Kind
	maxConcurrency int
	seed           uint64
}

// parseRates reads --rate: whole numbers of requests per second, at least 1.
func parseRates(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || v < 1 || v > 10000 || math.IsNaN(v) || v != math.Trunc(v) {
			return nil, fmt.Errorf("--rate %q: %q is not a rate of requests per second (a whole number from 1 to 10000); write e.g. --rate 10 or --rate 2,4,8,16", s, part)
		}
		out = append(out, int(v))
	}
	return out, nil
}

// resolveRate reads --rate, --arrival and --max-concurrency, over the config's rate,
// arrival and max_concurrency; with a rate, its rates replace the ramp's levels
// (levels are then arrival rates).
func (p *plan) resolveRate(f *runFlags, cfg *fileConfig, changed func(string) bool) error {
	t := &f.traffic
	rateOnly, err := rateFromConfig(f, cfg, changed)
	if err != nil {
		return err
	}
	if t.maxConcurrency < 0 {
		return usageErrorf("--max-concurrency %d: want 0 (no cap) or more", t.maxConcurrency)
	}
	kind, err := arrival.ParseKind(t.arrival)
	if err != nil {
		return usageErrorf("--arrival: %v", err)
	}
	if t.rate == "" {
		if changed("arrival") || changed("max-concurrency") {
			return usageErrorf("--arrival and --max-concurrency are for rate mode: give --rate too, e.g. --rate 10")
		}
		if rateOnly != "" {
			return usageErrorf("%s: arrival and max_concurrency are for rate mode: add rate beside it (e.g. rate: [2, 4, 8, 16]) or give --rate", cfg.at(rateOnly))
		}
		return nil
	}
	if changed("ramp") {
		return usageErrorf("--rate and --ramp exclude each other: --rate walks arrival rates (e.g. --rate 2,4,8,16), --ramp walks users")
	}
	rates, err := parseRates(t.rate)
	if err != nil {
		return usageErrorf("%v", err)
	}
	p.ramp.Levels = rates
	p.rate = rateMode{on: true, kind: kind, maxConcurrency: t.maxConcurrency, seed: t.seed}
	return nil
}

// rateFromConfig takes the config's ramp.rate, ramp.arrival and ramp.max_concurrency
// where the flags were not given; --ramp replaces the file's walk, rate mode included.
// rateOnly is the key of an arrival or max_concurrency taken from the file ("" when
// none), for the message when no rate is given.
func rateFromConfig(f *runFlags, cfg *fileConfig, changed func(string) bool) (rateOnly string, err error) {
	rc, t := &cfg.Ramp, &f.traffic
	if rc.Rate != nil && len(rc.Levels) > 0 {
		return "", usageErrorf("%s: rate and levels exclude each other: rate walks arrival rates (requests/s), levels walks users; keep one", cfg.at("ramp.rate"))
	}
	if changed("ramp") && !changed("rate") {
		return "", nil
	}
	if rc.Rate != nil && !changed("rate") {
		t.rate = rc.Rate.text
	}
	if rc.MaxConcurrency != nil && !changed("max-concurrency") {
		t.maxConcurrency, rateOnly = int(*rc.MaxConcurrency), "ramp.max_concurrency"
	}
	if rc.Arrival != nil && !changed("arrival") {
		t.arrival, rateOnly = string(*rc.Arrival), "ramp.arrival"
	}
	return rateOnly, nil
}

// poolOptions are the pools' options of the plan: rate mode's open loop when on.
func (p *plan) poolOptions() []probe.Option {
	if !p.rate.on || p.trace != nil {
		return p.realOptions()
	}
	return append([]probe.Option{probe.WithOpenLoop(p.rate.kind, p.rate.seed, p.rate.maxConcurrency)}, p.realOptions()...)
}

// conns is the HTTP connections per endpoint in rate mode: the cap, else room for a
// few seconds of the highest rate (0 outside rate mode: the engine sizes it).
func (p *plan) conns() int {
	if p.trace != nil {
		return p.traceConns
	}
	if !p.rate.on {
		return 0
	}
	if p.rate.maxConcurrency > 0 {
		return p.rate.maxConcurrency
	}
	top := 1
	for _, r := range p.ramp.Levels {
		top = max(top, r)
	}
	return max(64, 8*top)
}

// resolveLengths reads --max-tokens and --prompt-tokens: a number sets w's own
// MaxTokens/PromptTokens as before; a distribution makes a synthetic workload.
func resolveLengths(f *runFlags) (maxTok, promptTok workload.Lengths, dist bool, err error) {
	maxTok, err = workload.ParseLengths(f.traffic.maxTokens)
	if err != nil {
		return maxTok, promptTok, false, usageErrorf("--max-tokens: %v", err)
	}
	promptTok, err = workload.ParseLengths(f.traffic.promptTokens)
	if err != nil {
		return maxTok, promptTok, false, usageErrorf("--prompt-tokens: %v", err)
	}
	dist = maxTok.Kind != workload.Fixed || promptTok.Kind != workload.Fixed
	return maxTok, promptTok, dist, nil
}

// workloadSource is the run's workload: --dataset, or length distributions and a
// shared prefix; nil when every request is the default synthetic one.
func workloadSource(f *runFlags, w client.Endpoint, maxTok, promptTok workload.Lengths, dist bool) (workload.Source, error) {
	t := &f.traffic
	if t.dataset != "" && !strings.EqualFold(strings.TrimSpace(f.real.turns), "first") {
		return nil, nil // conversations: resolveReal reads the dataset's whole dialogs
	}
	if t.dataset != "" {
		entries, _, err := workload.LoadFile(t.dataset)
		if err != nil {
			return nil, datasetError(t.dataset, err)
		}
		src, err := workload.NewSampled(entries, t.seed, t.prefixTokens)
		if err != nil {
			return nil, workloadError(t.dataset, err)
		}
		return src, nil
	}
	if !dist && t.prefixTokens == 0 {
		return nil, nil
	}
	if w.Prompt != "" {
		return nil, usageErrorf("--prompt sends one fixed prompt: it excludes --prefix-tokens and length distributions")
	}
	if maxTok.Kind == workload.Fixed {
		maxTok = workload.Fix(w.MaxTokens)
	}
	if promptTok.Kind == workload.Fixed {
		promptTok = workload.Fix(max(w.PromptTokens, 1))
	}
	src, err := workload.NewSynthetic(promptTok, maxTok, t.prefixTokens, t.seed)
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
		return usageErrorf("--prefix-tokens: %v", err)
	case errors.Is(err, workload.ErrEmpty):
		return usageErrorf("--dataset %s: %v", dataset, err)
	}
	return usageErrorf("%v", err)
}

// datasetError says which --dataset file failed and where.
func datasetError(path string, err error) error {
	var le *workload.LineError
	if errors.As(err, &le) {
		return usageErrorf("--dataset %v", err) // err begins with the file's name
	}
	if errors.Is(err, workload.ErrEmpty) {
		return usageErrorf("--dataset %s: %v", path, err)
	}
	return usageErrorf("--dataset: %v", err)
}

// openLoop is rate mode's settings for the engine's report (nil in users mode).
func (p *plan) openLoop() *engine.OpenLoop {
	if !p.rate.on {
		return nil
	}
	return &engine.OpenLoop{Arrival: p.rate.kind.String(), MaxConcurrency: p.rate.maxConcurrency}
}

// workloadWords describes the workload flags for the report: the dataset, the length
// distributions and the shared prefix ("" when none is set).
func workloadWords(f *runFlags, dist bool) string {
	t := &f.traffic
	var out []string
	if t.dataset != "" {
		out = append(out, "dataset "+t.dataset)
	} else if dist {
		for _, d := range []struct{ name, v string }{{"max_tokens drawn from ", t.maxTokens}, {"prompt tokens drawn from ", t.promptTokens}} {
			if strings.Contains(d.v, ":") {
				out = append(out, d.name+d.v)
			}
		}
	}
	if t.prefixTokens > 0 {
		out = append(out, "shared prefix "+strconv.Itoa(t.prefixTokens)+" tokens")
	}
	return strings.Join(out, " · ")
}

// lengthSpec is a config length: a number of tokens, or a distribution as the flags
// take it (uniform:LO:HI, normal:MEAN:STDEV).
type lengthSpec struct {
	text string
	l    workload.Lengths
}

func (s *lengthSpec) UnmarshalYAML(n *yaml.Node) error {
	l, err := workload.ParseLengths(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "want a number of tokens, uniform:LO:HI or normal:MEAN:STDEV, got %q", n.Value)
	}
	*s = lengthSpec{text: n.Value, l: l}
	return nil
}

// mean is the length asked for on average (the number itself when fixed).
func (s *lengthSpec) mean() int { return int(s.l.Mean()) }

// workloadFromConfig takes the config's dataset, shared prefix and length
// distributions where the flags were not given.
func workloadFromConfig(f *runFlags, cfg *fileConfig, changed func(string) bool) error {
	wc, t := &cfg.Workload, &f.traffic
	if wc.Dataset != nil && !changed("dataset") {
		t.dataset = *wc.Dataset
	}
	if wc.PrefixTokens != nil && !changed("prefix-tokens") {
		if *wc.PrefixTokens < 0 {
			return usageErrorf("%s: the shared prefix must be 0 tokens or more", cfg.at("workload.prefix_tokens"))
		}
		t.prefixTokens = *wc.PrefixTokens
	}
	if wc.MaxTokens != nil && !changed("max-tokens") {
		t.maxTokens = wc.MaxTokens.text
	}
	if wc.PromptTokens != nil && !changed("prompt-tokens") {
		t.promptTokens = wc.PromptTokens.text
	}
	return nil
}
