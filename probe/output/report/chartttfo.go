package report

import (
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
