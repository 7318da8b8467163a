package timeseries

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// docRows returns, for every key named in the first cell of a table row of
// docs/NAME, the code spans of the rest of its row (where nested keys are named).
func docRows(t *testing.T, name string) map[string]map[string]bool {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = filepath.Dir(dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	span := regexp.MustCompile("`([^`]+)`")
	rows := map[string]map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		first, rest, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		named := map[string]bool{}
		for _, m := range span.FindAllStringSubmatch(rest, -1) {
			named[m[1]] = true
		}
		for _, m := range span.FindAllStringSubmatch(first, -1) {
			rows[m[1]] = named
		}
	}
	return rows
}

// TestDocNamesEveryKey: every key of a time-series line has a row in
// docs/timeseries.md, and every key of its nested objects (ramp, levels, server) is
// named in that row.
func TestDocNamesEveryKey(t *testing.T) {
	rows := docRows(t, "timeseries.md")
	lt := reflect.TypeOf(Line{})
	n := 0
	for i := 0; i < lt.NumField(); i++ {
		f := lt.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "" || key == "-" {
			continue
		}
		n++
		row, ok := rows[key]
		if !ok {
			t.Errorf("docs/timeseries.md has no row for the key %q", key)
			continue
		}
		nt := f.Type
		for nt.Kind() == reflect.Pointer || nt.Kind() == reflect.Slice {
			nt = nt.Elem()
		}
		if nt.Kind() != reflect.Struct {
			continue
		}
		for j := 0; j < nt.NumField(); j++ {
			sub, _, _ := strings.Cut(nt.Field(j).Tag.Get("json"), ",")
			if sub != "" && sub != "-" && !row[sub] {
				t.Errorf("docs/timeseries.md's row for %q does not name its key %q", key, sub)
			}
		}
	}
	if n < 25 {
		t.Fatalf("found %d keys on Line", n)
	}
}
