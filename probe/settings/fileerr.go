package settings

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxLocateLines bounds the files whose syntax errors syntaxError locates itself.
const maxLocateLines = 5000

var reLine = regexp.MustCompile(`^line \d+: `)

// syntaxError is a YAML syntax error as "config FILE: line N: what". yaml.v3 gives no
// line for an error on the first line and counts some from 0, so the line is found here:
// the first line that no prefix of the file parses past, that is, the line after the
// longest run of leading lines that parses. That is where an unclosed bracket or quote
// opens, or where a tab, a stray ':' or a repeated key is.
func syntaxError(path string, data []byte, err error) error {
	msg := reLine.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), "")
	if line := syntaxLine(data); line > 0 {
		return fmt.Errorf("config %s: line %d: %s", path, line, msg)
	}
	return configError(path, err)
}

// syntaxLine returns 1 + the most leading lines of data that parse as YAML, or 0 when
// data has too many lines to search or every line parses.
func syntaxLine(data []byte) int {
	var ends []int // offset just past each line
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		ends = append(ends, len(data))
	}
	if len(ends) > maxLocateLines {
		return 0
	}
	for n := len(ends); n > 0; n-- {
		var v yaml.Node
		if yaml.Unmarshal(data[:ends[n-1]], &v) == nil {
			if n == len(ends) {
				return 0
			}
			return n + 1
		}
	}
	return 1
}

var (
	reNotFound = regexp.MustCompile(`field (\S+) not found in type (\S+)`)
	reBadType  = regexp.MustCompile("cannot unmarshal !!(\\w+) `(.*)` into (.+)$")
	reBadKind  = regexp.MustCompile(`cannot unmarshal !!(\w+) into (.+)$`)
	reColumn   = regexp.MustCompile(`^line (\d+): @(\d+): `)
)

// configError turns a yaml.v3 error into "config FILE: line N: what", one per problem.
func configError(path string, err error) error { return configErrorAt(path, err, nil) }

// configErrorAt is configError naming the key of each problem found in paths (see keyPaths).
func configErrorAt(path string, err error, paths map[string]string) error {
	var lines []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		lines = te.Errors
	} else {
		lines = []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	for i, l := range lines {
		l = reColumn.ReplaceAllStringFunc(l, func(m string) string {
			sub := reColumn.FindStringSubmatch(m)
			if key := paths[sub[1]+":"+sub[2]]; key != "" {
				return "line " + sub[1] + ": " + key + ": "
			}
			return "line " + sub[1] + ": "
		})
		l = reNotFound.ReplaceAllStringFunc(l, func(m string) string {
			sub := reNotFound.FindStringSubmatch(m)
			return unknownKey(sub[1], sub[2])
		})
		l = reBadType.ReplaceAllStringFunc(l, func(m string) string {
			sub := reBadType.FindStringSubmatch(m)
			return fmt.Sprintf("%q is %s, want %s", sub[2], yamlKind(sub[1]), goKind(sub[3]))
		})
		l = reBadKind.ReplaceAllStringFunc(l, func(m string) string {
			sub := reBadKind.FindStringSubmatch(m)
			return fmt.Sprintf("found %s, want %s", yamlKind(sub[1]), goKind(sub[2]))
		})
		lines[i] = fmt.Sprintf("config %s: %s", path, l)
	}
	return errors.New(strings.Join(lines, "\n"))
}

func yamlKind(tag string) string {
	switch tag {
	case "str":
		return "a string"
	case "int", "float":
		return "a number"
	case "bool":
		return "a boolean"
	case "map":
		return "a mapping"
	case "seq":
		return "a list"
	}
	return "a " + tag
}

func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "settings."):
		return "a mapping (key: value)"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "float"):
		return "a number"
	}
	return t
}

// unknownKey says that key is not a key of the block of type block (a Go type's name),
// with the key of that block meant when one is near.
func unknownKey(key, block string) string {
	var names []string
	for _, k := range blockKeys()[block] {
		names = append(names, k.name())
	}
	if near := Nearest(key, names, 2); near != "" {
		return fmt.Sprintf("unknown key %q (did you mean %s? the keys are listed in docs/config.md)", key, near)
	}
	return fmt.Sprintf("unknown key %q (check its spelling and indentation; the keys are listed in docs/config.md)", key)
}
