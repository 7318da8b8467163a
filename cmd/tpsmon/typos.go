package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/probe/settings"
)

// suggestDistance is how many edits apart a mistyped command may be from the one suggested
// (`tpsmon bnech` suggests bench).
const suggestDistance = 2

// rootArgs refuses positional arguments of plain tpsmon, suggesting the command meant
// when one is near (cobra's own suggestions only run for commands without Args).
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += " (did you mean " + strings.Join(s, " or ") + "?)"
	}
	return &flagError{path: cmd.CommandPath(), err: fmt.Errorf("%s", msg)}
}

// flagHints are the flags of one command that users reach for under another: the
// command path, the flag mistyped, and the hint (%s is the value given, or N).
var flagHints = map[string]map[string]string{
	"tpsmon bench": {
		"users":  "bench walks a ramp of levels: for one level of %s users use --ramp %s",
		"theme":  "bench draws no screen: --theme is for plain tpsmon",
		"settle": "bench stops the load at the end: --settle is for plain tpsmon",
	},
}

// flagHint is the hint for an unknown flag of cmd, "" when there is none. args is the
// command line, to show the value given (`--users 8` points at `--ramp 8`).
func flagHint(cmd *cobra.Command, err error, args []string) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	hint, ok := flagHints[cmd.CommandPath()][name]
	if !ok {
		return ""
	}
	if !strings.Contains(hint, "%s") {
		return hint
	}
	v := flagValue(args, name)
	return fmt.Sprintf(hint, v, v)
}

// flagValue is the value given to --name in args, "N" when none is found.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok && v != "" {
			return v
		}
		if a == "--"+name && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			return args[i+1]
		}
	}
	return "N"
}

// nearFlag is the flag of cmd nearest to the unknown flag of err ("--profle" suggests
// --profile, "--hodl" --hold), "" when none is within suggestDistance edits
// (settings.Nearest says which of flags equally near).
func nearFlag(cmd *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	var flags []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			flags = append(flags, f.Name)
		}
	})
	if best := settings.Nearest(name, flags, suggestDistance); best != "" {
		return "did you mean --" + best + "?"
	}
	return ""
}
