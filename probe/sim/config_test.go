package sim

import (
	"strings"
	"testing"
)

func TestProfiles(t *testing.T) {
	names := ProfileNames()
	if names[0] != DefaultProfile {
		t.Errorf("ProfileNames()[0] = %q, want the default %q", names[0], DefaultProfile)
	}
	if len(names) != len(profiles) {
		t.Errorf("ProfileNames lists %d profiles, the table has %d", len(names), len(profiles))
	}
	for _, name := range names {
		c, err := Profile(name)
		if err != nil {
			t.Fatalf("Profile(%q): %v", name, err)
		}
		if c.Name != name || c.Model == "" || c.Slots < 1 || c.StepMs <= 0 || c.TokensPerChunk < 1 {
			t.Errorf("profile %q is incomplete: %+v", name, c)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("profile %q: %v", name, err)
		}
	}
	_, err := Profile("nope")
	if err == nil {
		t.Fatal("Profile(nope) gave no error")
	}
	for _, name := range names {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
}

// model is the steady-state arithmetic of a configuration at c users (c <= slots,
// no prefill): per-user and aggregate tokens/s.
func model(c Config, users int) (perUser, aggregate float64) {
	active := min(users, c.Slots)
	perUser = 1000 / (c.StepMs + c.StepMsPerSeq*float64(active))
	return perUser, perUser * float64(active)
}

// TestProfileCurves checks that each profile draws the curve its comment promises over the
// TUI's default ramp.
func TestProfileCurves(t *testing.T) {
	get := func(name string) Config {
		c, err := Profile(name)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	d := get(DefaultProfile)
	if u1, _ := model(d, 1); u1 < 80 || u1 > 100 {
		t.Errorf("default profile: %.0f tok/s for one user, want 80-100", u1)
	}
	if u16, _ := model(d, 16); u16 < 30 {
		t.Errorf("default profile: %.0f tok/s per user at 16, want still >= 30", u16)
	}
	if u32, _ := model(d, 32); u32 >= 30 {
		t.Errorf("default profile: %.0f tok/s per user at 32, want below 30", u32)
	}
	_, a8 := model(d, 8)
	_, a16 := model(d, 16)
	_, a32 := model(d, 32)
	_, a64 := model(d, 64)
	if !(a16 > 1.1*a8 && a32 > 1.1*a16 && a64 < 1.1*a32) || d.Slots > 48 || d.Slots < 24 {
		t.Errorf("default profile: aggregate 8..64 = %.0f %.0f %.0f %.0f with %d slots: want rising, then flat at 64 (queue)",
			a8, a16, a32, a64, d.Slots)
	}

	small := get("small-gpu")
	if small.Slots >= d.Slots || small.StepMs <= d.StepMs {
		t.Errorf("small-gpu should have fewer slots and slower steps than %s", DefaultProfile)
	}
	if f := get("fast"); f.TokensPerChunk < 2 {
		t.Errorf("fast: %d tokens per event, want several", f.TokensPerChunk)
	} else if u1, _ := model(f, 1); u1 < 2*100 {
		t.Errorf("fast: %.0f tok/s per user, want a fast provider", u1)
	}
	if fl := get("flaky"); fl.ErrorRate == 0 || fl.MaxQueue == 0 || fl.DropRate == 0 || fl.StallRate == 0 || fl.StallMs == 0 {
		t.Errorf("flaky: every fault should be on: %+v", fl)
	}
	if r := get("reasoning"); r.ReasoningTokens == 0 {
		t.Errorf("reasoning: %d reasoning tokens, want some (TestReasoningLeavesAnAnswer: at most half of an answer)", r.ReasoningTokens)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name  string
		cfg   Config
		field string // "" = valid
	}{
		{"zero", Config{}, ""},
		{"negative step", Config{StepMs: -1}, "step_ms"},
		{"negative slots", Config{Slots: -2}, "slots"},
		{"negative stall", Config{StallMs: -1}, "stall_ms"},
		{"jitter 1", Config{Jitter: 1}, "jitter"},
		{"error rate above 1", Config{ErrorRate: 1.5}, "error_rate"},
		{"negative drop rate", Config{DropRate: -0.1}, "drop_rate"},
		{"stall rate 1", Config{StallRate: 1, StallMs: 10}, ""},
	}
	for _, tc := range cases {
		err := tc.cfg.Validate()
		if (err == nil) != (tc.field == "") || (err != nil && !strings.Contains(err.Error(), tc.field)) {
			t.Errorf("%s: Validate() = %v, want an error naming %q", tc.name, err, tc.field)
		}
	}
}

// TestDrawIsSeeded: the same seed gives the same request fates, another seed others.
func TestDrawIsSeeded(t *testing.T) {
	fates := func(seed int64) []plan {
		s := New(Config{Seed: seed, ErrorRate: 0.3, DropRate: 0.3, StallRate: 0.3})
		defer s.Close()
		var out []plan
		for range 50 {
			out = append(out, s.draw(100, 0, false))
		}
		return out
	}
	a, b, c := fates(7), fates(7), fates(8)
	same := func(x, y []plan) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Errorf("seed 7 twice gave different fates")
	}
	if same(a, c) {
		t.Errorf("seeds 7 and 8 gave the same fates")
	}
	var fails, drops, stalls, stops int
	for _, p := range a {
		if p.target < 1 || p.target > 100 || p.dropAt < 0 || p.dropAt >= 100 || p.stallAt < 0 || p.stallAt >= p.target {
			t.Errorf("fate out of range: %+v", p)
		}
		if p.fail {
			fails++
		}
		if p.dropAt > 0 {
			drops++
		}
		if p.stallAt > 0 {
			stalls++
		}
		if p.finish == "stop" {
			stops++
		}
	}
	if fails == 0 || drops == 0 || stalls == 0 || stops == 0 || fails == 50 {
		t.Errorf("50 fates at 30%% rates: %d fails, %d drops, %d stalls, %d stops", fails, drops, stalls, stops)
	}
}

func TestTextTokens(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want int
	}{
		{`"abcdefgh"`, 2},
		{`"abcdefghi"`, 3},
		{`""`, 1},
		{`["abcd","efgh"]`, 2},
		{`[1,2,3]`, 3},
		{`[{"type":"text","text":"abcdefgh"}]`, 2},
	} {
		if got := textTokens([]byte(tc.raw)); got != tc.want {
			t.Errorf("textTokens(%s) = %d, want %d", tc.raw, got, tc.want)
		}
	}
}
