package promexport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoFile reads a file of the repository by its path from the root (the directory of
// go.mod above the test's own).
func repoFile(t *testing.T, rel string) string {
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
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestDocNamesEveryMetric: docs/timeseries.md names every metric tpsmon serves to
// Prometheus.
func TestDocNamesEveryMetric(t *testing.T) {
	page := repoFile(t, "docs/timeseries.md")
	n := 0
	for name := range registered(t) {
		if strings.HasSuffix(name, "_bucket") || strings.HasSuffix(name, "_sum") || strings.HasSuffix(name, "_count") {
			continue
		}
		n++
		if !strings.Contains(page, "`"+name) {
			t.Errorf("docs/timeseries.md does not name the metric %s", name)
		}
	}
	if n < 8 {
		t.Fatalf("found %d metrics", n)
	}
}
