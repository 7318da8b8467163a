package ui

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"github.com/tpsmon/tpsmon/themes"
)

// docKeys returns the keys named in the first column of the table under heading in
// docs/screen.md, with the arrows and the space written as the key map writes them.
func docKeys(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "screen.md"))
	if err != nil {
		t.Fatal(err)
	}
	span := regexp.MustCompile("`([^`]+)`")
	names := map[string]string{"↑": "up", "↓": "down", "←": "left", "→": "right"}
	var keys []string
	in, found := false, false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			in = strings.TrimLeft(line, "# ") == heading
			found = found || in
			continue
		}
		if !in || !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| Key") {
			continue
		}
		first := strings.Split(strings.Trim(line, "|"), "|")[0]
		for _, m := range span.FindAllStringSubmatch(first, -1) {
			k := m[1]
			if n, ok := names[k]; ok {
				k = n
			}
			keys = append(keys, k)
		}
	}
	if !found {
		t.Fatalf("docs/screen.md has no heading %q", heading)
	}
	return keys
}

// boundKeys returns every key of every binding in a key map (a struct of key.Binding,
// embedded structs included), disabled ones too: a key disabled now is bound in
// another state (p is pause, or resume while paused). The literal space is "space".
func boundKeys(v any) []string {
	var keys []string
	var walk func(rv reflect.Value)
	walk = func(rv reflect.Value) {
		for i := 0; i < rv.NumField(); i++ {
			f := rv.Field(i)
			if b, ok := f.Interface().(key.Binding); ok {
				for _, k := range b.Keys() {
					if k == " " {
						k = "space"
					}
					keys = append(keys, k)
				}
				continue
			}
			if f.Kind() == reflect.Struct {
				walk(f)
			}
		}
	}
	walk(reflect.ValueOf(v))
	return keys
}

// sameSet fails unless doc and bound name the same keys.
func sameSet(t *testing.T, what string, doc, bound []string) {
	t.Helper()
	set := func(s []string) []string {
		s = slices.Clone(s)
		sort.Strings(s)
		return slices.Compact(s)
	}
	d, b := set(doc), set(bound)
	for _, k := range d {
		if !slices.Contains(b, k) {
			t.Errorf("docs/screen.md lists key %q under %q, but the key map binds no such key", k, what)
		}
	}
	for _, k := range b {
		if !slices.Contains(d, k) {
			t.Errorf("the key map binds %q, but docs/screen.md does not list it under %q", k, what)
		}
	}
}

// TestKeysDocMatchesKeyMap: the keys tables of docs/screen.md are the keys the live
// screen and replay bind, both ways.
func TestKeysDocMatchesKeyMap(t *testing.T) {
	sameSet(t, "Keys of the live screen", docKeys(t, "Keys of the live screen"), boundKeys(DefaultKeyMap()))
	sameSet(t, "Keys of tpsmon replay", docKeys(t, "Keys of tpsmon replay"), boundKeys(DefaultReplayKeyMap()))
}

// TestThemesDocNamesEveryTheme: docs/screen.md's themes table has a row for every
// theme --theme takes.
func TestThemesDocNamesEveryTheme(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "screen.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "## Layout and themes")
	if !ok {
		t.Fatal(`docs/screen.md has no "## Layout and themes"`)
	}
	for _, name := range themes.Names() {
		if !strings.Contains(sec, "| `"+name+"` |") {
			t.Errorf("docs/screen.md's Layout and themes does not name the theme %q", name)
		}
	}
}
