package main

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/probe/settings"
	"github.com/tpsmon/tpsmon/probe/sim"
)

func (a *app) newSimCmd() *cobra.Command {
	c, _ := a.simCmd()
	return c
}

// simCmd is tpsmon sim, and its flags bound.
func (a *app) simCmd() (*cobra.Command, *settings.SimFlags) {
	var f *settings.SimFlags
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
  tpsmon sim --close-after-stream      # like llama.cpp's llama-server
  tpsmon sim --down-after 20s --down-for 10s
  tpsmon sim --refuse 429 --retry-after 2s
  tpsmon sim --auth-key sk-local       # HTTP 401 without "Authorization: Bearer sk-local"
  tpsmon sim --buffer-answers          # like a proxy that buffers whole answers`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runSim(cmd, f)
		},
	}
	f = settings.RegisterSim(c.Flags())
	return c, f
}

func (a *app) runSim(cmd *cobra.Command, f *settings.SimFlags) error {
	cfg, err := f.Config()
	if err != nil {
		return usage(err)
	}
	addr := f.Addr()
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return usageErrorf("--addr %q: want host:port, e.g. 127.0.0.1:8000", addr)
	}
	ctx := cmd.Context()
	inst, err := sim.Start(ctx, addr, cfg)
	if err != nil {
		cause := err
		var oe *net.OpError
		if errors.As(err, &oe) {
			cause = oe.Err // "bind: address already in use", without the repeated address
		}
		return usageErrorf("--addr %s: cannot listen: %v (is another server using the port? try --addr 127.0.0.1:0)", addr, cause)
	}
	defer inst.Close()
	fmt.Fprint(a.stdout, describeSim(cfg))
	fmt.Fprintf(a.stdout, "serving %s (Ctrl-C to stop)\n\n", inst.URL)
	fmt.Fprintf(a.stdout, "  tpsmon --url %s --model %s\n", inst.URL, shellQuote(cfg.Model))
	fmt.Fprintf(a.stdout, "  tpsmon bench --url %s --model %s\n", inst.URL, shellQuote(cfg.Model))
	if cfg.AuthKey != "" {
		fmt.Fprintf(a.stdout, "  (with the key given to --auth-key in $%s)\n", "OPENAI_API_KEY")
	}
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
	if cfg.StreamErrorRate > 0 {
		faults = append(faults, pct(cfg.StreamErrorRate)+" of streams end with an in-band error")
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
	if service := describeService(cfg); len(service) > 0 {
		fmt.Fprintf(&b, "  service: %s\n", strings.Join(service, ", "))
	}
	return b.String()
}

// describeService says what the service around the model does to requests: its key,
// a refusal, Retry-After, a proxy, another client, an outage.
func describeService(cfg sim.Config) []string {
	var out []string
	if cfg.AuthKey != "" {
		out = append(out, "HTTP 401 without the key given to --auth-key")
	}
	if cfg.Refuse != 0 {
		out = append(out, fmt.Sprintf("every completion request answered HTTP %d", cfg.Refuse))
	}
	if cfg.RetryAfter > 0 {
		out = append(out, fmt.Sprintf("Retry-After %d s with HTTP 429", int(math.Ceil(cfg.RetryAfter.Seconds()))))
	}
	if cfg.BufferAnswers {
		out = append(out, "answers held until complete (a buffering proxy)")
	}
	if cfg.ProxyLimit > 0 {
		out = append(out, fmt.Sprintf("a proxy in front lets %d requests through at a time", cfg.ProxyLimit))
	}
	if cfg.OtherUsers > 0 {
		out = append(out, fmt.Sprintf("another client keeps %d streams busy", cfg.OtherUsers))
	}
	switch {
	case cfg.DownAfter > 0 && cfg.DownFor > 0:
		out = append(out, fmt.Sprintf("down after %s for %s", cfg.DownAfter, cfg.DownFor))
	case cfg.DownAfter > 0:
		out = append(out, fmt.Sprintf("down after %s for good", cfg.DownAfter))
	}
	return out
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
