package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestComputeLayout(t *testing.T) {
	cases := []struct {
		w, h, help int
		want       layout
	}{
		{80, 24, 1, layout{Width: 80, Height: 24, Header: 2, Help: 1, Status: 3, Series: 3,
			Curve: 9, CurveW: 80, Table: 6, TableW: 80}},
		{120, 40, 1, layout{Width: 120, Height: 40, Header: 2, Help: 1, Status: 4, Gap: 1, Series: 7,
			Curve: 23, CurveW: 120 - tableWidth() - 2, Table: 23, TableW: tableWidth(), Beside: true}},
		{200, 60, 1, layout{Width: 200, Height: 60, Header: 2, Help: 1, Status: 4, Gap: 1, Series: 11,
			Curve: 39, CurveW: 200 - tableWidth() - 2, Table: 39, TableW: tableWidth(), Beside: true}},
		// the full help takes room from the body, not from the header or status
		{80, 24, 7, layout{Width: 80, Height: 24, Header: 2, Help: 7, Status: 3, Series: 3,
			Curve: 9, CurveW: 80}},
		// tiny: the table goes first, then the curve shrinks to its compact form
		{60, 12, 1, layout{Width: 60, Height: 12, Header: 2, Help: 1, Status: 1, Series: 3, Curve: 5, CurveW: 60}},
		{40, 6, 1, layout{Width: 40, Height: 6, Header: 1, Help: 1, Status: 1, Series: 3, CurveW: 40}},
		{0, 0, 1, layout{}},
	}
	for _, c := range cases {
		got := computeLayout(c.w, c.h, c.help, 1)
		if got != c.want {
			t.Errorf("computeLayout(%d, %d, %d) =\n %+v\nwant\n %+v", c.w, c.h, c.help, got, c.want)
		}
		used := got.Header + got.Help + got.Status + got.Series + 3*got.Gap
		if got.Beside {
			used += max(got.Curve, got.Table)
		} else {
			used += got.Curve + got.Table
		}
		if used > c.h {
			t.Errorf("%dx%d: layout uses %d lines", c.w, c.h, used)
		}
		if got.Beside && got.CurveW+2+got.TableW > c.w {
			t.Errorf("%dx%d: curve %d + table %d wider than the screen", c.w, c.h, got.CurveW, got.TableW)
		}
	}
}

// TestScreenFits draws the whole screen over an hour of hand-made data at the three
// reference sizes (and a few awkward ones) and checks that nothing spills, and which
// panels show.
func TestScreenFits(t *testing.T) {
	cases := []struct {
		w, h      int
		helpAll   bool
		wantShown []string
		wantGone  []string
	}{
		{80, 24, false, []string{"per-user p50", "degradation curve", "◆ capacity", "levels", "last error", "q quit"}, nil},
		// the legend keeps its room: the title shortens for it
		{120, 40, false, []string{"per-user p50", "curve (x = users)", "◆ capacity", "levels", "last error", "q quit"}, nil},
		{200, 60, false, []string{"per-user p50", "degradation curve", "◆ capacity", "levels", "last error", "q quit"}, nil},
		{80, 24, true, []string{"degradation curve", "halve users", "next theme"}, []string{"levels ·"}},
		{60, 14, false, []string{"per-user p50", "degradation curve"}, []string{"levels ·"}},
		{50, 8, false, []string{"tpsmon", "per-user p50", "16→33.4"}, []string{"per-user tok/s p50", "levels ·"}},
		{20, 5, false, []string{"tpsmon"}, nil},
		{1, 1, false, nil, nil},
		{300, 100, true, []string{"degradation curve", "levels ·", "halve users"}, nil},
	}
	for _, c := range cases {
		t.Run(size{c.w, c.h}.String(), func(t *testing.T) {
			m, _, _ := newTestRoot(t, 1)
			m.Update(tea.WindowSizeMsg{Width: c.w, Height: c.h})
			if c.helpAll {
				m.Update(press("?"))
			}
			out := m.View().Content
			checkBox(t, out, c.w, c.h)
			plain := ansi.Strip(out)
			for _, s := range c.wantShown {
				if !strings.Contains(plain, s) {
					t.Errorf("%q not on the screen:\n%s", s, plain)
				}
			}
			for _, s := range c.wantGone {
				if strings.Contains(plain, s) {
					t.Errorf("%q shown on a screen too small for it:\n%s", s, plain)
				}
			}
		})
	}
}

// TestScreen is the whole screen at the reference sizes (golden).
func TestScreen(t *testing.T) {
	for _, sz := range []size{{80, 24}, {120, 40}, {200, 60}} {
		t.Run(sz.String(), func(t *testing.T) {
			m, _, _ := newTestRoot(t, 2)
			m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
			golden(t, m.View().Content)
		})
	}
}

func TestResizeRedraws(t *testing.T) {
	m, _, _ := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	big := m.View().Content
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	small := m.View().Content
	checkBox(t, small, 80, 24)
	if small == big {
		t.Fatal("resize did not redraw")
	}
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	if again := m.View().Content; ansi.Strip(again) != ansi.Strip(big) {
		t.Error("growing back did not give the same screen")
	}
}
