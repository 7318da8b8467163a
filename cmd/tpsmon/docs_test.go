package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tpsmon/tpsmon/probe/settings"
	"github.com/tpsmon/tpsmon/probe/sim"
)

// The documentation's tests: the pages in docs/ say what the program does. Each test
// derives its list from the program (the command tree, the config's types, the
// simulator's profiles), so a flag or key added without its documentation fails here.

// readDoc returns the repository file at rel (e.g. "docs/flags.md").
func readDoc(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// docSection is a part of a page under one heading.
type docSection struct {
	heading string
	lines   []string
}

// sections splits a page at its headings (## and deeper), leaving code blocks whole.
func sections(page string) []docSection {
	var out []docSection
	cur := docSection{}
	fence := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(line, "##") {
			out = append(out, cur)
			cur = docSection{heading: strings.TrimLeft(line, "# ")}
			continue
		}
		cur.lines = append(cur.lines, line)
	}
	return append(out, cur)
}

// tableRows returns the cells of a section's table rows (not the header or the rule).
func tableRows(lines []string) [][]string {
	var rows [][]string
	header := true
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			header = true
			continue
		}
		if header { // the first row of a table is its header
			header = false
			continue
		}
		if strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "|:--") {
			continue
		}
		line = strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00")
		var cells []string
		for _, c := range strings.Split(line, "|") {
			cells = append(cells, strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|")))
		}
		rows = append(rows, cells)
	}
	return rows
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// spans returns the inline code spans of s.
func spans(s string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// headingCommands returns the command paths a heading names: code spans that start
// with "tpsmon", up to the first flag; "a|b|c" as the last word names each.
func headingCommands(heading string) []string {
	var paths []string
	for _, s := range spans(heading) {
		words := strings.Fields(s)
		if len(words) == 0 || words[0] != "tpsmon" {
			continue
		}
		n := 0
		for n < len(words) && !strings.HasPrefix(words[n], "-") {
			n++
		}
		words = words[:n]
		last := words[len(words)-1]
		for _, alt := range strings.Split(last, "|") {
			paths = append(paths, strings.Join(append(words[:len(words)-1:len(words)-1], alt), " "))
		}
	}
	return paths
}

// docRow is one table row of docs/flags.md: its flags, short names and command tag.
type docRow struct {
	long, short []string
	tag         string // "bench" or "screen" (the plain tpsmon command), or ""
	text        string
}

var rowTag = regexp.MustCompile(`\((bench|screen)\)`)

func parseFlagRow(cell string) docRow {
	r := docRow{text: cell}
	for _, s := range spans(cell) {
		name := strings.Fields(s)[0]
		switch {
		case strings.HasPrefix(name, "--"):
			r.long = append(r.long, strings.TrimPrefix(name, "--"))
		case len(name) == 2 && name[0] == '-':
			r.short = append(r.short, name[1:])
		}
	}
	if m := rowTag.FindStringSubmatch(codeSpan.ReplaceAllString(cell, "")); m != nil {
		r.tag = m[1]
	}
	return r
}

// commandTree returns every command of tpsmon by path, the completion command and
// --version included (cobra adds them when the program runs).
func commandTree(t *testing.T) map[string]*cobra.Command {
	t.Helper()
	root := (&app{stdout: os.Stdout, stderr: os.Stderr, getenv: func(string) string { return "" }}).newRootCmd()
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	cmds := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		cmds[c.CommandPath()] = c
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return cmds
}

// ownFlags returns the flags a command defines itself (not --help).
func ownFlags(c *cobra.Command) []*pflag.Flag {
	var fs []*pflag.Flag
	c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			fs = append(fs, f)
		}
	})
	c.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			fs = append(fs, f)
		}
	})
	return fs
}

