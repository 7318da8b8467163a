package report

import (
	"bytes"
	"image/color"
	"regexp"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Each series is drawn in its colour with its own marker and dash pattern, so that
// overlaid curves part on a grey printout and for readers who do not tell the colours
// apart; its verdict line and level table carry the same mark (seriesMark).
var (
	glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}
	dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}
)

// seriesLine and seriesGlyph are series i's line and marker styles.
func (p palette) seriesLine(i int) draw.LineStyle {
	return draw.LineStyle{Color: p.color(i), Width: vg.Points(2), Dashes: dashes[i%len(dashes)]}
}

func (p palette) seriesGlyph(i int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: p.color(i), Radius: vg.Points(3.5), Shape: glyphs[i%len(glyphs)]}
}

// diamondGlyph is the capacity's mark, ◆ as on the live screen: a filled diamond with a
// white rim, so that it stands out over the series' own marker.
type diamondGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	shape := func(r vg.Length) []vg.Point {
		return []vg.Point{{X: pt.X, Y: pt.Y + r}, {X: pt.X + r, Y: pt.Y}, {X: pt.X, Y: pt.Y - r}, {X: pt.X - r, Y: pt.Y}}
	}
	c.FillPolygon(color.White, shape(r+vg.Points(1.5)))
	c.FillPolygon(sty.Color, shape(r))
}

// capacityMark is the style of the capacity's ◆.
func (p palette) capacityMark() draw.GlyphStyle {
	return draw.GlyphStyle{Color: p.good, Radius: vg.Points(6), Shape: diamondGlyph{}}
}

// addCapacity marks each series' capacity on its curve with a ◆ (the level the
// judgement names: exact or at least), and names the mark once in the legend.
func addCapacity(leg legendCount, p *plot.Plot, pal palette, series []Series, m metric) error {
	var xys plotter.XYs
	for i := range series {
		s := &series[i]
		c := s.Judgement.Capacity.Report().Users
		if c <= 0 {
			continue
		}
		for _, l := range s.Endpoint.Levels {
			if v, ok := m(l); ok && l.Concurrency == c {
				xys = append(xys, plotter.XY{X: float64(c), Y: v})
			}
		}
	}
	if len(xys) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sc.GlyphStyle = pal.capacityMark()
	p.Add(sc)
	leg.add(p, "capacity", sc)
	return nil
}

// drawSwatch draws series i's mark (its line, dash and marker) in the box from at, w wide
// and h high.
func drawSwatch(c draw.Canvas, pal palette, i int, at vg.Point, w, h vg.Length) {
	y := at.Y + h/2
	c.StrokeLine2(pal.seriesLine(i), at.X, y, at.X+w, y)
	c.DrawGlyph(pal.seriesGlyph(i), vg.Point{X: at.X + w/2, Y: y})
}

// Swatch geometry: the mark before a series' verdict line and table heading.
const (
	swatchW = vg.Length(22)
	swatchH = vg.Length(10)
)

// swatchSVG is series i's mark as a small inline <svg> for the HTML page.
func swatchSVG(i int) string {
	c := vgsvg.New(swatchW, swatchH)
	drawSwatch(draw.New(c), newPalette(), i, vg.Point{}, swatchW, swatchH)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return ""
	}
	return string(svgPrelude.ReplaceAll(buf.Bytes(), []byte(`<svg class="swatch" aria-hidden="true"`)))
}

// svgPrelude matches what comes before the <svg> element in vgsvg's output.
var svgPrelude = regexp.MustCompile(`(?s)^.*?<svg width="[^"]*" height="[^"]*"`)
