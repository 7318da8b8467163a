package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is a results file of testdata, optionally edited (as a JSON map), copied to a
// temporary directory.
func fixture(t *testing.T, name string, edit func(map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		if data, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	return writeFile(t, name, string(data))
}

func TestReportWritesEachFormat(t *testing.T) {
	base, small := fixture(t, "base.json", nil), fixture(t, "small-gpu.json", nil)
	dir := t.TempDir()
	for ext, magic := range map[string]string{".html": "<!DOCTYPE html>", ".svg": "<?xml", ".png": "\x89PNG", ".md": "# tpsmon"} {
		out := filepath.Join(dir, "report"+ext)
		r := cli(t, nil, nil, nil, "report", base, small, "-o", out)
		if r.code != exitOK {
			t.Fatalf("%s: exit %d: %s", ext, r.code, r.stderr)
		}
		checkClean(t, r)
		data, err := os.ReadFile(out)
		if err != nil || !strings.HasPrefix(string(data), magic) {
			t.Errorf("%s: %v, starts %q, want %q", ext, err, firstBytes(data), magic)
		}
		if !strings.Contains(r.stderr, "wrote "+out) {
			t.Errorf("%s: stderr %q", ext, r.stderr)
		}
	}
}

func firstBytes(b []byte) string { return string(b[:min(len(b), 16)]) }

func TestReportUsageErrors(t *testing.T) {
	base := fixture(t, "base.json", nil)
	notResults := writeFile(t, "data.json", `{"rows":[]}`)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"report", "-o", filepath.Join(dir, "r.html")}, "no results file"},
		{"no -o", []string{"report", base}, "-o FILE is required"},
		{"pdf", []string{"report", base, "-o", filepath.Join(dir, "r.pdf")}, ".html, .svg, .png or .md"},
		{"missing", []string{"report", filepath.Join(dir, "nope.json"), "-o", filepath.Join(dir, "r.md")}, "nope.json: cannot read the results"},
		{"foreign", []string{"report", notResults, "-o", filepath.Join(dir, "r.md")}, `schema ""`},
		{"no dir", []string{"report", base, "-o", filepath.Join(dir, "no", "r.md")}, "does not exist"},
	} {
		r := cli(t, nil, nil, nil, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tc.name, r.code, r.stderr, tc.want)
		}
		checkClean(t, r)
	}
	md := filepath.Join(dir, "same.md")
	if err := os.WriteFile(md, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := cli(t, nil, nil, nil, "report", md, "-o", md); r.code != exitUsage {
		t.Errorf("report onto its own input: exit %d", r.code)
	}
}

func TestCompareExitCodes(t *testing.T) {
	base, small := fixture(t, "base.json", nil), fixture(t, "small-gpu.json", nil)
	r := cli(t, nil, nil, nil, "compare", base, small)
	if r.code != exitCapacity {
		t.Fatalf("default vs small-gpu: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	checkClean(t, r)
	for _, w := range []string{"| users | per-user tok/s p50 | change |", "Capacity: BASE at least 8 users, NEW 2 users", "Result: NEW is worse than BASE"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
		}
	}
	if r := cli(t, nil, nil, nil, "compare", small, base); r.code != exitOK {
		t.Errorf("small-gpu vs default (better): exit %d\n%s", r.code, r.stderr)
	}
	// 60% allowed: only the capacity and the TTFT (up to +294%) still count.
	if r := cli(t, nil, nil, nil, "compare", base, small, "--max-regression", "60%"); r.code != exitCapacity || strings.Contains(r.stdout, "aggregate tok/s 412.6") {
		t.Errorf("--max-regression 60%%: exit %d\n%s", r.code, r.stdout)
	}
	ramp := fixture(t, "small-gpu.json", func(m map[string]any) {
		m["settings"].(map[string]any)["ramp"] = []int{1, 2, 4, 8, 16}
	})
	r = cli(t, nil, nil, nil, "compare", base, ramp)
	if r.code != exitUsage || !strings.Contains(r.stderr, "the ramp differs: BASE 1,2,4,8, NEW 1,2,4,8,16") {
		t.Errorf("different ramps: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, args := range [][]string{{"compare", base}, {"compare", base, small, small}, {"compare", base, small, "--max-regression", "five"}, {"compare", base, small, "--max-regression", "5"}} {
		if r := cli(t, nil, nil, nil, args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want 2", args[1:], r.code)
		}
	}
}

// TestCompareSimulatorProfiles is the check: the default simulator against its
// small-gpu profile, measured now, is a regression.
func TestCompareSimulatorProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator twice")
	}
	t.Parallel()
	dir := t.TempDir()
	base, next := filepath.Join(dir, "base.json"), filepath.Join(dir, "new.json")
	for _, run := range []struct {
		out     string
		profile []string
	}{{base, nil}, {next, []string{"--profile", "small-gpu"}}} {
		args := append([]string{"bench", "--ramp", "1,2", "--hold", "2s", "--max-tokens", "16", "--out", run.out}, run.profile...)
		if r := cli(t, nil, nil, nil, args...); r.code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	r := cli(t, nil, nil, nil, "compare", base, next)
	if r.code != exitCapacity || !strings.Contains(r.stdout, "per-user tok/s p50") {
		t.Errorf("default vs small-gpu: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(dir, "r.html")
	if r := cli(t, nil, nil, nil, "report", base, next, "-o", out); r.code != exitOK {
		t.Errorf("report: exit %d: %s", r.code, r.stderr)
	}
}
