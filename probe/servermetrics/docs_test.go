package servermetrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocNamesEveryServerMetric: docs/server.md's table names, for every server tpsmon
// recognises, the first metric name of each signal it reads, and names each server.
func TestDocNamesEveryServerMetric(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "server.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, s := range servers {
		if !strings.Contains(page, s.kind) {
			t.Errorf("docs/server.md does not name the server %s", s.kind)
		}
		for _, f := range []family{s.running, s.waiting, s.kv, s.generated, s.preempt, s.prefixHits, s.prefixQueries, s.prefixRate} {
			if len(f) > 0 && !strings.Contains(page, "`"+f[0]+"`") {
				t.Errorf("docs/server.md does not name %s's metric %s", s.kind, f[0])
			}
		}
	}
}
