package settings

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// Ramp is how the load is walked: the config file's ramp block. The walk is the users
// of Levels, or in rate mode the arrival rates of Rates (rate.go).
type Ramp struct {
	Levels      Value[string] // users of each level, "1,2,4" as --ramp takes them
	Hold        Value[time.Duration]
	MaxHold     Value[time.Duration]
	MaxDuration Value[time.Duration]
	FullRamp    Value[bool]   // bench: walk every level
	MinRequests Value[int]    // a fixed floor of steady requests a level holds (0: the rule's own)
	Refine      Value[bool]   // bisect the capacity once the ramp's levels are held
	Settle      Value[string] // the live screen: capacity, 0 (stop the load) or users
	Users       Value[int]    // the live screen: the users it starts at

	// Rate mode (rate.go).
	Rates          Value[string] // arrival rates per second, "2,4,8"
	Arrival        Value[string] // poisson or constant
	MaxConcurrency Value[int]    // 0: no cap
}

// rampFlags registers the ramp's flags; the screen and bench differ in their defaults
// and in a few flags of their own.
func (f *Flags) rampFlags(fs *pflag.FlagSet) {
	g, d, c := &f.Given.Ramp, &f.Defaults.Ramp, f.Command
	bind(fs, &g.Levels, &d.Levels, text, "ramp", c.pick("1,2,4,8,16,32,64", "1,2,4,8,16,32"), "concurrency levels of the ramp, in order")
	bind(fs, &g.Hold, &d.Hold, duration, "hold", 5*time.Second,
		"the least steady time each ramp level is held (counted once its warm-up is over); it is held on until its criteria are decided at 95% and its per-user p50 and aggregate tok/s known to ±5%")
	bind(fs, &g.MaxHold, &d.MaxHold, duration, "max-hold", 0,
		"the longest a ramp level is held (from its start); a level still undecided then is marked undecided, one short of requests short (default 2m or 4 x --hold, whichever is larger)")
	bind(fs, &g.MinRequests, &d.MinRequests, whole, "min-requests", 0,
		"a fixed floor: every level holds at least this many steady requests, besides the rule (default: the rule's own floor of 8; the old rule was max(20, 2 x users))")
	bind(fs, &g.Refine, &d.Refine, boolean, "refine", true,
		"once the ramp has a level that meets --slo below one that fails, bisect between them (users, or requests/s with --rate) until the gap is within 10% or one; --refine=false keeps the ramp's levels (the capacity's level is still confirmed)")
	bind(fs, &g.MaxDuration, &d.MaxDuration, duration, "max-duration", 0, "stop the whole run after this long, e.g. 30m (default: no limit)")
	if c == Bench {
		bind(fs, &g.FullRamp, &d.FullRamp, boolean, "full-ramp", false,
			"walk every level of the ramp, also past a level with more than 5% errors or a TTFT p95 over twice the --slo target")
		d.Settle = val("capacity", Origin{}) // bench stops the load at the end; only the file's settle may say more
	} else {
		bind(fs, &g.Users, &d.Users, whole, "users", 1, "concurrency to start the live screen at")
		bind(fs, &g.Settle, &d.Settle, text, "settle", "capacity",
			"users to hold once the auto-ramp finished or stopped: capacity (the largest level meeting --slo), a number, or 0 to stop the load")
	}
	f.rateFlags(fs)
}

// rampFile is the config file's ramp block.
type rampFile struct {
	Levels      []posInt `yaml:"levels"`
	Hold        *posDur  `yaml:"hold"`
	MaxHold     *posDur  `yaml:"max_hold"`
	Settle      *settle  `yaml:"settle"`
	MaxDuration *posDur  `yaml:"max_duration"`
	FullRamp    *bool    `yaml:"full_ramp"`
	MinRequests *posInt  `yaml:"min_requests"`
	Refine      *bool    `yaml:"refine"`
	// Rate mode, as --rate, --arrival and --max-concurrency (rate.go).
	Rate           *rateList    `yaml:"rate"`
	Arrival        *arrivalKind `yaml:"arrival"`
	MaxConcurrency *capInt      `yaml:"max_concurrency"`
}

// layer is the block's keys as settings, each at its line.
func (r rampFile) layer(c *fileConfig) Ramp {
	at := func(key string) Origin { return c.origin("ramp." + key) }
	out := Ramp{
		Hold:        opt(r.Hold, at("hold"), posDur.Duration),
		MaxHold:     opt(r.MaxHold, at("max_hold"), posDur.Duration),
		MaxDuration: opt(r.MaxDuration, at("max_duration"), posDur.Duration),
		FullRamp:    opt(r.FullRamp, at("full_ramp"), same),
		MinRequests: opt(r.MinRequests, at("min_requests"), posInt.Int),
		Refine:      opt(r.Refine, at("refine"), same),
		Settle:      opt(r.Settle, at("settle"), settle.String),
	}
	r.rateLayer(&out, at)
	if len(r.Levels) > 0 {
		levels := make([]string, len(r.Levels))
		for i, l := range r.Levels {
			levels[i] = strconv.Itoa(int(l))
		}
		out.Levels = val(strings.Join(levels, ","), at("levels"))
	}
	return out
}

// ramp is the run's ramp and bounds: levels, holds, maximum duration, full ramp and
// settle. Each is refused where it was written; the ramp by the engine's own rules
// (engine.Ramp.Validate).
func (p *Plan) ramp(r Ramp) error {
	levels, err := parseRamp(r.Levels.V)
	if err != nil {
		return errorf("%v", err)
	}
	p.Ramp = engine.Ramp{Levels: levels, Hold: r.Hold.V, MaxHold: r.MaxHold.V}
	p.walkFrom = r.Levels.From.Where
	if p.Ramp.Hold <= 0 {
		return errorf("--hold %s: want a positive duration such as 15s", p.Ramp.Hold)
	}
	var fe *client.FieldError
	if err := p.Ramp.Validate(); errors.As(err, &fe) {
		from := map[string]Origin{engine.FieldRamp: r.Levels.From, engine.FieldHold: r.Hold.From, engine.FieldMaxHold: r.MaxHold.From}
		return fieldUsage(fe, from[fe.Field])
	}
	if r.MaxDuration.V < 0 {
		return errorf("--max-duration %s: want a positive duration such as 30m, or 0 for no limit", r.MaxDuration.V)
	}
	p.MaxDuration, p.FullRamp, p.Refine = r.MaxDuration.V, r.FullRamp.V, r.Refine.V
	if p.MinRequests = r.MinRequests.V; p.MinRequests < 0 {
		return errorf("--min-requests %d: want 0 (the rule's own floor) or a number of steady requests such as 60", p.MinRequests)
	}
	p.Settle = engine.SettleCapacity
	if r.Settle.V != "" {
		if p.Settle, err = parseSettle(r.Settle.V); err != nil {
			return errorf("--settle %q: %v", r.Settle.V, err)
		}
	}
	p.Users = r.Users.V
	if p.Users < 0 {
		return errorf("--users %d: want 0 or more", p.Users)
	}
	return nil
}

// parseRamp parses "1,2,4,8".
func parseRamp(s string) ([]int, error) {
	var levels []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--ramp %q: %q is not a concurrency (a whole number of at least 1); write e.g. --ramp 1,2,4,8", s, part)
		}
		levels = append(levels, n)
	}
	return levels, nil
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
