package main

import (
	"slices"
	"strings"
	"testing"
)

// rateConfig is a config of rate mode and a goodput criterion.
const rateConfig = `ramp:
  rate: [2, 4, 8]
  arrival: constant
  max_concurrency: 16
slo:
  goodput_min: 95%
`

// TestConfigRateAndGoodput: the config's ramp.rate, ramp.arrival, ramp.max_concurrency
// and slo.goodput_min plan what --rate, --arrival, --max-concurrency and --slo
// goodput>=... plan.
func TestConfigRateAndGoodput(t *testing.T) {
	p := planOf(t, nil, "bench", "--config", writeFile(t, "rate.yaml", rateConfig))
	if !p.Rate.On || !slices.Equal(p.Ramp.Levels, []int{2, 4, 8}) || p.Rate.Kind.String() != "constant" || p.Rate.MaxConcurrency != 16 {
		t.Errorf("plan: rate %+v levels %v; want rate mode at 2,4,8 requests/s, constant, at most 16", p.Rate, p.Ramp.Levels)
	}
	if p.SLO.GoodputMin != 0.95 {
		t.Errorf("goodput minimum %v, want 0.95", p.SLO.GoodputMin)
	}
	// One rate, or "2,4" as --rate takes it; a cap of 0 is no cap.
	p = planOf(t, nil, "bench", "--config", writeFile(t, "one.yaml", "ramp: {rate: 5, max_concurrency: 0}\nslo: {goodput_min: 0.9}\n"))
	if !p.Rate.On || !slices.Equal(p.Ramp.Levels, []int{5}) || p.Rate.Kind.String() != "poisson" || p.Rate.MaxConcurrency != 0 || p.SLO.GoodputMin != 0.9 {
		t.Errorf("plan: rate %+v levels %v goodput %v", p.Rate, p.Ramp.Levels, p.SLO.GoodputMin)
	}
	if p := planOf(t, nil, "bench", "--config", writeFile(t, "list.yaml", "ramp: {rate: \"3,6\"}\n")); !slices.Equal(p.Ramp.Levels, []int{3, 6}) {
		t.Errorf("rate \"3,6\": levels %v", p.Ramp.Levels)
	}
}

// TestConfigRateFlagsOverride: the flags given replace the file's keys; --ramp replaces
// the file's rate mode with users.
func TestConfigRateFlagsOverride(t *testing.T) {
	path := writeFile(t, "rate.yaml", rateConfig)
	p := planOf(t, nil, "bench", "--config", path, "--rate", "3", "--arrival", "poisson", "--max-concurrency", "4", "--slo", "goodput>=80%")
	if !p.Rate.On || !slices.Equal(p.Ramp.Levels, []int{3}) || p.Rate.Kind.String() != "poisson" || p.Rate.MaxConcurrency != 4 || p.SLO.GoodputMin != 0.8 {
		t.Errorf("plan: rate %+v levels %v goodput %v; want the flags' 3/s, poisson, 4, 80%%", p.Rate, p.Ramp.Levels, p.SLO.GoodputMin)
	}
	p = planOf(t, nil, "bench", "--config", path, "--ramp", "1,2")
	if p.Rate.On || !slices.Equal(p.Ramp.Levels, []int{1, 2}) || p.SLO.GoodputMin != 0.95 {
		t.Errorf("--ramp over the file's rate: rate %+v levels %v goodput %v; want users 1,2", p.Rate, p.Ramp.Levels, p.SLO.GoodputMin)
	}
	// The file's cap applies to a rate given by the flag.
	p = planOf(t, nil, "bench", "--config", writeFile(t, "cap.yaml", "ramp: {max_concurrency: 7}\n"), "--rate", "9")
	if !p.Rate.On || p.Rate.MaxConcurrency != 7 {
		t.Errorf("--rate with the file's cap: rate %+v", p.Rate)
	}
}

// TestConfigRateErrors: a bad rate-mode or goodput key is refused at its file and line,
// saying what is wanted.
func TestConfigRateErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"ramp:\n  rate: [2, 0]\n", `line 2: ramp.rate[1]: want a rate of requests per second (a whole number from 1 to 10000)`},
		{"ramp:\n  rate: 2.5\n", `line 2: ramp.rate: want a rate of requests per second`},
		{"ramp:\n  rate: []\n", `line 2: ramp.rate: want at least one rate`},
		{"ramp:\n  arrival: bursty\n", `line 2: ramp.arrival: want poisson or constant, got "bursty"`},
		{"ramp:\n  max_concurrency: -1\n", `line 2: ramp.max_concurrency: want 0 (no cap) or a whole number`},
		{"ramp:\n  hold: 1s\n  arrival: constant\n", `line 3: ramp.arrival: arrival and max_concurrency are for rate mode: add rate beside it`},
		{"ramp:\n  max_concurrency: 4\n", `line 2: ramp.max_concurrency: arrival and max_concurrency are for rate mode`},
		{"ramp:\n  levels: [1, 2]\n  rate: [4]\n", `line 3: ramp.rate: rate and levels exclude each other`},
		{"slo:\n  goodput_min: 95\n", `line 2: slo.goodput_min: want a fraction such as 0.01 or a percentage such as 1%, got "95"`},
		{"slo:\n  goodput_min: -0.5\n", `line 2: slo.goodput_min: `},
	} {
		path := writeFile(t, "bad.yaml", c.yaml)
		r := cli(t, nil, nil, nil, "bench", "--config", path)
		if r.code != exitUsage || !strings.Contains(r.stderr, "config "+path+": "+c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.yaml, r.code, r.stderr, c.want)
		}
	}
}
