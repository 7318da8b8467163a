package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"

	"github.com/tpsmon/tpsmon/themes"
)

// renderCanvasRef is the canvas renderer renderCanvas replaced: a Style.Render call per
// run of cells of the same look. renderCanvas must write the same bytes.
func renderCanvasRef(c *canvas.Model) string {
	var b strings.Builder
	var run []rune
	var runKey styleKey
	var runStyle lipgloss.Style
	flush := func() {
		if len(run) == 0 {
			return
		}
		if runKey == (styleKey{}) {
			b.WriteString(string(run))
		} else {
			b.WriteString(runStyle.Render(string(run)))
		}
		run = run[:0]
	}
	for y := range c.Height() {
		if y > 0 {
			b.WriteByte('\n')
		}
		for x := range c.Width() {
			cell := c.Cell(canvas.Point{X: x, Y: y})
			r := cell.Rune
			if r == 0 {
				r = ' '
			}
			k := keyOf(&cell.Style)
			if r == ' ' && !k.reverse {
				k.fg = nil
			}
			if k != runKey {
				flush()
				runKey, runStyle = k, cell.Style
			}
			run = append(run, r)
		}
		flush()
	}
	return b.String()
}

// sameAsRef checks that renderCanvas writes what renderCanvasRef does for c.
func sameAsRef(t *testing.T, what string, c *canvas.Model) {
	t.Helper()
	if c.Width() == 0 {
		return
	}
	if got, want := renderCanvas(c), renderCanvasRef(c); got != want {
		t.Errorf("%s: renderCanvas differs from a Render per run:\n got %q\nwant %q", what, got, want)
	}
}

// TestRenderCanvasSameBytes: the charts of the live screen, in every theme (dark and
// light) and at three sizes, are written byte for byte as Style.Render writes them.
func TestRenderCanvasSameBytes(t *testing.T) {
	for _, name := range themes.Names() {
		for _, dark := range []bool{true, false} {
			for _, sz := range []size{{200, 60}, {120, 40}, {80, 24}} {
				m, _, _ := newTestRoot(t, 2)
				for themes.Names()[m.themeIdx] != name {
					m.themeIdx = (m.themeIdx + 1) % len(themes.Names())
				}
				m.dark = dark
				m.applyTheme()
				m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
				m.View()
				what := name + " " + sz.String()
				for i := range m.curve.cv {
					sameAsRef(t, what+" curve", &m.curve.cv[i])
				}
			}
		}
	}
}

// TestRenderCanvasStyles: cells in styles whose Render is not an SGR sequence, the text
// and a reset (underline, width, padding, a transform, a hyperlink), and plain ones.
func TestRenderCanvasStyles(t *testing.T) {
	base := lipgloss.NewStyle()
	red := base.Foreground(lipgloss.Color("#ff0000"))
	styles := []lipgloss.Style{
		base, red, red.Bold(true), base.Faint(true), red.Reverse(true), red.Underline(true),
		base.Italic(true), red.Width(3), red.PaddingLeft(1), red.Transform(strings.ToUpper),
		red.Hyperlink("http://127.0.0.1/"), base.Foreground(lipgloss.Color("3")).Background(lipgloss.Color("4")),
	}
	c := canvas.New(len(styles)*4, 4)
	for i, s := range styles {
		c.SetStringWithStyle(canvas.Point{X: 4 * i, Y: 0}, "ab c", s)
		c.SetStringWithStyle(canvas.Point{X: 4*i + 1, Y: 1}, "⣿▇", s)
		c.SetCell(canvas.Point{X: 4 * i, Y: 2}, canvas.NewCellWithStyle(' ', s))
		c.SetStringWithStyle(canvas.Point{X: 4 * i, Y: 3}, "a\tb", s) // Render rewrites a tab
	}
	sameAsRef(t, "styles", &c)
	if got := renderCanvas(&c); !strings.Contains(got, "\x1b[1;38;2;255;0;0m⣿▇\x1b[m") {
		t.Errorf("bold red cells not written as one SGR run: %q", got)
	}
}

// TestSGRPrefix: a style's run prefix is taken only when Render is exactly prefix,
// text, reset.
func TestSGRPrefix(t *testing.T) {
	base := lipgloss.NewStyle()
	for _, c := range []struct {
		s    lipgloss.Style
		want string
		ok   bool
	}{
		{base.Bold(true), "\x1b[1m", true},
		{base.Foreground(lipgloss.Color("#102030")).Faint(true), "\x1b[2;38;2;16;32;48m", true},
		{base, "", false},                     // plain: Render writes no reset
		{base.Underline(true), "", false},     // rune by rune
		{base.Bold(true).Width(4), "", false}, // padded
		{base.Bold(true).Hyperlink("http://127.0.0.1/"), "", false},
	} {
		got, ok := sgrPrefix(c.s)
		if got != c.want || ok != c.ok {
			t.Errorf("sgrPrefix(%q) = %q, %v; want %q, %v", c.s.Render("x"), got, ok, c.want, c.ok)
		}
	}
}
