package ui

import (
	"strconv"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// press makes a key press as the terminal would send it: "+", "tab", "shift+tab", "ctrl+c", "up".
func press(s string) tea.KeyPressMsg {
	switch s {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

func TestLoadKeys(t *testing.T) {
	cases := []struct {
		keys  []string
		start int
		want  int
	}{
		{[]string{"+"}, 4, 5},
		{[]string{"up", "up"}, 4, 6},
		{[]string{"-"}, 4, 3},
		{[]string{"down"}, 1, 0},
		{[]string{"-"}, 0, 0}, // never below zero
		{[]string{"]"}, 4, 8},
		{[]string{"]"}, 0, 1},
		{[]string{"["}, 8, 4},
		{[]string{"["}, 1, 1}, // halving one user keeps one
		{[]string{"["}, 5, 2},
		{[]string{"]"}, maxUsers, maxUsers - 4}, // the other endpoint holds 4: one cap for both
	}
	for _, c := range cases {
		t.Run(strings.Join(c.keys, "_")+"_from_"+strconv.Itoa(c.start), func(t *testing.T) {
			m, ctls, _ := newTestRoot(t, 2)
			ctls[0].conc = c.start
			for _, k := range c.keys {
				m.Update(press(k))
			}
			if ctls[0].conc != c.want {
				t.Errorf("concurrency %d, want %d", ctls[0].conc, c.want)
			}
			if len(ctls[1].sets) != 0 {
				t.Errorf("load keys touched the unfocused endpoint: %v", ctls[1].sets)
			}
		})
	}
}

func TestFocusAndAllKeys(t *testing.T) {
	m, ctls, _ := newTestRoot(t, 3)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(press("tab"))
	if m.focus != 1 {
		t.Fatalf("tab: focus %d, want 1", m.focus)
	}
	if !strings.Contains(ansi.Strip(m.View().Content), "endpoint 2/3") {
		t.Error("the header does not show the focused endpoint")
	}
	m.Update(press("+"))
	if ctls[1].conc != 5 || ctls[0].conc != 4 || ctls[2].conc != 4 {
		t.Errorf("+ after tab: %d %d %d, want 4 5 4", ctls[0].conc, ctls[1].conc, ctls[2].conc)
	}
	m.Update(press("shift+tab"))
	m.Update(press("shift+tab"))
	if m.focus != 2 {
		t.Fatalf("shift+tab twice from 1: focus %d, want 2 (wraps)", m.focus)
	}
	m.Update(press("a"))
	m.Update(press("]"))
	if ctls[0].conc != 8 || ctls[1].conc != 10 || ctls[2].conc != 8 {
		t.Errorf("a then ]: %d %d %d, want every endpoint doubled: 8 10 8", ctls[0].conc, ctls[1].conc, ctls[2].conc)
	}
	m.Update(press("p"))
	for i, c := range ctls {
		if !c.paused {
			t.Errorf("a then p: endpoint %d not paused", i)
		}
	}
	m.Update(press("a"))
	m.Update(press("p"))
	if ctls[2].paused || !ctls[0].paused {
		t.Errorf("a off, p: only the focused endpoint (2) resumes; paused = %v %v %v", ctls[0].paused, ctls[1].paused, ctls[2].paused)
	}
}

// TestRampOnOtherEndpoint: with the ramp driving one endpoint, the other's header does
// not say "ramp off", and pausing the other endpoint leaves the ramp running.
func TestRampOnOtherEndpoint(t *testing.T) {
	m, ctls, _ := newTestRoot(t, 2)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(press("r"))
	m.Update(press("tab"))
	out := ansi.Strip(m.View().Content)
	if strings.Contains(out, "ramp off") || !strings.Contains(out, "ramp running on sim") {
		t.Errorf("header of the endpoint the ramp does not drive:\n%s", strings.Split(out, "\n")[1])
	}
	m.Update(press("p"))
	if !strings.HasPrefix(m.msg, "paused vllm-b:") {
		t.Errorf("p on endpoint vllm-b says %q", m.msg)
	}
	if !ctls[1].paused || ctls[0].paused || !m.eng.Ramping() {
		t.Errorf("p on the other endpoint: paused %v %v, ramp on %v; want only 1 paused and the ramp on",
			ctls[0].paused, ctls[1].paused, m.eng.Ramping())
	}
}

func TestEndpointKeysDisabledWithOneEndpoint(t *testing.T) {
	m, ctls, _ := newTestRoot(t, 1)
	m.Update(press("tab"))
	m.Update(press("a"))
	m.Update(press("+"))
	if m.focus != 0 || m.all || ctls[0].conc != 5 {
		t.Errorf("focus %d all %v conc %d", m.focus, m.all, ctls[0].conc)
	}
	if strings.Contains(m.help.FullHelpView(m.keys.FullHelp()), "next endpoint") {
		t.Error("the help offers tab with a single endpoint")
	}
}

func TestPauseKeySwapsHelp(t *testing.T) {
	m, ctls, _ := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	short := func() string { return m.help.ShortHelpView(m.keys.ShortHelp()) }
	if !strings.Contains(short(), "pause") {
		t.Fatalf("help before p: %q", short())
	}
	m.Update(press("p"))
	if !ctls[0].paused {
		t.Fatal("p did not pause")
	}
	if s := short(); !strings.Contains(s, "resume") || strings.Contains(s, "pause") {
		t.Errorf("help while paused: %q", s)
	}
	m.Update(press("p"))
	if ctls[0].paused {
		t.Fatal("second p did not resume")
	}
}

func TestClearThemeHelpKeys(t *testing.T) {
	m, _, trs := newTestRoot(t, 2)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(press("c"))
	for i, tr := range trs {
		if tr.resets != 1 {
			t.Errorf("c: tracker %d reset %d times", i, tr.resets)
		}
	}
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "no level measured yet") {
		t.Errorf("c did not clear the curve:\n%s", out)
	}
	for _, want := range []string{"high-contrast", "colorblind", "mono", "default"} {
		m.Update(press("t"))
		if m.st.Theme != want {
			t.Fatalf("t: theme %q, want %q", m.st.Theme, want)
		}
	}
	m.Update(press("?"))
	if !m.help.ShowAll || !strings.Contains(ansi.Strip(m.View().Content), "double users") {
		t.Error("? did not show the full help")
	}
	m.Update(press("?"))
	if m.help.ShowAll {
		t.Error("second ? did not hide the full help")
	}
}

func TestQuitKeys(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		m, ctls, _ := newTestRoot(t, 2)
		_, cmd := m.Update(press(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s: command does not quit", k)
		}
		for i, c := range ctls {
			if !c.stopped {
				t.Errorf("%s: pool %d not stopped", k, i)
			}
		}
	}
}

// TestHelpMatchesKeys checks that every binding in the full help is matched by the
// keys it advertises and that no two enabled bindings share a key (pause/resume aside).
func TestHelpMatchesKeys(t *testing.T) {
	k := DefaultKeyMap()
	seen := map[string]string{}
	for _, col := range k.FullHelp() {
		for _, b := range col {
			if !b.Enabled() {
				continue
			}
			for _, ks := range b.Keys() {
				if other, dup := seen[ks]; dup {
					t.Errorf("key %q bound to %q and %q", ks, other, b.Help().Desc)
				}
				seen[ks] = b.Help().Desc
				if !key.Matches(press(ks), b) {
					t.Errorf("%q does not match its own key %q", b.Help().Desc, ks)
				}
			}
		}
	}
}

// TestLoadKeysSayWhenCapped: ] and + stop at the most streams the run can hold (all
// endpoints together) and the status line says so, instead of silently.
func TestLoadKeysSayWhenCapped(t *testing.T) {
	m, ctls, _ := newTestRoot(t, 2)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	ctls[0].conc = 6000
	m.Update(press("]"))
	if ctls[0].conc != maxUsers-4 {
		t.Fatalf("] from 6000 users: %d, want %d (the cap less the other endpoint's 4)", ctls[0].conc, maxUsers-4)
	}
	want := "capped at 9996 users: tpsmon holds at most 10000 streams in one process, all endpoints together"
	if m.msg != want || !m.msgBad {
		t.Errorf("status %q (bad %v), want %q", m.msg, m.msgBad, want)
	}
	if !strings.Contains(ansi.Strip(m.View().Content), "capped at 9996 users") {
		t.Errorf("the screen does not show it:\n%s", ansi.Strip(m.View().Content))
	}
	m.Update(press("-"))
	if ctls[0].conc != maxUsers-5 {
		t.Errorf("- after the cap: users %d, want %d", ctls[0].conc, maxUsers-5)
	}
}
