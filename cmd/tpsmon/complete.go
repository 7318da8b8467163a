package main

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tpsmon/tpsmon/probe/arrival"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/output/report"
	"github.com/tpsmon/tpsmon/probe/sim"
	"github.com/tpsmon/tpsmon/themes"
)

// flagValues are the flags whose values are a fixed set, completed from the lists the
// program itself checks them against.
var flagValues = map[string]func() []string{
	"profile": sim.ProfileNames,
	"theme":   themes.Names,
	"api":     client.APIs,
	"arrival": arrival.Names,
	"speed": func() []string {
		s := make([]string, len(replaySpeeds))
		for i, v := range replaySpeeds {
			s[i] = strconv.Itoa(v)
		}
		return s
	},
}

// fileFlags are the flags that name a file, with the extensions tpsmon reads or
// writes there (directories complete too, to reach the file).
var fileFlags = map[string][]string{
	"config":     {"yaml", "yml"},
	"dataset":    {"jsonl", "json"},
	"out":        {"json"},
	"csv":        {"csv"},
	"timeseries": {"jsonl"},
	"report":     report.Formats, // bench --report FILE
	"output":     report.Formats, // report -o FILE
}

// argFiles are the extensions of the files the commands take as arguments, and how
// many (0: any number).
var argFiles = map[string]struct {
	exts []string
	max  int
}{
	"report":  {[]string{"json"}, 0},
	"compare": {[]string{"json"}, 2},
	"merge":   {[]string{"json"}, 0},
	"replay":  {[]string{"jsonl"}, 1},
}

// registerCompletions gives every command of the tree its shell completions: the
// values of fixed-set flags, file names for file flags and file arguments, and nothing
// (rather than the shell's file names) for every other flag that takes a value.
func registerCompletions(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || f.Value.Type() == "bool" {
			return
		}
		_ = c.RegisterFlagCompletionFunc(f.Name, flagCompletion(f.Name))
	})
	if a, ok := argFiles[c.Name()]; ok && c.HasParent() {
		c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if a.max > 0 && len(args) >= a.max {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return a.exts, cobra.ShellCompDirectiveFilterFileExt
		}
	} else if c.ValidArgsFunction == nil && c.Args != nil {
		c.ValidArgsFunction = cobra.NoFileCompletions
	}
	for _, sub := range c.Commands() {
		registerCompletions(sub)
	}
}

// flagCompletion completes the flag called name.
func flagCompletion(name string) cobra.CompletionFunc {
	if values, ok := flagValues[name]; ok {
		return func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
			var match []string
			for _, v := range values() {
				if strings.HasPrefix(v, typed) {
					match = append(match, v)
				}
			}
			return match, cobra.ShellCompDirectiveNoFileComp
		}
	}
	if exts, ok := fileFlags[name]; ok {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return exts, cobra.ShellCompDirectiveFilterFileExt
		}
	}
	return cobra.NoFileCompletions
}
