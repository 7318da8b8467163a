package main

import (
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/probe/sim"
)

// TestSimFaultFlags: every fault a profile uses can be staged by hand, and the
// description says what was staged.
func TestSimFaultFlags(t *testing.T) {
	a := &app{stdout: &strings.Builder{}, stderr: &strings.Builder{}, getenv: func(string) string { return "" }}
	c, f := a.simCmd()
	args := []string{"--max-queue", "8", "--drop-rate", "0.01", "--stall-rate", "0.05", "--stall-ms", "3000", "--prefix-cache-tokens", "50000", "--kv-tokens", "4096"}
	if err := c.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	got, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sim.Profile(sim.DefaultProfile)
	want.MaxQueue, want.DropRate, want.StallRate, want.StallMs, want.PrefixCacheTokens = 8, 0.01, 0.05, 3000, 50000
	want.KVTokens = 4096
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	desc := describeSim(got)
	for _, w := range []string{"HTTP 429 when 8 requests already wait", "1% of streams cut", "5% of streams stall for 3000ms", "prefix cache of 50000 prompt tokens", "KV cache of 4096 tokens"} {
		if !strings.Contains(desc, w) {
			t.Errorf("the description does not say %q:\n%s", w, desc)
		}
	}

	// A flag given as 0 turns off the profile's fault.
	c, f = a.simCmd()
	if err := c.ParseFlags([]string{"--profile", "flaky", "--max-queue", "0", "--drop-rate", "0", "--stall-rate", "0"}); err != nil {
		t.Fatal(err)
	}
	got, err = f.Config()
	if err != nil || got.MaxQueue != 0 || got.DropRate != 0 || got.StallRate != 0 || got.ErrorRate == 0 {
		t.Errorf("flaky with its faults off: %+v, %v", got, err)
	}

	for _, bad := range [][]string{
		{"--max-queue", "-1"}, {"--drop-rate", "1.5"}, {"--stall-rate", "-0.1"}, {"--stall-ms", "-5"}, {"--prefix-cache-tokens", "-1"}, {"--kv-tokens", "-1"},
	} {
		c, f := a.simCmd()
		if err := c.ParseFlags(bad); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Config(); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: error %v, want one naming %s", bad, err, bad[0])
		}
	}
}
