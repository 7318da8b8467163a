package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// addTTFO draws, beside TTFT p95, the TTFO p95 (time to the first answer token) of each
// series whose answers start after their reasoning (EndpointJudgement.TTFO), as the
// level tables show it beside TTFT: thin and dotted in the series' colour, ringed
// markers. A reasoning model's chart showed TTFT p95 alone, 158 ms "(limit 2 s, far
// above)", while its answers waited up to 5.9 s.
func addTTFO(leg legendCount, p *plot.Plot, pal palette, series []Series) error {
	for i := range series {
		s := &series[i]
		xys := points(s, ttfoP95)
		if !s.Judgement.TTFO || len(xys) == 0 {
			continue
		}
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		line.LineStyle = pal.seriesLine(i)
		line.LineStyle.Width, line.LineStyle.Dashes = vg.Points(1.5), []vg.Length{vg.Points(2), vg.Points(2)}
		pts.GlyphStyle = pal.seriesGlyph(i)
		pts.GlyphStyle.Shape = draw.RingGlyph{}
		p.Add(line, pts)
		leg.add(p, s.Label+": TTFO p95 (first answer token)", line, pts)
		p.Title.Text = "Time to first token and TTFO, p95"
	}
	return nil
}

// addUnjudged draws hollow the levels of every series not measured in full (short,
// undecided, stopped, too few, no steady answer: the tables' marks), so that the curve
// does not show one that decides nothing as one that does, and names the mark once in
// the legend. A bench interrupted 2 s into 4 users drew their aggregate, 276 tok/s, as a
// point like the others.
func addUnjudged(leg legendCount, p *plot.Plot, pal palette, series []Series, m metric) error {
	var xys plotter.XYs
	for i := range series {
		s := &series[i]
		for k, l := range s.Endpoint.Levels {
			if v, ok := m(l); ok && l.Concurrency > 0 && k < len(s.Judgement.Levels) && !s.Judgement.Levels[k].State.Decides() {
				xys = append(xys, plotter.XY{X: float64(l.Concurrency), Y: v})
			}
		}
	}
	if len(xys) == 0 {
		return nil
	}
	holes, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	holes.GlyphStyle = draw.GlyphStyle{Color: color.White, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
	p.Add(holes)
	sample, err := plotter.NewScatter(plotter.XYs{{}})
	if err != nil {
		return err
	}
	sample.GlyphStyle = draw.GlyphStyle{Color: pal.text, Radius: vg.Points(3), Shape: draw.RingGlyph{}}
	leg.add(p, "not measured in full (hollow)", sample)
	return nil
}
