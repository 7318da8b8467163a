// Package settings turns the flags given, the config file and the environment into a
// Plan: the endpoints and the request every one sends, the ramp and its bounds, rate
// mode, the capacity criteria, a shard's share, and the engine's Config (Plan.Engine).
// The commands register its flags (Register, RegisterSim), call Resolve and run the
// plan; no other package decides a setting. It sits above the engine (it builds
// engine.Config) and below the commands: nothing in probe, the engine or ui imports it.
//
// # Layers and the one rule of precedence
//
// Every setting is a Value[T]: set or not, and where it was written (an Origin: a flag,
// an environment variable, a key at a line of the config file, or the flag whose
// default it is). Four layers each fill a Settings, lowest first:
//
//	Default  each flag's default (bind, when the flag is registered)
//	Env      $OPENAI_BASE_URL and $JOB_COMPLETION_INDEX (envLayer)
//	File     the --config file, each key at its line (fileConfig.layer)
//	Flag     the flags given on the command line (pflag fills Flags.Given)
//
// Apply merges two layers: a value the higher layer sets wins, maps (headers, an extra
// body) merge key by key. That is the whole rule; no flag name is compared anywhere,
// and the flags given are never written to. Endpoints are a list: the highest layer
// that names any (--url, the file's endpoints, $OPENAI_BASE_URL) names them all, and
// each endpoint's own settings sit above what the lower layers set for every endpoint
// and below the flags given (--model, --api, --header...). Resolve then checks each
// setting and words every error where its value was written, with how to write it
// there: `--hold 0s: want a positive duration`, `config c.yaml: line 3: ramp.max_hold
// "5s": the maximum hold must be at least the hold (10s)`. The errors a flag's type
// refuses (a word for a number) are pflag's, with what is wanted (flagvalue.go).
//
// # Adding a setting
//
// Each group of settings is one file, which mirrors a block of the config file: the
// group's struct of Values, its flags, its block of the file with its layer, and how
// the plan reads it (endpoints.go, workload.go, ramp.go with rate.go, slo.go; shard.go
// has flags only). A flag with a config key, say --min-requests and
// ramp.min_requests, is four lines in ramp.go:
//
//	MinRequests Value[int]                                                      // in Ramp
//	bind(fs, &g.MinRequests, &d.MinRequests, whole, "min-requests", 0, "help")   // in rampFlags
//	MinRequests *posInt `yaml:"min_requests"`                                  // in rampFile
//	MinRequests: opt(r.MinRequests, at("min_requests"), posInt.Int),           // in rampFile.layer
//
// and its use where the plan is built (Plan.ramp: p.MinRequests = r.MinRequests.V,
// refused at r.MinRequests.From when wrong), then into Plan.Engine. A flag without a
// key leaves out the file's two lines; a key without a flag sets its default in the
// group's flags function instead of binding a flag. A value type of the file that
// refuses bad values at their line is in yamltypes.go; a flag type in flagvalue.go.
// tpsmon sim's flags are SimFlags (sim.go): the profile's values under the flags given.
package settings
