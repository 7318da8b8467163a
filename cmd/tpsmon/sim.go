package main

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/probe/sim"
)

type simFlags struct {
	addr, profile, model                    string
	slots, tokensPerChunk                   int
	stepMs, stepMsPerSeq, prefillMsPerToken float64
	jitter, errorRate                       float64
	seed                                    int64
	maxQueue, prefixCacheTokens, kvTokens   int
	dropRate, stallRate, stallMs            float64
	closeAfterStream                        bool
}

func (a *app) newSimCmd() *cobra.Command { return a.simCmd(&simFlags{}) }

// simCmd is tpsmon sim with its flags bound to f.
func (a *app) simCmd(f *simFlags) *cobra.Command {
	c := &cobra.Command{
		Use:   "sim",
		Short: "Serve the built-in simulated OpenAI-compatible endpoint",
		Long: `sim serves an OpenAI-compatible endpoint (/v1/models, /v1/chat/completions,
/v1/completions, streaming) that behaves like a continuous-batching GPU server:
slots sequences decode together, each decode step takes
step-ms + step-ms-per-seq x active sequences, and more requests wait in a queue.
Flags you give override the profile's values. Profiles: ` + strings.Join(sim.ProfileNames(), ", ") + `.`,
		Example: `  tpsmon sim
  tpsmon sim --addr 127.0.0.1:9000 --slots 8 --step-ms 20 --step-ms-per-seq 2
  tpsmon sim --max-queue 8 --drop-rate 0.01 --stall-rate 0.05 --stall-ms 3000
  tpsmon sim --prefix-cache-tokens 200000
  tpsmon sim --close-after-stream      # like llama.cpp's llama-server`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runSim(cmd, f)
		},
	}
	fs := c.Flags()
	fs.SortFlags = false
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8000", "address to listen on")
	fs.StringVar(&f.profile, "profile", sim.DefaultProfile, "profile: "+strings.Join(sim.ProfileNames(), ", "))
	fs.StringVar(&f.model, "model", "", "model name to serve (default: the profile's)")
	fs.IntVar(&f.slots, "slots", 0, "sequences decoded together; more requests queue (default: the profile's)")
	fs.Float64Var(&f.stepMs, "step-ms", 0, "fixed time of one decode step, ms (default: the profile's)")
	fs.Float64Var(&f.stepMsPerSeq, "step-ms-per-seq", 0, "time added to a decode step per active sequence, ms (default: the profile's)")
	fs.Float64Var(&f.prefillMsPerToken, "prefill-ms-per-token", 0, "prefill time per prompt token of a newly admitted request, ms (default: the profile's)")
	fs.IntVar(&f.tokensPerChunk, "tokens-per-chunk", 0, "tokens per streamed event (default: the profile's)")
	fs.Float64Var(&f.jitter, "jitter", 0, "relative jitter of step times, e.g. 0.05 for ±5% (default: the profile's)")
	fs.Int64Var(&f.seed, "seed", 0, "seed of the jitter and of the faults (default: the profile's)")
	fs.Float64Var(&f.errorRate, "error-rate", 0, "fraction of requests answered HTTP 500, e.g. 0.01 (default: the profile's)")
	fs.IntVar(&f.maxQueue, "max-queue", 0, "answer HTTP 429 when this many requests already wait for a slot; 0 = never (default: the profile's)")
	fs.Float64Var(&f.dropRate, "drop-rate", 0, "fraction of streams cut mid-way, no finish_reason nor [DONE] (default: the profile's)")
	fs.Float64Var(&f.stallRate, "stall-rate", 0, "fraction of streams that pause once mid-way for --stall-ms (default: the profile's)")
	fs.Float64Var(&f.stallMs, "stall-ms", 0, "how long a stalled stream pauses, ms (default: the profile's)")
	fs.IntVar(&f.kvTokens, "kv-tokens", 0, "KV-cache budget in tokens (prompts and answers of the running sequences); over it the newest are preempted; 0 = unlimited (default: the profile's)")
	fs.IntVar(&f.prefixCacheTokens, "prefix-cache-tokens", 0, "prompt tokens a prefix cache holds: a prompt's leading blocks seen before skip prefill; 0 = no cache (default: the profile's)")
	fs.BoolVar(&f.closeAfterStream, "close-after-stream", false, "close the connection after every streamed answer while advertising keep-alive, as llama.cpp's llama-server does")
	return c
}

