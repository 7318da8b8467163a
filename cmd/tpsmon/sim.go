package main

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"time"

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
	// The service's faults.
	authKey            string
	refuse, proxyLimit int
	otherUsers         int
	retryAfter         time.Duration
	downAfter, downFor time.Duration
	streamErrorRate    float64
	bufferAnswers      bool
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
	fs.Float64Var(&f.streamErrorRate, "stream-error-rate", 0, "fraction of streams that end mid-way with an in-band error event, then [DONE]")
	fs.DurationVar(&f.downAfter, "down-after", 0, "go down this long after starting: open connections cut, new ones refused (e.g. 20s)")
	fs.DurationVar(&f.downFor, "down-for", 0, "with --down-after: come back on the same address after this long (default: stay down)")
	fs.StringVar(&f.authKey, "auth-key", "", `answer HTTP 401 to every /v1 request without "Authorization: Bearer KEY", as vLLM's --api-key does`)
	fs.IntVar(&f.refuse, "refuse", 0, "answer every completion request with this HTTP status (401, 403, 404, 429, 500, 503...) while /v1/models still answers")
	fs.DurationVar(&f.retryAfter, "retry-after", 0, "send a Retry-After header of this long (whole seconds, rounded up) with every HTTP 429")
	fs.BoolVar(&f.bufferAnswers, "buffer-answers", false, "hold each answer until it is complete, then send it at once, as a buffering proxy does")
	fs.IntVar(&f.proxyLimit, "proxy-limit", 0, "put a proxy in front that lets this many requests through at a time; the others wait in it, unseen by /metrics")
	fs.IntVar(&f.otherUsers, "other-users", 0, "another client keeps this many streams busy on the server (its tokens show in /metrics only)")
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
		{"stream-error-rate", f.streamErrorRate < 0 || f.streamErrorRate > 1, "from 0 to 1", func() { cfg.StreamErrorRate = f.streamErrorRate }},
		{"down-after", f.downAfter < 0, "a positive duration such as 20s", func() { cfg.DownAfter = f.downAfter }},
		{"down-for", f.downFor < 0, "a positive duration such as 10s", func() { cfg.DownFor = f.downFor }},
		{"auth-key", strings.TrimSpace(f.authKey) == "", "a key", func() { cfg.AuthKey = f.authKey }},
		{"refuse", f.refuse != 0 && (f.refuse < 400 || f.refuse > 599), "an HTTP error status from 400 to 599", func() { cfg.Refuse = f.refuse }},
		{"retry-after", f.retryAfter < 0, "a positive duration such as 2s", func() { cfg.RetryAfter = f.retryAfter }},
		{"proxy-limit", f.proxyLimit < 0, "0 or more", func() { cfg.ProxyLimit = f.proxyLimit }},
		{"other-users", f.otherUsers < 0, "0 or more", func() { cfg.OtherUsers = f.otherUsers }},
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
	cfg.BufferAnswers = f.bufferAnswers
	if set("down-for") && !set("down-after") {
		return cfg, usageErrorf("--down-for %s: give --down-after too (when the server goes down)", f.downFor)
	}
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
