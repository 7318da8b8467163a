package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
)

// TestTableShowsGoodput: the level table shows each level's goodput share (issue 8:
// goodput in the table) when some level judged requests and the column fits; a
// narrower table leaves it out rather than cut another column.
func TestTableShowsGoodput(t *testing.T) {
	levels := []model.LevelStats{
		{Concurrency: 8, Requests: 40, Succeeded: 40, Steady: 40},
		{Concurrency: 16, Requests: 40, Succeeded: 40, Steady: 40},
	}
	levels[0].Traffic.Goodput = model.GoodputStats{Judged: 40, Met: 38, Share: 0.95}
	levels[1].Traffic.Goodput = model.GoodputStats{Judged: 40, Met: 12, Share: 0.30}
	wide := sized(&tablePanel{}, size{tableWidth() + goodW, 8})
	wide.SetData("sim", levels, 8, 30)
	out := ansi.Strip(wide.View())
	lines := strings.Split(out, "\n")
	if !strings.HasSuffix(strings.TrimRight(lines[1], " "), "good") ||
		!strings.HasSuffix(strings.TrimRight(lines[2], " "), "95%") || !strings.HasSuffix(strings.TrimRight(lines[3], " "), "30%") {
		t.Errorf("no goodput column:\n%s", out)
	}
	narrow := sized(&tablePanel{}, size{tableWidth(), 8})
	narrow.SetData("sim", levels, 8, 30)
	if out := ansi.Strip(narrow.View()); strings.Contains(out, "good") || strings.Contains(out, "95%") {
		t.Errorf("the column does not fit but is drawn:\n%s", out)
	}
}
