package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
// --profile, "--hodl" --hold), "" when none is within suggestDistance edits. Of flags
// equally near, one with the same first letter wins, then the first by name, so the
// hint does not depend on the order the flags were declared in.
func nearFlag(cmd *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	best, bestD := "", suggestDistance+1
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if d < bestD || (d == bestD && nearer(name, f.Name, best)) {
			best, bestD = f.Name, d
		}
	})
	if best == "" {
		return ""
	}
	return "did you mean --" + best + "?"
}

// nearer reports whether flag a is a better hint for name than flag b at the same
// distance: a shares name's first letter and b does not, or both or neither do and a
// sorts first.
func nearer(name, a, b string) bool {
	first := func(f string) bool { return f != "" && name != "" && f[0] == name[0] }
	sa, sb := first(a), first(b)
	if sa != sb {
		return sa
	}
	return b == "" || a < b
}

// editDistance is the optimal-string-alignment distance of a and b: Levenshtein's
// insertions, deletions and substitutions plus the swap of two adjacent letters, each
// one edit ("hodl" is 1 from "hold", not 2).
func editDistance(a, b string) int {
	pprev := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pprev[j-2]+1)
			}
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[len(b)]
}
