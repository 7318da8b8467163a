package main

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/tpsmon/tpsmon/probe/settings"
)

func TestTypoHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bnech"}, `(did you mean bench?)`},
		{[]string{"bench", "--users", "8"}, "use --ramp 8"},
		{[]string{"bench", "--users=16"}, "use --ramp 16"},
		{[]string{"sim", "--profle", "fast"}, "did you mean --profile?"},
		{[]string{"bench", "--hodl", "3s"}, "did you mean --hold?"},
		{[]string{"--uesrs", "3"}, "did you mean --users?"},
		{[]string{"bench", "--zzzzqq", "1"}, "unknown flag: --zzzzqq\n"},
	} {
		r := cli(t, nil, nil, nil, c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestNearFlagTie: of flags equally near, the one with the same first letter wins,
// whatever the order they were declared in.
func TestNearFlagTie(t *testing.T) {
	for _, names := range [][]string{{"mold", "hole"}, {"hole", "mold"}} {
		c := &cobra.Command{Use: "x"}
		c.Flags().SortFlags = false
		for _, n := range names {
			c.Flags().String(n, "", "")
		}
		if got := nearFlag(c, errors.New("unknown flag: --hodl")); got != "did you mean --hole?" {
			t.Errorf("flags %v: nearFlag(--hodl) = %q, want --hole", names, got)
		}
	}
}

func TestBuildVersion(t *testing.T) {
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "dev-0123456789ab-dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	} {
		if got := buildVersion(&c.bi); got != c.want {
			t.Errorf("buildVersion(%+v) = %q, want %q", c.bi.Main, got, c.want)
		}
	}
}

// TestTTFOCriterion: ttfo_p95 is accepted from --slo and from the config's slo block.
func TestTTFOCriterion(t *testing.T) {
	var got []time.Duration
	hook := func(p *settings.Plan) error { got = append(got, p.SLO.TTFOP95Max); return errors.New("planned") }
	cli(t, nil, nil, hook, "bench", "--slo", "ttfo_p95<=8s")
	path := writeFile(t, "tpsmon.yaml", "slo:\n  ttfo_p95_max: 12s\n")
	cli(t, nil, nil, hook, "bench", "--config", path)
	if len(got) != 2 || got[0] != 8*time.Second || got[1] != 12*time.Second {
		t.Errorf("TTFO limits planned: %v, want [8s 12s]", got)
	}
}
