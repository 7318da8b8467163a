package ui

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
)

// styleKey is what makes two cell styles look the same on screen, for the styles
// this package gives ntcharts (a foreground and text attributes).
type styleKey struct {
	fg                              color.Color
	bold, faint, reverse, underline bool
}

func keyOf(s lipgloss.Style) styleKey {
	return styleKey{
		fg: s.GetForeground(), bold: s.GetBold(), faint: s.GetFaint(),
		reverse: s.GetReverse(), underline: s.GetUnderline(),
	}
}

// renderCanvas is canvas.Model.View rendered in runs: consecutive cells of the same
// look are styled with one Render call instead of one per cell (a 200x60 screen of
// charts is ~12,000 cells; this is what keeps a chart redraw in the low milliseconds).
func renderCanvas(c *canvas.Model) string {
	w, h := c.Width(), c.Height()
	var b strings.Builder
	b.Grow(w * h * 2)
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
	for y := range h {
		if y > 0 {
			b.WriteByte('\n')
		}
		for x := range w {
			cell := c.Cell(canvas.Point{X: x, Y: y})
			r := cell.Rune
			if r == 0 {
				r = ' '
			}
			k := keyOf(cell.Style)
			if r == ' ' && !k.reverse {
				k.fg = nil // a space shows no foreground: keep the run going
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

// resetCanvas makes c an empty w x h canvas, reusing its cells when the size is the same
// (a canvas cell holds a lipgloss.Style: a new 200x60 canvas is megabytes, and the
// charts are redrawn every second).
func resetCanvas(c *canvas.Model, w, h int) {
	if c.Width() != w || c.Height() != h {
		*c = canvas.New(w, h)
		return
	}
	c.Fill(canvas.Cell{})
}
