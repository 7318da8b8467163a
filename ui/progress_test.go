package ui

import (
	"math"
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
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "▸ 1 user: 0 steady requests, waiting for 8 requests, ~8 more") {
		t.Fatalf("the table does not show the level's progress:\n%s", v)
	}
	trs[0].levels[0].Steady += 12
	tick(m, 6*time.Second)
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "▸ 1 user: 12 steady requests, 4 s of hold left") {
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

// TestRefineKey: b bisects the capacity by hand between the last level that meets the
// criteria and the failing one above it, and says so; with nothing to refine it says why.
func TestRefineKey(t *testing.T) {
	m, ctls, trs := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	trs[0].levels[4].CI.TTFTP95.Hi = math.Inf(1) // 16 users: its TTFT p95 not decided yet
	m.Update(press("b"))
	if ctls[0].conc != 19 || !m.eng.Ramping() || m.msg != "sim: refining the capacity: 19 users, between 16 users (meets the criteria) and 32 users (fails)" {
		t.Fatalf("b: users %d, ramping %v, %q; want 19 users (where 30 tok/s falls between 33.4 and 19.7, in time per token)", ctls[0].conc, m.eng.Ramping(), m.msg)
	}
	if h := ansi.Strip(m.View().Content); !strings.Contains(h, "ramp refining 19 users (16..32), 0 requests, warming up") {
		t.Errorf("header:\n%s", h)
	}
	m, ctls, trs = newTestRoot(t, 1)
	trs[0].levels, trs[0].capacity = trs[0].levels[5:], 0 // only 32 users, which fails the criteria
	m.Update(press("b"))
	if ctls[0].conc != 4 || m.eng.Ramping() || m.msg != "nothing to refine: no level meets the criteria yet (r walks the ramp)" {
		t.Errorf("b with no level that meets: users %d, ramping %v, %q", ctls[0].conc, m.eng.Ramping(), m.msg)
	}
	if help := ansi.Strip(m.help.FullHelpView(m.keys.FullHelp())); !strings.Contains(help, "b   refine capacity") {
		t.Errorf("help lacks the key:\n%s", help)
	}
}
