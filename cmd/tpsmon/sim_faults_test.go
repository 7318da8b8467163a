package main

import (
	"strings"
	"testing"
	"time"

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

	// The service's faults.
	c, f = a.simCmd()
	if err := c.ParseFlags([]string{"--auth-key", "sk-x", "--refuse", "429", "--retry-after", "1500ms", "--buffer-answers",
		"--proxy-limit", "4", "--other-users", "6", "--down-after", "20s", "--down-for", "10s", "--stream-error-rate", "0.1"}); err != nil {
		t.Fatal(err)
	}
	got, err = f.Config()
	if err != nil {
		t.Fatal(err)
	}
	if got.AuthKey != "sk-x" || got.Refuse != 429 || got.RetryAfter != 1500*time.Millisecond || !got.BufferAnswers ||
		got.ProxyLimit != 4 || got.OtherUsers != 6 || got.DownAfter != 20*time.Second || got.DownFor != 10*time.Second || got.StreamErrorRate != 0.1 {
		t.Errorf("service faults: %+v", got)
	}
	desc = describeSim(got)
	for _, w := range []string{"HTTP 401 without the key", "every completion request answered HTTP 429", "Retry-After 2 s with HTTP 429",
		"answers held until complete", "a proxy in front lets 4 requests through", "another client keeps 6 streams busy",
		"down after 20s for 10s", "10% of streams end with an in-band error"} {
		if !strings.Contains(desc, w) {
			t.Errorf("the description does not say %q:\n%s", w, desc)
		}
	}
	if strings.Contains(desc, "sk-x") {
		t.Errorf("the description prints the key:\n%s", desc)
	}

	for _, bad := range [][]string{
		{"--refuse", "200"}, {"--down-for", "5s"}, {"--auth-key", " "}, {"--retry-after", "-1s"}, {"--stream-error-rate", "2"},
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
