package settings

import (
	"cmp"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// Sim is tpsmon sim's settings. Two layers make them: the profile's values, and the
// flags given over them. To add a simulator setting: a Value here, its flag in
// RegisterSim, and its line in SimFlags.Config (over, with what it accepts).
type Sim struct {
	Addr, Profile, Model                    Value[string]
	Slots, TokensPerChunk                   Value[int]
	StepMs, StepMsPerSeq, PrefillMsPerToken Value[float64]
	Jitter, ErrorRate                       Value[float64]
	Seed                                    Value[int64]
	MaxQueue, PrefixCacheTokens, KVTokens   Value[int]
	DropRate, StallRate, StallMs            Value[float64]
	CloseAfterStream                        Value[bool]
	// The service's faults (the diagnosis's table): an outage, refusals, a proxy,
	// another client.
	StreamErrorRate    Value[float64]
	DownAfter, DownFor Value[time.Duration]
	AuthKey            Value[string]
	Refuse, ProxyLimit Value[int]
	OtherUsers         Value[int]
	RetryAfter         Value[time.Duration]
	BufferAnswers      Value[bool]
}

// SimFlags are tpsmon sim's flags, bound to their settings: pflag fills Given.
type SimFlags struct{ Given, Defaults Sim }

// RegisterSim adds tpsmon sim's flags to fs and returns them bound.
func RegisterSim(fs *pflag.FlagSet) *SimFlags {
	f := &SimFlags{}
	g, d := &f.Given, &f.Defaults
	fs.SortFlags = false
	bind(fs, &g.Addr, &d.Addr, text, "addr", "127.0.0.1:8000", "address to listen on")
	bind(fs, &g.Profile, &d.Profile, text, "profile", sim.DefaultProfile, "profile: "+strings.Join(sim.ProfileNames(), ", "))
	bind(fs, &g.Model, &d.Model, text, "model", "", "model name to serve (default: the profile's)")
	bind(fs, &g.Slots, &d.Slots, whole, "slots", 0, "sequences decoded together; more requests queue (default: the profile's)")
	bind(fs, &g.StepMs, &d.StepMs, decimal, "step-ms", 0, "fixed time of one decode step, ms (default: the profile's)")
	bind(fs, &g.StepMsPerSeq, &d.StepMsPerSeq, decimal, "step-ms-per-seq", 0, "time added to a decode step per active sequence, ms (default: the profile's)")
	bind(fs, &g.PrefillMsPerToken, &d.PrefillMsPerToken, decimal, "prefill-ms-per-token", 0, "prefill time per prompt token of a newly admitted request, ms (default: the profile's)")
	bind(fs, &g.TokensPerChunk, &d.TokensPerChunk, whole, "tokens-per-chunk", 0, "tokens per streamed event (default: the profile's)")
	bind(fs, &g.Jitter, &d.Jitter, decimal, "jitter", 0, "relative jitter of step times, e.g. 0.05 for ±5% (default: the profile's)")
	bind(fs, &g.Seed, &d.Seed, whole64, "seed", 0, "seed of the jitter and of the faults (default: the profile's)")
	bind(fs, &g.ErrorRate, &d.ErrorRate, decimal, "error-rate", 0, "fraction of requests answered HTTP 500, e.g. 0.01 (default: the profile's)")
	bind(fs, &g.MaxQueue, &d.MaxQueue, whole, "max-queue", 0, "answer HTTP 429 when this many requests already wait for a slot; 0 = never (default: the profile's)")
	bind(fs, &g.DropRate, &d.DropRate, decimal, "drop-rate", 0, "fraction of streams cut mid-way, no finish_reason nor [DONE] (default: the profile's)")
	bind(fs, &g.StallRate, &d.StallRate, decimal, "stall-rate", 0, "fraction of streams that pause once mid-way for --stall-ms (default: the profile's)")
	bind(fs, &g.StallMs, &d.StallMs, decimal, "stall-ms", 0, "how long a stalled stream pauses, ms (default: the profile's)")
	bind(fs, &g.KVTokens, &d.KVTokens, whole, "kv-tokens", 0, "KV-cache budget in tokens (prompts and answers of the running sequences); over it the newest are preempted; 0 = unlimited (default: the profile's)")
	bind(fs, &g.PrefixCacheTokens, &d.PrefixCacheTokens, whole, "prefix-cache-tokens", 0, "prompt tokens a prefix cache holds: a prompt's leading blocks seen before skip prefill; 0 = no cache (default: the profile's)")
	bind(fs, &g.CloseAfterStream, &d.CloseAfterStream, boolean, "close-after-stream", false, "close the connection after every streamed answer while advertising keep-alive, as llama.cpp's llama-server does")
	bind(fs, &g.StreamErrorRate, &d.StreamErrorRate, decimal, "stream-error-rate", 0, "fraction of streams that end mid-way with an in-band error event, then [DONE]")
	bind(fs, &g.DownAfter, &d.DownAfter, duration, "down-after", 0, "go down this long after starting: open connections cut, new ones refused (e.g. 20s)")
	bind(fs, &g.DownFor, &d.DownFor, duration, "down-for", 0, "with --down-after: come back on the same address after this long (default: stay down)")
	bind(fs, &g.AuthKey, &d.AuthKey, text, "auth-key", "", `answer HTTP 401 to every /v1 request without "Authorization: Bearer KEY", as vLLM's --api-key does`)
	bind(fs, &g.Refuse, &d.Refuse, whole, "refuse", 0, "answer every completion request with this HTTP status (401, 403, 404, 429, 500, 503...) while /v1/models still answers")
	bind(fs, &g.RetryAfter, &d.RetryAfter, duration, "retry-after", 0, "send a Retry-After header of this long (whole seconds, rounded up) with every HTTP 429")
	bind(fs, &g.BufferAnswers, &d.BufferAnswers, boolean, "buffer-answers", false, "hold each answer until it is complete, then send it at once, as a buffering proxy does")
	bind(fs, &g.ProxyLimit, &d.ProxyLimit, whole, "proxy-limit", 0, "put a proxy in front that lets this many requests through at a time; the others wait in it, unseen by /metrics")
	bind(fs, &g.OtherUsers, &d.OtherUsers, whole, "other-users", 0, "another client keeps this many streams busy on the server (its tokens show in /metrics only)")
	return f
}

// Addr is the address to listen on (--addr or its default).
func (f *SimFlags) Addr() string { return Apply(f.Defaults, f.Given).Addr.V }

// Config is the profile with the flags given over it; a value a flag gives is refused,
// naming the flag, when the simulator cannot use it.
func (f *SimFlags) Config() (sim.Config, error) {
	s := &f.Given
	cfg, err := sim.Profile(Apply(f.Defaults, f.Given).Profile.V)
	if err != nil {
		return cfg, errorf("--profile: %v", err)
	}
	if s.Model.Given() && strings.TrimSpace(s.Model.V) == "" {
		return cfg, errorf("--model: want a model name")
	}
	s.Model.into(&cfg.Model)
	for _, err := range []error{
		over(&cfg.Slots, s.Slots, 1, -1, "at least 1"),
		over(&cfg.StepMs, s.StepMs, 0, -1, "0 or more"),
		over(&cfg.StepMsPerSeq, s.StepMsPerSeq, 0, -1, "0 or more"),
		over(&cfg.PrefillMsPerToken, s.PrefillMsPerToken, 0, -1, "0 or more"),
		over(&cfg.TokensPerChunk, s.TokensPerChunk, 1, -1, "at least 1"),
		overBelow(&cfg.Jitter, s.Jitter, 0, 1, "from 0 to below 1"),
		over(&cfg.ErrorRate, s.ErrorRate, 0, 1, "from 0 to 1"),
		over(&cfg.MaxQueue, s.MaxQueue, 0, -1, "0 or more"),
		over(&cfg.DropRate, s.DropRate, 0, 1, "from 0 to 1"),
		over(&cfg.StallRate, s.StallRate, 0, 1, "from 0 to 1"),
		over(&cfg.StallMs, s.StallMs, 0, -1, "0 or more"),
		over(&cfg.KVTokens, s.KVTokens, 0, -1, "0 or more"),
		over(&cfg.PrefixCacheTokens, s.PrefixCacheTokens, 0, -1, "0 or more"),
	} {
		if err != nil {
			return cfg, err
		}
	}
	if err := f.service(&cfg); err != nil {
		return cfg, err
	}
	s.Seed.into(&cfg.Seed)
	s.CloseAfterStream.into(&cfg.CloseAfterStream)
	if cfg.StepMs+cfg.StepMsPerSeq <= 0 {
		return cfg, errorf("--step-ms and --step-ms-per-seq are both 0: a decode step must take some time")
	}
	return cfg, nil
}

// service sets the service's faults the flags give over cfg.
func (f *SimFlags) service(cfg *sim.Config) error {
	s := &f.Given
	if s.AuthKey.Given() && strings.TrimSpace(s.AuthKey.V) == "" {
		return errorf("--auth-key: want a key")
	}
	if s.Refuse.Given() && s.Refuse.V != 0 && (s.Refuse.V < 400 || s.Refuse.V > 599) {
		return errorf("%s %d: want an HTTP error status from 400 to 599 (0: never)", s.Refuse.From.Where, s.Refuse.V)
	}
	if s.DownFor.Given() && !s.DownAfter.Given() {
		return errorf("%s %s: give --down-after too (when the server goes down)", s.DownFor.From.Where, s.DownFor.V)
	}
	for _, err := range []error{
		over(&cfg.StreamErrorRate, s.StreamErrorRate, 0, 1, "from 0 to 1"),
		over(&cfg.DownAfter, s.DownAfter, 0, -1, "a positive duration such as 20s"),
		over(&cfg.DownFor, s.DownFor, 0, -1, "a positive duration such as 10s"),
		over(&cfg.RetryAfter, s.RetryAfter, 0, -1, "a positive duration such as 2s"),
		over(&cfg.ProxyLimit, s.ProxyLimit, 0, -1, "0 or more"),
		over(&cfg.OtherUsers, s.OtherUsers, 0, -1, "0 or more"),
	} {
		if err != nil {
			return err
		}
	}
	s.AuthKey.into(&cfg.AuthKey)
	s.Refuse.into(&cfg.Refuse)
	s.BufferAnswers.into(&cfg.BufferAnswers)
	return nil
}

// over sets *dst to the value of a flag given, when it is from lo to hi (hi < lo: no
// upper bound); otherwise the error says what the flag wants.
func over[T cmp.Ordered](dst *T, v Value[T], lo, hi T, want string) error {
	if !v.Given() {
		return nil
	}
	if v.V < lo || (hi >= lo && v.V > hi) {
		return errorf("%s %v: want %s", v.From.Where, v.V, want)
	}
	*dst = v.V
	return nil
}

// overBelow is over with hi excluded.
func overBelow[T cmp.Ordered](dst *T, v Value[T], lo, hi T, want string) error {
	if v.Given() && v.V >= hi {
		return errorf("%s %v: want %s", v.From.Where, v.V, want)
	}
	return over(dst, v, lo, hi, want)
}
