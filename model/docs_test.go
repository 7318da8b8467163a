package model

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docWords reads the repository's docs/NAME and returns every word (letters, digits,
// '_') written inside inline code spans outside code blocks: the names a page
// documents in its tables and prose, not those an example happens to contain.
func docWords(t *testing.T, name string) map[string]bool {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	data, err := os.ReadFile(filepath.Join(dir, "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	span := regexp.MustCompile("`[^`\n]+`")
	word := regexp.MustCompile(`[A-Za-z0-9_]+`)
	fence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, s := range span.FindAllString(line, -1) {
			for _, w := range word.FindAllString(s, -1) {
				words[w] = true
			}
		}
	}
	return words
}

// jsonKeys returns the JSON keys of every struct reachable from t.
func jsonKeys(t reflect.Type, keys map[string]bool, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if name != "" {
			keys[name] = true
		} else if !f.Anonymous {
			keys[f.Name] = true
		}
		jsonKeys(f.Type, keys, seen)
	}
}

// TestResultsDocNamesEveryKey: every JSON key of results.json is named on
// docs/results.md, so that a key added to the report is documented with it (the CSV's
// columns: probe/output/results).
func TestResultsDocNamesEveryKey(t *testing.T) {
	words := docWords(t, "results.md")
	keys := map[string]bool{}
	jsonKeys(reflect.TypeOf(Report{}), keys, map[reflect.Type]bool{})
	if len(keys) < 50 {
		t.Fatalf("found only %d JSON keys in Report: the walk is broken", len(keys))
	}
	var missing []string
	for k := range keys {
		if !words[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/results.md does not name these JSON keys of results.json: %s", strings.Join(missing, ", "))
	}
}
