package results

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
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

// TestDocNamesEveryCSVColumn: every CSV column is named on docs/results.md, so that a
// column added is documented with it.
func TestDocNamesEveryCSVColumn(t *testing.T) {
	words := docWords(t, "results.md")
	header, _, _ := strings.Cut(CSV(&model.Report{}), "\n")
	var cols []string
	for _, c := range strings.Split(strings.TrimSpace(header), ",") {
		if !words[c] {
			cols = append(cols, c)
		}
	}
	if len(cols) > 0 {
		t.Errorf("docs/results.md does not name these CSV columns: %s", strings.Join(cols, ", "))
	}
}
