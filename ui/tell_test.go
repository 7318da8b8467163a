package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestScreenSaysEndpointBack: after an outage (a last error standing), the status says
// the endpoint is back once requests succeed again.
func TestScreenSaysEndpointBack(t *testing.T) {
	m, _, trs := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	trs[0].lastErr = "connect: connection refused 127.0.0.1:8000"
	m.Update(tickMsg(t0.Add(time.Second)))
	if strings.Contains(ansi.Strip(m.View().Content), "is back") {
		t.Fatal("says back while the last error stands")
	}
	trs[0].lastErr = ""
	m.Update(tickMsg(t0.Add(2 * time.Second)))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "sim is back: requests succeed again") {
		t.Errorf("no word that the endpoint is back:\n%s", out)
	}
}

// TestScreenVerdictOnScreen: the verdict in words is on the screen at 80x24 and 120x40,
// one line per endpoint where there is room.
func TestScreenVerdictOnScreen(t *testing.T) {
	for _, c := range []struct {
		w, h, n int
		want    []string
	}{
		{80, 24, 1, []string{"capacity "}},
		{120, 40, 2, []string{"sim: capacity ", "vllm-b: capacity "}},
	} {
		m, _, _ := newTestRoot(t, c.n)
		m.Update(tea.WindowSizeMsg{Width: c.w, Height: c.h})
		out := ansi.Strip(m.View().Content)
		for _, s := range c.want {
			if !strings.Contains(out, s) {
				t.Errorf("%dx%d: %q not on the screen:\n%s", c.w, c.h, s, out)
			}
		}
	}
}

// TestOutcomeStaysAt80x24: on a small screen the ramp's outcome stays when there is no
// error to show in its place.
func TestOutcomeStaysAt80x24(t *testing.T) {
	m, _, trs := newTestRoot(t, 1)
	trs[0].lastErr = ""
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.say(false, "auto-ramp finished on sim: all 4 levels held")
	m.Update(tickMsg(t0.Add(time.Minute)))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "auto-ramp finished") {
		t.Errorf("the outcome vanished with no error in its place:\n%s", out)
	}
}