// TestFlagsDocMatchesCommands: docs/flags.md documents every command and every flag of
// the command tree, and every flag it names belongs to the commands it says.
func TestFlagsDocMatchesCommands(t *testing.T) {
	cmds := commandTree(t)
	if len(cmds) < 8 {
		t.Fatalf("the command tree has %d commands; the walk is broken", len(cmds))
	}
	documented := map[string]map[string]bool{} // command path -> documented long flags
	for _, sec := range sections(readDoc(t, "docs/flags.md")) {
		paths := headingCommands(sec.heading)
		if len(paths) == 0 {
			continue
		}
		for _, p := range paths {
			if cmds[p] == nil {
				t.Errorf("docs/flags.md: section %q names %q, which is not a command", sec.heading, p)
			}
			if documented[p] == nil {
				documented[p] = map[string]bool{}
			}
		}
		for _, cells := range tableRows(sec.lines) {
			row := parseFlagRow(cells[0])
			if len(row.long) == 0 {
				continue
			}
			applies := paths
			if row.tag != "" {
				want := map[string]string{"bench": "tpsmon bench", "screen": "tpsmon"}[row.tag]
				if !slices.Contains(paths, want) {
					t.Errorf("docs/flags.md: row %q is marked (%s), but its section %q does not name %q", row.text, row.tag, sec.heading, want)
					continue
				}
				applies = []string{want}
			}
			for _, p := range paths {
				c := cmds[p]
				if c == nil {
					continue
				}
				for _, name := range row.long {
					f := c.Flags().Lookup(name)
					switch in := slices.Contains(applies, p); {
					case in && f == nil:
						t.Errorf("docs/flags.md: %s has no flag --%s (row %q)", p, name, row.text)
					case !in && f != nil:
						t.Errorf("docs/flags.md: row %q is marked (%s), but %s has --%s too", row.text, row.tag, p, name)
					case in:
						documented[p][name] = true
						if f.Shorthand != "" && !slices.Contains(row.short, f.Shorthand) {
							t.Errorf("docs/flags.md: row %q does not name --%s's short form -%s", row.text, name, f.Shorthand)
						}
					}
				}
				for _, s := range row.short {
					if f := c.Flags().ShorthandLookup(s); slices.Contains(applies, p) && (f == nil || !slices.Contains(row.long, f.Name)) {
						t.Errorf("docs/flags.md: row %q names -%s, which is not the short form of its flags in %s", row.text, s, p)
					}
				}
			}
		}
	}
	paths := make([]string, 0, len(cmds))
	for p := range cmds {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		c := cmds[p]
		own := ownFlags(c)
		if documented[p] == nil {
			if len(own) > 0 || !c.HasSubCommands() {
				t.Errorf("docs/flags.md has no section naming `%s`", p)
			}
			continue
		}
		for _, f := range own {
			if !documented[p][f.Name] {
				t.Errorf("docs/flags.md does not document %s --%s (%s)", p, f.Name, f.Usage)
			}
		}
	}
}

// yamlBlocks returns the ```yaml code blocks of a page.
func yamlBlocks(page string) []string {
	var out []string
	var cur []string
	in := false
	for _, line := range strings.Split(page, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```yaml":
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			out = append(out, strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, line)
		}
	}
	return out
}

// TestConfigDocExamplesLoad: every example of docs/config.md is a config that
// `tpsmon bench --config` accepts and plans a run from.
func TestConfigDocExamplesLoad(t *testing.T) {
	blocks := yamlBlocks(readDoc(t, "docs/config.md"))
	if len(blocks) == 0 {
		t.Fatal("docs/config.md has no yaml example")
	}
	errPlanned := errors.New("planned")
	for i, b := range blocks {
		path := filepath.Join(t.TempDir(), "tpsmon.yaml")
		if err := os.WriteFile(path, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
		var planned *settings.Plan
		r := cli(t, nil, map[string]string{"VLLM_API_KEY": testKey}, func(p *settings.Plan) error { planned = p; return errPlanned }, "bench", "--config", path)
		if planned == nil {
			t.Errorf("example %d of docs/config.md was not planned (exit %d):\n%s\n%s", i+1, r.code, r.stderr, b)
		}
	}
}

// TestConfigDocListsEveryKey: the keys table of docs/config.md is every key the file
// accepts, no more.
func TestConfigDocListsEveryKey(t *testing.T) {
	want := map[string]bool{}
	for _, k := range settings.Keys() {
		want[k] = true
	}
	if len(want) < 20 {
		t.Fatalf("found %d config keys; the walk is broken", len(want))
	}
	got := map[string]bool{}
	for _, sec := range sections(readDoc(t, "docs/config.md")) {
		if sec.heading != "Keys" {
			continue
		}
		for _, cells := range tableRows(sec.lines) {
			for _, s := range spans(cells[0]) {
				got[s] = true
			}
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("docs/config.md's keys table does not list %s", k)
		}
	}
	for k := range got {
		if !want[k] {
			t.Errorf("docs/config.md's keys table lists %s, which the config file does not accept", k)
		}
	}
}

// TestSimulatorDocProfiles: docs/simulator.md's profile table has one row per profile
// of the simulator.
func TestSimulatorDocProfiles(t *testing.T) {
	var got []string
	for _, sec := range sections(readDoc(t, "docs/simulator.md")) {
		if sec.heading != "Profiles" {
			continue
		}
		for _, cells := range tableRows(sec.lines) {
			for _, s := range spans(cells[0]) {
				got = append(got, s)
			}
		}
	}
	want := sim.ProfileNames()
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("docs/simulator.md's profiles are %v; the simulator has %v", got, want)
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// slug is the anchor GitHub gives a heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a page's headings (repeats get -1, -2 ...).
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		s := slug(strings.TrimSpace(strings.TrimLeft(line, "#")))
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// TestDocLinksResolve: every relative link of the README and of docs/ names a file of
// the repository, and a heading of it when it has an anchor.
func TestDocLinksResolve(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "..", "README.md"))
	if len(pages) < 10 {
		t.Fatalf("found %d pages", len(pages))
	}
	for _, p := range pages {
		name, _ := filepath.Rel(filepath.Join("..", ".."), p)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := p
			if file != "" {
				dest = filepath.Join(filepath.Dir(p), file)
			}
			body, err := os.ReadFile(dest)
			if err != nil {
				if _, serr := os.Stat(dest); serr == nil {
					continue // a directory
				}
				t.Errorf("%s: link %q: no such file", name, target)
				continue
			}
			if anchor != "" && !anchors(string(body))[anchor] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", name, target, filepath.Base(dest), anchor)
			}
		}
	}
}
