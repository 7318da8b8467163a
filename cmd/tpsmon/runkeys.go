package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tpsmon/tpsmon/probe/engine"
)

// runBounds are the run's settings beyond the ramp's levels and holds, from the flags or
// the config's ramp keys: what the live screen settles at, the run's maximum duration,
// and whether bench walks every level.
type runBounds struct {
	settle      int // engine.SettleCapacity, 0 (stop the load) or users
	maxDuration time.Duration
	fullRamp    bool
}

// resolveBounds is the run's bounds: the flags given, else the config's ramp keys, else
// the flags' defaults. Each is checked as its flag is and refused where it was written.
func resolveBounds(f *runFlags, cfg *fileConfig, changed func(string) bool) (runBounds, error) {
	b := runBounds{maxDuration: f.maxDuration, fullRamp: f.fullRamp}
	rc := cfg.Ramp
	if f.maxDuration < 0 {
		return b, usageErrorf("--max-duration %s: want a positive duration such as 30m, or 0 for no limit", f.maxDuration)
	}
	if rc.MaxDuration != nil && !changed("max-duration") {
		b.maxDuration = time.Duration(*rc.MaxDuration)
	}
	if rc.FullRamp != nil && !changed("full-ramp") {
		b.fullRamp = *rc.FullRamp
	}
	b.settle = engine.SettleCapacity
	if f.settle != "" { // bench has no --settle: it always stops the load and drains
		n, err := parseSettle(f.settle)
		if err != nil {
			return b, usageErrorf("--settle %q: %v", f.settle, err)
		}
		b.settle = n
	}
	if rc.Settle != nil && !changed("settle") {
		b.settle = int(*rc.Settle)
	}
	return b, nil
}

// settleWant is what --settle and the config's settle key accept.
var settleWant = fmt.Sprintf("want capacity, 0 (stop the load) or a number of users up to %d", engine.MaxUsers)

// parseSettle parses a settle value: "capacity", or a number of users (0 stops the load).
func parseSettle(s string) (int, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "capacity") {
		return engine.SettleCapacity, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > engine.MaxUsers {
		return 0, fmt.Errorf("%s", settleWant)
	}
	return n, nil
}

// settle is the config's settle key: capacity, 0 or a number of users.
type settle int

func (v *settle) UnmarshalYAML(n *yaml.Node) error {
	x, err := parseSettle(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "%s, got %q", settleWant, n.Value)
	}
	*v = settle(x)
	return nil
}

// seed is the config's workload seed: a whole number, 0 meaning a new random seed.
type seed uint64

func (v *seed) UnmarshalYAML(n *yaml.Node) error {
	x, err := strconv.ParseUint(n.Value, 10, 64)
	if n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "want a whole number of 0 or more (0: a new random seed each run), got %q", n.Value)
	}
	*v = seed(x)
	return nil
}

// maxExactSeed bounds the random seeds: below 2^53 every JSON reader holds them exactly.
const maxExactSeed = 1 << 53

// resolveSeed is the synthetic prompts' seed: --seed, else the config's, else a new
// random one (never 0), so that results.json names the seed that repeats the run.
// A run that sends a prompt as is has no seed (0).
func resolveSeed(f *runFlags, wc workloadConfig, prompt string, changed func(string) bool) uint64 {
	if prompt != "" {
		return 0
	}
	s := f.seed
	if wc.Seed != nil && !changed("seed") {
		s = uint64(*wc.Seed)
	}
	if s == 0 {
		s = 1 + rand.Uint64N(maxExactSeed-1)
	}
	return s
}
