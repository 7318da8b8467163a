package sim

import (
	"fmt"
	"strings"
)

// DefaultProfile is the profile the simulator runs when none is named.
const DefaultProfile = "datacenter"

// The profiles' numbers are orders of magnitude, not measurements. Decode on a GPU is
// memory-bandwidth bound: one step reads every weight once, so a single stream runs at
// roughly 60-75% of (HBM bandwidth / weight bytes), which is what public vLLM and TGI
// benchmarks of each class of hardware report. Each step also pays a little per
// sequence in the batch (attention over its KV cache, sampling), so per-user speed
// falls as users rise while aggregate speed rises until the slots are full. Prefill runs
// at thousands to tens of thousands of prompt tokens per second on the same hardware.
//
// The per-user and aggregate figures below are the step arithmetic. A bench measures a
// little less: every admitted request's prefill lengthens one step for the whole batch,
// and a request decodes nothing until its first token. With 128-token answers
// (bench --max-tokens 128) the aggregate comes out about 5% (datacenter, small-gpu) to
// 10% (fast, which admits ~66 requests/s at 64 users) below the arithmetic; longer
// answers come closer.
//
// KV budgets (KVTokens) are scaled down from real caches (an H100 holds a few hundred
// thousand tokens of a 14B model's KV) so that the knee can come from KV pressure in a
// short run: at tpsmon's defaults (128-token prompts, 128 max tokens, ~280 tokens per
// sequence at most) a full batch fits in every profile but flaky, whose 16 slots just
// overflow theirs at the end of synchronized answers. Every profile caches prefixes, as
// vLLM does by default (automatic prefix caching), in four times its KV budget: tpsmon's
// default prompts differ from their first word and never hit it; a shared prefix
// (--prefix-tokens), a trace's shared blocks and a conversation's history do. With
// --max-tokens 1024 the
// datacenter batch no longer fits its 32 slots: about 25 sequences on average, fewer
// while answers that started together grow together (KV ~97%, preemptions).
var profiles = map[string]Config{
	// A mid-size (14B-class, bf16, 28 GB of weights) model on one H100 80GB under vLLM.
	// 3.35 TB/s / 28 GB is ~120 steps/s at most; ~90 tok/s for one user is what public
	// single-stream figures show. The per-sequence cost is tuned (above what a tuned
	// server shows) so that the TUI's default ramp 1..64 draws a full curve: per-user
	// 91 tok/s at 1 user, 38 at 16, 24 at 32 (below the 30 tok/s target between 16
	// and 32); aggregate 91, 444 (8), 615 (16), 762 (32) tok/s, then flat at 64 because
	// only 32 sequences decode together and the rest queue (TTFT climbs to seconds).
	// Prefill ~20k tokens/s: 6 ms for a 128-token prompt.
	"datacenter": {
		Name: "datacenter", Model: "sim-14b-h100",
		Slots: 32, StepMs: 10, StepMsPerSeq: 1, PrefillMsPerToken: 0.05,
		TokensPerChunk: 1, Jitter: 0.05, Seed: 1, DefaultMaxTokens: 1024,
		KVTokens: 16384, PrefixCacheTokens: 65536,
	},
	// An 8B model (4-bit AWQ, ~5.5 GB) on one 24 GB L4-class GPU (300 GB/s): ~50 tok/s
	// for one user in public vLLM runs, a heavy per-sequence cost on a small compute budget,
	// and room for about 8 sequences at a few thousand tokens of context each. Per-user
	// 48 tok/s at 1 user, 33 at 4, 24 at 8; aggregate saturates near 190 tok/s from 8
	// users on. Prefill ~3k tokens/s: 38 ms for a 128-token prompt.
	"small-gpu": {
		Name: "small-gpu", Model: "sim-8b-awq-l4",
		Slots: 8, StepMs: 18, StepMsPerSeq: 3, PrefillMsPerToken: 0.3,
		TokensPerChunk: 1, Jitter: 0.08, Seed: 2, DefaultMaxTokens: 1024,
		KVTokens: 8192, PrefixCacheTokens: 32768,
	},
	// A hosted provider serving a small model on fast hardware (8B FP8 on H100/H200 with
	// speculative decoding, or a Groq/Cerebras-class service): 250-300 tok/s per user, many
	// slots, and several tokens per SSE event (providers batch tokens into events; 4 here).
	// Per-user 282 tok/s at 1 user, 149 at 64; aggregate ~9,500 tok/s at 64 users.
	// Prefill ~100k tokens/s.
	"fast": {
		Name: "fast", Model: "sim-8b-fast",
		Slots: 256, StepMs: 3.5, StepMsPerSeq: 0.05, PrefillMsPerToken: 0.01,
		TokensPerChunk: 4, Jitter: 0.05, Seed: 3, DefaultMaxTokens: 1024,
		KVTokens: 131072, PrefixCacheTokens: 524288,
	},
	// An overloaded shared endpoint: the datacenter numbers on half the slots, with 2%
	// HTTP 500s, HTTP 429 once more than 16 requests wait, 2% of streams cut mid-way,
	// 5% of streams stalling for 2 s, and noisy steps. The fault rates are made up to
	// exercise every error path; they are not measured from any provider.
	"flaky": {
		Name: "flaky", Model: "sim-14b-flaky",
		Slots: 16, StepMs: 10, StepMsPerSeq: 1, PrefillMsPerToken: 0.05,
		TokensPerChunk: 1, Jitter: 0.25, Seed: 4, DefaultMaxTokens: 1024,
		ErrorRate: 0.02, MaxQueue: 16, DropRate: 0.02, StallRate: 0.05, StallMs: 2000,
		KVTokens: 4224, PrefixCacheTokens: 16896,
	},
	// A 32B reasoning model (FP8, ~32 GB) on one H100 under vLLM with a reasoning parser:
	// ~60 tok/s for one user. The first 128 output tokens stream as delta.reasoning
	// (vLLM's current field name), the rest as delta.content, so TTFT and time to first
	// answer token differ. Real models think for thousands of tokens; the simulator
	// never lets more than half of an answer think, so tpsmon's default 128 max tokens
	// think for 64 and answer with 64.
	"reasoning": {
		Name: "reasoning", Model: "sim-32b-reasoning",
		Slots: 32, StepMs: 16, StepMsPerSeq: 1.2, PrefillMsPerToken: 0.08,
		TokensPerChunk: 1, Jitter: 0.05, Seed: 5, DefaultMaxTokens: 4096,
		ReasoningTokens: 128, KVTokens: 32768, PrefixCacheTokens: 131072,
	},
}

// ProfileNames returns the names of the built-in profiles, the default first.
func ProfileNames() []string {
	return []string{DefaultProfile, "small-gpu", "fast", "flaky", "reasoning"}
}

// Profile returns the named built-in profile. The error for an unknown name lists the
// valid ones.
func Profile(name string) (Config, error) {
	if c, ok := profiles[name]; ok {
		return c, nil
	}
	return Config{}, fmt.Errorf("unknown simulator profile %q: valid profiles are %s",
		name, strings.Join(ProfileNames(), ", "))
}
