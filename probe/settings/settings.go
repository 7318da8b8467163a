package settings

import (
	"github.com/spf13/pflag"
)

// Command is the command whose flags are registered: they differ a little (bench walks
// a longer hold and can be a shard; the live screen starts at --users and settles).
type Command int

// The commands that run a load.
const (
	Screen Command = iota // plain tpsmon: the live screen
	Bench                 // tpsmon bench
)

// Settings are every setting of a run, each a Value. One layer (the defaults, the
// environment, the config file, the flags given) is one Settings; Apply merges them.
// The groups mirror the config file's blocks.
type Settings struct {
	Config  Value[string] // --config: the YAML file (flags only)
	Profile Value[string] // --profile: the built-in simulator's profile (flags only)

	// Endpoints are the endpoints to measure: --url, else the file's endpoints, else
	// $OPENAI_BASE_URL; none means the built-in simulator. Each holds its own settings.
	Endpoints Value[[]Endpoint]
	// Endpoint holds what applies to every endpoint (the flags --model, --api,
	// --header...), over each endpoint's own settings (endpoint).
	Endpoint Endpoint

	Workload Workload
	Ramp     Ramp
	SLO      SLO
	Shard    Shard
}

// Flags are the run flags of one command, bound to their settings: pflag fills Given as
// it parses the command line; Defaults holds each flag's default. Neither is written
// by anything else.
type Flags struct {
	Command  Command
	Given    Settings
	Defaults Settings

	// --header and --extra-body as typed, parsed into Given.Endpoint by Resolve (their
	// errors must never show a value: it may be a secret).
	header    Value[[]string]
	extraBody Value[string]
}

// Register adds the run flags of command c to fs (the live screen's or bench's), in the
// order the help lists them, and returns them bound.
func Register(fs *pflag.FlagSet, c Command) *Flags {
	f := &Flags{Command: c}
	fs.SortFlags = false
	f.endpointFlags(fs)
	f.workloadFlags(fs)
	bind(fs, &f.Given.Config, &f.Defaults.Config, text, "config", "",
		"YAML file with endpoints, workload, ramp and slo (flags given explicitly override it)")
	bind(fs, &f.Given.Profile, &f.Defaults.Profile, text, "profile", "",
		"built-in simulator profile, used when no endpoint is configured (see tpsmon sim --help)")
	f.rampFlags(fs)
	f.sloFlags(fs)
	if c == Bench {
		f.shardFlags(fs)
	}
	return f
}

// pick is the screen's value or bench's.
func (c Command) pick(screen, bench string) string {
	if c == Bench {
		return bench
	}
	return screen
}
