package settings

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/arrival"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// RateMode is a run's rate mode (open loop): on when a rate was given; the ramp's
// levels are then arrival rates.
type RateMode struct {
	On             bool
	Kind           arrival.Kind
	MaxConcurrency int    // 0: no cap
	Seed           uint64 // the run's seed: arrivals, length draws, the dataset's order
}

// rateFlags registers rate mode's flags. Its keys are in the file's ramp block
// (rampFile), read by rateLayer.
func (f *Flags) rateFlags(fs *pflag.FlagSet) {
	g, d := &f.Given.Ramp, &f.Defaults.Ramp
	bind(fs, &g.Rates, &d.Rates, text, "rate", "",
		"rate mode (open loop): requests start at R per second whatever the answers take; bench takes a list of rates to walk, e.g. 2,4,8,16 (excludes --ramp)")
	bind(fs, &g.Arrival, &d.Arrival, text, "arrival", "poisson", "how rate-mode arrivals are spaced: poisson (seeded) or constant")
	bind(fs, &g.MaxConcurrency, &d.MaxConcurrency, whole, "max-concurrency", 0,
		"rate mode: the most requests in flight; an arrival that finds it full waits on tpsmon's side (measured apart from TTFT) (default: no cap)")
}

// rateLayer puts the ramp block's rate-mode keys into out, each at its line.
func (r rampFile) rateLayer(out *Ramp, at func(key string) Origin) {
	out.Rates = opt(r.Rate, at("rate"), func(l rateList) string { return l.text })
	out.Arrival = opt(r.Arrival, at("arrival"), func(a arrivalKind) string { return string(a) })
	out.MaxConcurrency = opt(r.MaxConcurrency, at("max_concurrency"), capInt.Int)
}

// rate reads rate mode. The walk is the levels (users) or the rates of the highest
// layer that gives one, and one layer may not give both: --ramp replaces the file's
// rate mode, --rate the file's levels. Arrival and max concurrency belong to rate mode:
// without a rate they are refused where they were written, unless the levels of a
// higher layer replaced that layer's walk.
func (p *Plan) rate(r Ramp, trace bool) error {
	if r.MaxConcurrency.V < 0 {
		return errorf("--max-concurrency %d: want 0 (no cap) or more", r.MaxConcurrency.V)
	}
	kind, err := arrival.ParseKind(r.Arrival.V)
	if err != nil {
		return errorf("--arrival: %v", err)
	}
	if r.Rates.V == "" || r.Levels.above(r.Rates) {
		if trace { // a trace is open loop too: its cap is --max-concurrency's (traffic.go)
			if given(r.Arrival) {
				return errorf("%s: a trace's requests leave at their own moments: drop the arrival", r.Arrival.From.Where)
			}
			return nil
		}
		return strayRateKeys(r)
	}
	if r.Levels.Given() {
		return errorf("--rate and --ramp exclude each other: --rate walks arrival rates (e.g. --rate 2,4,8,16), --ramp walks users")
	}
	rates, err := parseRates(r.Rates.V)
	if err != nil {
		return errorf("%v", err)
	}
	p.Ramp.Levels, p.walkFrom = rates, r.Rates.From.Where
	p.Rate = RateMode{On: true, Kind: kind, MaxConcurrency: r.MaxConcurrency.V, Seed: p.Rate.Seed}
	return nil
}

// strayRateKeys refuses an arrival or a max concurrency with no rate where it was
// written, unless the levels of a higher layer replaced the walk of that layer.
func strayRateKeys(r Ramp) error {
	stray := func(o Origin, set bool) bool { return set && o.Layer > Default && o.Layer >= r.Levels.From.Layer }
	a, m := stray(r.Arrival.From, r.Arrival.Set), stray(r.MaxConcurrency.From, r.MaxConcurrency.Set)
	switch {
	case a && r.Arrival.From.Layer == Flag, m && r.MaxConcurrency.From.Layer == Flag:
		return errorf("--arrival and --max-concurrency are for rate mode: give --rate too, e.g. --rate 10")
	case a:
		return errorf("%s: arrival and max_concurrency are for rate mode: add rate beside it (e.g. rate: [2, 4, 8, 16]) or give --rate", r.Arrival.From.Where)
	case m:
		return errorf("%s: arrival and max_concurrency are for rate mode: add rate beside it (e.g. rate: [2, 4, 8, 16]) or give --rate", r.MaxConcurrency.From.Where)
	}
	return nil
}

// parseRates reads --rate: whole numbers of requests per second, at least 1.
func parseRates(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		v, err := strconv.ParseFloat(part, 64)
		if err != nil || v < 1 || v > 10000 || math.IsNaN(v) || v != math.Trunc(v) {
			return nil, fmt.Errorf("--rate %q: %q is not a rate of requests per second (a whole number from 1 to 10000); write e.g. --rate 10 or --rate 2,4,8,16", s, part)
		}
		out = append(out, int(v))
	}
	return out, nil
}

// poolOptions are the pools' options: rate mode's open loop when on.
func (m RateMode) poolOptions() []probe.Option {
	if !m.On {
		return nil
	}
	return []probe.Option{probe.WithOpenLoop(m.Kind, m.Seed, m.MaxConcurrency)}
}

// openLoop is rate mode's settings for the engine's report (nil in users mode).
func (m RateMode) openLoop() *engine.OpenLoop {
	if !m.On {
		return nil
	}
	return &engine.OpenLoop{Arrival: m.Kind.String(), MaxConcurrency: m.MaxConcurrency}
}
