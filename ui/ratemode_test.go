package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestRateModeKeys: m switches the pools to rate mode and keeps the levels (the fake
// book has no level at 4 users and no live second: nothing tells the rate 4 users
// achieved, so it starts at 1 request/s); the load keys then change the rate (+/- a step, ]/[ double and
// halve), the header says req/s, and the help says what the keys now do; m goes back.
func TestRateModeKeys(t *testing.T) {
	m, ctls, books := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	ctls[0].conc = 4
	books[0].buckets = nil
	m.Update(press("m"))
	if !ctls[0].open || ctls[0].conc != 1 || !m.eng.RateMode() || books[0].resets != 0 || !books[0].rate {
		t.Fatalf("after m: open %v rate %d engine rate mode %v resets %d book in rate mode %v", ctls[0].open, ctls[0].conc,
			m.eng.RateMode(), books[0].resets, books[0].rate)
	}
	if want := "rate mode: 1 request/s: no answer ended at 4 users yet to tell their rate; users levels kept (m)"; m.msg != want {
		t.Errorf("m says %q, want %q", m.msg, want)
	}
	for _, c := range []struct {
		key  string
		want int
	}{{"+", 2}, {"]", 4}, {"[", 2}, {"-", 1}} {
		m.Update(press(c.key))
		if ctls[0].conc != c.want || !ctls[0].open {
			t.Fatalf("%s: rate %d (open %v), want %d", c.key, ctls[0].conc, ctls[0].open, c.want)
		}
	}
	if h := m.keys.More.Help().Desc + "|" + m.keys.Double.Help().Desc; h != "rate +1/s|double rate" {
		t.Errorf("help in rate mode: %q", h)
	}
	tick(m, 0)
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "rate 1 req/s") {
		t.Errorf("header does not show the rate:\n%s", v)
	}
	m.Update(press("m"))
	if ctls[0].open || m.eng.RateMode() || books[0].rate || m.keys.More.Help().Desc != "add user" {
		t.Errorf("after m again: open %v engine %v help %q", ctls[0].open, m.eng.RateMode(), m.keys.More.Help().Desc)
	}
}
