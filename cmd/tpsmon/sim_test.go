package main

import (
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/probe/sim"
)

// TestSimFlagsOverrideOnlyGiven: the profile's values stay unless a flag is given, and a
// flag given as 0 sets 0; the printed description shows the resulting settings.
func TestSimFlagsOverrideOnlyGiven(t *testing.T) {
	a := &app{stdout: &strings.Builder{}, stderr: &strings.Builder{}, getenv: func(string) string { return "" }}
	flaky, err := sim.Profile("flaky")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args   []string
		want   func(sim.Config) sim.Config
		prints []string
	}{
		{[]string{"--profile", "flaky"}, func(c sim.Config) sim.Config { return c },
			[]string{`profile "flaky"`, "16 slots", "2% HTTP 500", "HTTP 429", "2% of streams cut", "5% of streams stall"}},
		{[]string{"--profile", "flaky", "--jitter", "0.07", "--error-rate", "0.035"},
			func(c sim.Config) sim.Config { c.Jitter, c.ErrorRate = 0.07, 0.035; return c },
			[]string{"jitter ±7%,", "3.5% HTTP 500"}},
		{[]string{"--profile", "flaky", "--error-rate", "0", "--seed", "0", "--jitter", "0"},
			func(c sim.Config) sim.Config { c.ErrorRate, c.Seed, c.Jitter = 0, 0, 0; return c },
			[]string{"16 slots", "no jitter"}},
		{[]string{"--profile", "flaky", "--slots", "3", "--tokens-per-chunk", "4", "--prefill-ms-per-token", "0.5", "--step-ms", "7", "--model", "m x"},
			func(c sim.Config) sim.Config {
				c.Slots, c.TokensPerChunk, c.PrefillMsPerToken, c.StepMs, c.Model = 3, 4, 0.5, 7, "m x"
				return c
			},
			[]string{`model "m x"`, "3 slots", "decode step 7ms + 1ms per sequence", "4 tokens per event", "prefill 0.5ms per prompt token"}},
	}
	for _, tt := range tests {
		c, f := a.simCmd()
		if err := c.ParseFlags(tt.args); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		got, err := f.Config()
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if want := tt.want(flaky); got != want {
			t.Errorf("%v:\n got %+v\nwant %+v", tt.args, got, want)
		}
		desc := describeSim(got)
		for _, w := range tt.prints {
			if !strings.Contains(desc, w) {
				t.Errorf("%v: the description does not say %q:\n%s", tt.args, w, desc)
			}
		}
		if tt.args[len(tt.args)-1] == "0" && strings.Contains(desc, "HTTP 500") {
			t.Errorf("%v: --error-rate 0 still described:\n%s", tt.args, desc)
		}
	}
}
