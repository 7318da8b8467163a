package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestRateModeKeys: m switches the pools to rate mode at the same number and clears
// the levels; the load keys then change the rate (+/- a step, ]/[ double and halve),
// the header says req/s, and the help says what the keys now do; m goes back.
func TestRateModeKeys(t *testing.T) {
	m, ctls, books := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	ctls[0].conc = 4
	m.Update(press("m"))
	if !ctls[0].open || ctls[0].conc != 4 || !m.eng.RateMode() || books[0].resets == 0 {
		t.Fatalf("after m: open %v rate %d engine rate mode %v resets %d", ctls[0].open, ctls[0].conc, m.eng.RateMode(), books[0].resets)
	}
	for _, c := range []struct {
		key  string
		want int
	}{{"+", 5}, {"]", 10}, {"[", 5}, {"-", 4}} {
		m.Update(press(c.key))
		if ctls[0].conc != c.want || !ctls[0].open {
			t.Fatalf("%s: rate %d (open %v), want %d", c.key, ctls[0].conc, ctls[0].open, c.want)
		}
	}
	if h := m.keys.More.Help().Desc + "|" + m.keys.Double.Help().Desc; h != "rate +1/s|double rate" {
		t.Errorf("help in rate mode: %q", h)
	}
	tick(m, 0)
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "rate 4 req/s") {
		t.Errorf("header does not show the rate:\n%s", v)
	}
	m.Update(press("m"))
	if ctls[0].open || m.eng.RateMode() || m.keys.More.Help().Desc != "add user" {
		t.Errorf("after m again: open %v engine %v help %q", ctls[0].open, m.eng.RateMode(), m.keys.More.Help().Desc)
	}
}
