package ui

import (
	"math"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/runes"
)

// sparkGrid is a sparkline's cells, drawn as ntcharts' graph.DrawColumns draws them on a
// canvas, rune for rune, but held as a rune and a palette index per cell: a canvas cell
// holds a whole lipgloss.Style (656 bytes), and clearing, drawing and reading 2,000 of
// them every second was most of a sparkline's redraw. Kept between redraws.
type sparkGrid struct {
	w, h    int
	runes   []rune  // row by row; 0: empty
	looks   []uint8 // the palette index of each cell (sparkEmpty for an empty one)
	palette [sparkLooks]memoStyle
	ready   [sparkLooks]bool // palette entry i has its key (see look)
}

// A sparkGrid's palette: what each cell is drawn in.
const (
	sparkEmpty = iota // a cell nothing was drawn in (the zero style)
	sparkValue        // the columns
	sparkOver         // the columns drawn over them, and the target rule
	sparkLabel        // the scale label
	sparkLooks
)

// reset makes g an empty w x h grid whose cells are drawn in styles (by palette index;
// styles[sparkEmpty] is ignored).
func (g *sparkGrid) reset(w, h int, styles [sparkLooks]lipgloss.Style) {
	if n := max(w*h, 0); cap(g.runes) < n {
		g.runes, g.looks = make([]rune, n), make([]uint8, n)
	} else {
		g.runes, g.looks = g.runes[:n], g.looks[:n]
		clear(g.runes)
		clear(g.looks)
	}
	g.w, g.h = w, h
	for i := range g.palette {
		g.palette[i].style, g.ready[i] = styles[i], false
	}
	g.palette[sparkEmpty].style = lipgloss.Style{}
}

// at is the rune at (x, y); 0 outside the grid.
func (g *sparkGrid) at(x, y int) rune {
	if x < 0 || x >= g.w || y < 0 || y >= g.h {
		return 0
	}
	return g.runes[y*g.w+x]
}

// set draws r at (x, y) in palette entry look; nothing outside the grid.
func (g *sparkGrid) set(x, y int, r rune, look uint8) {
	if x < 0 || x >= g.w || y < 0 || y >= g.h {
		return
	}
	g.runes[y*g.w+x], g.looks[y*g.w+x] = r, look
}

// columns is graph.DrawColumns: values[i] cells high, from the bottom row up, at x0+i.
func (g *sparkGrid) columns(x0 int, values []float64, look uint8) {
	for i, v := range values {
		g.column(x0+i, g.h-1, v, look)
	}
}

// column is graph.DrawColumnBottomToTop: full blocks and an eighth block on top, v cells
// high going up from (x, y). Drawn over a column, the shorter one's top stays in view.
func (g *sparkGrid) column(x, y int, v float64, look uint8) {
	if !(v > 0) {
		return
	}
	h := 0 // the height of the column already there
	for runes.IsLowerBlockElement(g.at(x, y-h)) {
		h++
	}
	n := math.Floor(v)
	end := int(n)
	r := runes.LowerBlockElementFromFloat64(v - n)
	nh := end
	if r != runes.Null {
		nh++
	}
	if h == 0 || nh <= h {
		for i := range end {
			g.set(x, y-i, runes.FullBlock, look)
		}
		g.columnRune(x, y-end, r, look)
		return
	}
	g.columnRune(x, y-max(h-1, 0), runes.FullBlock, look) // the old top, over a full block
	for i := h; i < end; i++ {
		g.set(x, y-i, runes.FullBlock, look)
	}
	g.set(x, y-end, r, look)
}

// columnRune is graph.DrawColumnRune: a block rune at (x, y), keeping an eighth block
// there in view when r is a full block. (ntcharts also sets the cell's background
// there, on a copy of the style it then drops: the cell is in the new style.)
func (g *sparkGrid) columnRune(x, y int, r rune, look uint8) {
	if r == runes.Null || !runes.IsLowerBlockElement(r) {
		return
	}
	if c := g.at(x, y); runes.IsLowerBlockElement(c) && r == runes.FullBlock && c != runes.FullBlock {
		r = c
	}
	g.set(x, y, r, look)
}

// text writes s from (x, y) rightwards, a rune a cell, as canvas.SetStringWithStyle does.
func (g *sparkGrid) text(x, y int, s string, look uint8) {
	for _, r := range s {
		g.set(x, y, r, look)
		x++
	}
}

// look returns palette entry i with its key, computed on first use after reset.
func (g *sparkGrid) look(i uint8) *memoStyle {
	e := &g.palette[i]
	if !g.ready[i] {
		e.key, e.keyed, g.ready[i] = keyOf(&e.style), onlyKeyed(&e.style), true
	}
	return e
}

// render writes the grid as renderCanvas writes a canvas with the same cells.
func (g *sparkGrid) render() string {
	cw := newCanvasWriter(g.w, g.h)
	for y := range g.h {
		cw.line(y)
		row := y * g.w
		for x := range g.w {
			cw.cell(g.runes[row+x], g.look(g.looks[row+x]))
		}
	}
	return cw.String()
}
