package main

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/settings"
)

// complete asks the command tree for the completions of args (the last one being the
// word under the cursor), as the shell scripts do, and returns them and the directive.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	r := cli(t, nil, nil, nil, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if r.code != 0 {
		t.Fatalf("tpsmon __complete %q: exit %d, %s", args, r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var words []string
	for _, l := range lines[:len(lines)-1] {
		w, _, _ := strings.Cut(l, "\t")
		words = append(words, w)
	}
	return words, lines[len(lines)-1]
}

const (
	noFiles  = ":4" // ShellCompDirectiveNoFileComp
	fileExts = ":8" // ShellCompDirectiveFilterFileExt
)

// TestCompletionOfEveryFlag: every flag that takes a value completes, on every command
// that has it: its fixed set of values, the extensions of its files, or nothing (never
// the shell's file names for a number or a URL).
func TestCompletionOfEveryFlag(t *testing.T) {
	seen := map[string]bool{}
	for path, c := range commandTree(t) {
		words := strings.Fields(path)[1:]
		for _, f := range ownFlags(c) {
			if f.Value.Type() == "bool" {
				continue
			}
			seen[f.Name] = true
			got, dir := complete(t, append(slices.Clone(words), "--"+f.Name, "")...)
			switch {
			case flagValues[f.Name] != nil:
				if want := flagValues[f.Name](); !slices.Equal(got, want) || dir != noFiles {
					t.Errorf("%s --%s completes %q %s, want %q %s", path, f.Name, got, dir, want, noFiles)
				}
			case fileFlags[f.Name] != nil:
				if want := fileFlags[f.Name]; !slices.Equal(got, want) || dir != fileExts {
					t.Errorf("%s --%s completes %q %s, want files %q %s", path, f.Name, got, dir, want, fileExts)
				}
			default:
				if len(got) != 0 || dir != noFiles {
					t.Errorf("%s --%s completes %q %s, want nothing (%s)", path, f.Name, got, dir, noFiles)
				}
			}
		}
	}
	for name := range flagValues {
		if !seen[name] {
			t.Errorf("flagValues completes --%s, which no command has", name)
		}
	}
	for name := range fileFlags {
		if !seen[name] {
			t.Errorf("fileFlags completes --%s, which no command has", name)
		}
	}
}

// TestCompletionOfValuesAndFiles: what a user sees at <TAB>, for a few lines typed.
func TestCompletionOfValuesAndFiles(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
		dir  string
	}{
		{[]string{"--theme", ""}, []string{"default", "high-contrast", "colorblind", "mono"}, noFiles},
		{[]string{"--theme", "h"}, []string{"high-contrast"}, noFiles},
		{[]string{"bench", "--profile", ""}, []string{"datacenter", "small-gpu", "fast", "flaky", "reasoning"}, noFiles},
		{[]string{"sim", "--profile", "f"}, []string{"fast", "flaky"}, noFiles},
		{[]string{"bench", "--api", ""}, []string{"chat", "completions", "messages", "responses"}, noFiles},
		{[]string{"bench", "--arrival", ""}, []string{"poisson", "constant"}, noFiles},
		{[]string{"replay", "--speed", ""}, []string{"1", "2", "4", "8", "16", "32", "64"}, noFiles},
		{[]string{"report", "x.json", "-o", ""}, []string{"html", "svg", "png", "md"}, fileExts},
		{[]string{"bench", "--report", ""}, []string{"html", "svg", "png", "md"}, fileExts},
		{[]string{"--config", ""}, []string{"yaml", "yml"}, fileExts},
		{[]string{"bench", "--dataset", ""}, []string{"jsonl", "json"}, fileExts},
		{[]string{"bench", "--out", ""}, []string{"json"}, fileExts},
		{[]string{"--timeseries", ""}, []string{"jsonl"}, fileExts},
		{[]string{"report", ""}, []string{"json"}, fileExts},
		{[]string{"report", "a.json", ""}, []string{"json"}, fileExts},
		{[]string{"compare", "a.json", ""}, []string{"json"}, fileExts},
		{[]string{"compare", "a.json", "b.json", ""}, nil, noFiles},
		{[]string{"merge", "a.json", "b.json", ""}, []string{"json"}, fileExts},
		{[]string{"replay", ""}, []string{"jsonl"}, fileExts},
		{[]string{"replay", "run.jsonl", ""}, nil, noFiles},
		{[]string{"bench", ""}, nil, noFiles},
		{[]string{"bench", "--url", ""}, nil, noFiles},
		{[]string{"completion", ""}, []string{"bash", "fish", "powershell", "zsh"}, noFiles},
		{[]string{"be"}, []string{"bench"}, noFiles},
	} {
		got, dir := complete(t, tt.args...)
		if !slices.Equal(got, tt.want) || dir != tt.dir {
			t.Errorf("tpsmon %s<TAB>: %q %s, want %q %s", strings.Join(tt.args, " "), got, dir, tt.want, tt.dir)
		}
	}
}

// TestCompletedValuesAreAccepted: every value completion offers is one the command
// takes (the lists are the program's own, but the API check lives apart).
func TestCompletedValuesAreAccepted(t *testing.T) {
	for _, api := range client.APIs() {
		planned := false
		r := cli(t, nil, nil, func(*settings.Plan) error { planned = true; return errors.New("planned") }, "bench", "--api", api)
		if !planned {
			t.Errorf("bench --api %s (completed) is refused: %s", api, r.stderr)
		}
	}
	for _, arr := range flagValues["arrival"]() {
		planned := false
		r := cli(t, nil, nil, func(*settings.Plan) error { planned = true; return errors.New("planned") }, "bench", "--rate", "2", "--arrival", arr)
		if !planned {
			t.Errorf("bench --arrival %s (completed) is refused: %s", arr, r.stderr)
		}
	}
}

// TestCompletionScripts: tpsmon completion SHELL prints that shell's script.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash":       "complete -o default -F __start_tpsmon tpsmon",
		"zsh":        "#compdef tpsmon",
		"fish":       "complete -c tpsmon",
		"powershell": "Register-ArgumentCompleter",
	} {
		r := cli(t, nil, nil, nil, "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("tpsmon completion %s: exit %d, script without %q:\n%.300s", shell, r.code, want, r.stdout)
		}
	}
}
