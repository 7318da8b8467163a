package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestTableShowsRampProgress: while the auto-ramp holds a level, the level table says
// under its rows how that level stands against the level rule, as the header does, and
// the line goes when the ramp stops.
func TestTableShowsRampProgress(t *testing.T) {
	m, _, trs := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(press("r"))
	steady(m, 1, 0)
	tick(m, 5500*time.Millisecond)
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "▸ 1 user: 0/20 steady requests, 5s left") {
		t.Fatalf("the table does not show the level's progress:\n%s", v)
	}
	trs[0].levels[0].Steady += 12
	tick(m, 6*time.Second)
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "▸ 1 user: 12/20 steady requests, 4s left") {
		t.Fatalf("the table does not follow the level's requests:\n%s", v)
	}
	m.Update(press("r"))
	if v := ansi.Strip(m.View().Content); strings.Contains(v, "steady requests") {
		t.Errorf("the progress line stays after the ramp stopped:\n%s", v)
	}
}

// TestQuitMidRampIsInterrupted: quitting while the auto-ramp runs makes the summary say
// the run was interrupted and why the ramp ended; quitting after stopping it by hand
// says it was stopped by hand.
func TestQuitMidRampIsInterrupted(t *testing.T) {
	m, _, _ := newTestRoot(t, 1)
	m.Update(press("r"))
	m.Update(press("q"))
	md := m.finish()
	if !strings.Contains(md, "**Interrupted**") || !strings.Contains(md, "- ramp interrupted") {
		t.Errorf("q mid-ramp:\n%s", md)
	}
	m, _, _ = newTestRoot(t, 1)
	m.Update(press("r"))
	m.Update(press("r"))
	m.Update(press("q"))
	md = m.finish()
	if strings.Contains(md, "**Interrupted**") || !strings.Contains(md, "- ramp stopped by hand") {
		t.Errorf("q after stopping the ramp:\n%s", md)
	}
}