// simConfig is the profile with the flags the user gave applied over it.
func simConfig(cmd *cobra.Command, f *simFlags) (sim.Config, error) {
	cfg, err := sim.Profile(f.profile)
	if err != nil {
		return cfg, usageErrorf("--profile: %v", err)
	}
	set := cmd.Flags().Changed
	if set("model") {
		if strings.TrimSpace(f.model) == "" {
			return cfg, usageErrorf("--model: want a model name")
		}
		cfg.Model = f.model
	}
	checks := []struct {
		flag string
		bad  bool
		want string
		set  func()
	}{
		{"slots", f.slots < 1, "at least 1", func() { cfg.Slots = f.slots }},
		{"step-ms", f.stepMs < 0, "0 or more", func() { cfg.StepMs = f.stepMs }},
		{"step-ms-per-seq", f.stepMsPerSeq < 0, "0 or more", func() { cfg.StepMsPerSeq = f.stepMsPerSeq }},
		{"prefill-ms-per-token", f.prefillMsPerToken < 0, "0 or more", func() { cfg.PrefillMsPerToken = f.prefillMsPerToken }},
		{"tokens-per-chunk", f.tokensPerChunk < 1, "at least 1", func() { cfg.TokensPerChunk = f.tokensPerChunk }},
		{"jitter", f.jitter < 0 || f.jitter >= 1, "from 0 to below 1", func() { cfg.Jitter = f.jitter }},
		{"seed", false, "", func() { cfg.Seed = f.seed }},
		{"error-rate", f.errorRate < 0 || f.errorRate > 1, "from 0 to 1", func() { cfg.ErrorRate = f.errorRate }},
		{"max-queue", f.maxQueue < 0, "0 or more", func() { cfg.MaxQueue = f.maxQueue }},
		{"drop-rate", f.dropRate < 0 || f.dropRate > 1, "from 0 to 1", func() { cfg.DropRate = f.dropRate }},
		{"stall-rate", f.stallRate < 0 || f.stallRate > 1, "from 0 to 1", func() { cfg.StallRate = f.stallRate }},
		{"stall-ms", f.stallMs < 0, "0 or more", func() { cfg.StallMs = f.stallMs }},
		{"kv-tokens", f.kvTokens < 0, "0 or more", func() { cfg.KVTokens = f.kvTokens }},
		{"prefix-cache-tokens", f.prefixCacheTokens < 0, "0 or more", func() { cfg.PrefixCacheTokens = f.prefixCacheTokens }},
	}
	for _, c := range checks {
		if !set(c.flag) {
			continue
		}
		if c.bad {
			v := cmd.Flags().Lookup(c.flag).Value.String()
			return cfg, usageErrorf("--%s %s: want %s", c.flag, v, c.want)
		}
		c.set()
	}
	cfg.CloseAfterStream = f.closeAfterStream
	if cfg.StepMs+cfg.StepMsPerSeq <= 0 {
		return cfg, usageErrorf("--step-ms and --step-ms-per-seq are both 0: a decode step must take some time")
	}
	return cfg, nil
}

func (a *app) runSim(cmd *cobra.Command, f *simFlags) error {
	cfg, err := simConfig(cmd, f)
	if err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usageErrorf("--addr %q: want host:port, e.g. 127.0.0.1:8000", f.addr)
	}
	ctx := cmd.Context()
	inst, err := sim.Start(ctx, f.addr, cfg)
	if err != nil {
		cause := err
		var oe *net.OpError
		if errors.As(err, &oe) {
			cause = oe.Err // "bind: address already in use", without the repeated address
		}
		return usageErrorf("--addr %s: cannot listen: %v (is another server using the port? try --addr 127.0.0.1:0)", f.addr, cause)
	}
	defer inst.Close()
	fmt.Fprint(a.stdout, describeSim(cfg))
	fmt.Fprintf(a.stdout, "serving %s (Ctrl-C to stop)\n\n", inst.URL)
	fmt.Fprintf(a.stdout, "  tpsmon --url %s --model %s\n", inst.URL, shellQuote(cfg.Model))
	fmt.Fprintf(a.stdout, "  tpsmon bench --url %s --model %s\n", inst.URL, shellQuote(cfg.Model))
	<-ctx.Done()
	return nil
}

// describeSim says what the simulator will do, every setting included, so that the
// flags given can be checked against it.
func describeSim(cfg sim.Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tpsmon sim: profile %q, model %q, %d slots, decode step %gms + %gms per sequence\n",
		cfg.Name, cfg.Model, cfg.Slots, cfg.StepMs, cfg.StepMsPerSeq)
	tokens := "1 token per event"
	if cfg.TokensPerChunk > 1 {
		tokens = fmt.Sprintf("%d tokens per event", cfg.TokensPerChunk)
	}
	jitter := "no jitter"
	if cfg.Jitter > 0 {
		jitter = "jitter ±" + pct(cfg.Jitter)
	}
	fmt.Fprintf(&b, "  prefill %gms per prompt token, %s, %s, seed %d", cfg.PrefillMsPerToken, tokens, jitter, cfg.Seed)
	if cfg.ReasoningTokens > 0 {
		fmt.Fprintf(&b, ", the first %d tokens (at most half an answer) as reasoning", cfg.ReasoningTokens)
	}
	b.WriteString("\n")
	var faults []string
	if cfg.ErrorRate > 0 {
		faults = append(faults, pct(cfg.ErrorRate)+" HTTP 500")
	}
	if cfg.MaxQueue > 0 {
		faults = append(faults, fmt.Sprintf("HTTP 429 when %d requests already wait", cfg.MaxQueue))
	}
	if cfg.DropRate > 0 {
		faults = append(faults, pct(cfg.DropRate)+" of streams cut")
	}
	if cfg.StallRate > 0 {
		faults = append(faults, fmt.Sprintf("%s of streams stall for %gms", pct(cfg.StallRate), cfg.StallMs))
	}
	if len(faults) > 0 {
		fmt.Fprintf(&b, "  faults: %s\n", strings.Join(faults, ", "))
	}
	if cfg.KVTokens > 0 {
		fmt.Fprintf(&b, "  KV cache of %d tokens: over it the newest sequences are preempted and recomputed\n", cfg.KVTokens)
	}
	if cfg.PrefixCacheTokens > 0 {
		fmt.Fprintf(&b, "  prefix cache of %d prompt tokens: a prompt's leading blocks seen before skip prefill\n", cfg.PrefixCacheTokens)
	}
	return b.String()
}

// pct formats a fraction as a percentage: 0.07 is "7%".
func pct(f float64) string { return fmt.Sprintf("%.4g%%", 100*f) }

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
