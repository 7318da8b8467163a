package sim

// TEMPORARY (cmd branch only): stand-ins for the profile API that the sim helper is
// adding (sim.Profile, sim.ProfileNames, sim.DefaultProfile), so that cmd/tpsmon
// compiles on this branch. The lead deletes this file at merge.

import (
	"fmt"
	"strings"
)

// DefaultProfile is the profile used when none is named (temporary shim).
const DefaultProfile = "shim"

// ProfileNames lists the profile names (temporary shim).
func ProfileNames() []string { return []string{DefaultProfile} }

// Profile returns the named profile (temporary shim).
func Profile(name string) (Config, error) {
	if name != DefaultProfile {
		return Config{}, fmt.Errorf("unknown simulator profile %q; choose one of: %s", name, strings.Join(ProfileNames(), ", "))
	}
	return Config{Name: DefaultProfile, Model: "sim-model", Slots: 64, StepMs: 20, StepMsPerSeq: 0.5,
		PrefillMsPerToken: 0.05, TokensPerChunk: 1, Jitter: 0.05, Seed: 1}, nil
}
