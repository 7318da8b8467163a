package report

import (
	"image/color"
	"math"
	"strconv"

	xfnt "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/themes"
)

// palette is the report's colours: the default theme on a light background (paper,
// slides, mail).
type palette struct {
	text, faint, grid, good, warn, bad color.Color
	series                             []color.Color
}

func newPalette() palette {
	t := themes.Default(false)
	return palette{text: t.Text, faint: t.Faint, grid: t.Border, good: t.Good, warn: t.Warn, bad: t.Bad, series: t.Series}
}

func (p palette) color(i int) color.Color { return p.series[i%len(p.series)] }

// metric picks one figure of a level; ok is false when the level did not measure it.
type metric func(l model.ReportLevel) (v float64, ok bool)

func userP50(l model.ReportLevel) (float64, bool) {
	return l.UserTPS.P50, l.Succeeded > 0 && l.UserTPS != (model.RateJSON{})
}

func aggregate(l model.ReportLevel) (float64, bool) { return l.AggregateTPS, l.DurationS > 0 }

func ttftP95(l model.ReportLevel) (float64, bool) {
	return l.TTFTMs.P95, l.Succeeded > 0 && l.TTFTMs != (model.LatencyJSON{})
}

func ttfoP95(l model.ReportLevel) (float64, bool) {
	return l.TTFOMs.P95, l.Succeeded > 0 && l.TTFOMs != (model.LatencyJSON{})
}

// points is a series' curve of one metric, in increasing users.
func points(s *Series, m metric) plotter.XYs {
	var xys plotter.XYs
	for _, l := range s.Endpoint.Levels {
		if v, ok := m(l); ok && l.Concurrency > 0 {
			xys = append(xys, plotter.XY{X: float64(l.Concurrency), Y: v})
		}
	}
	return xys
}

// chartSet is the three charts of the degradation curve.
type chartSet struct {
	user, agg, ttft *plot.Plot
	legend          legendCount
}

// legendCount counts each chart's legend entries (the room left above the curves).
type legendCount map[*plot.Plot]int

// add names thumbnails in p's legend.
func (n legendCount) add(p *plot.Plot, label string, th ...plot.Thumbnailer) {
	p.Legend.Add(label, th...)
	n[p]++
}

// newCharts builds the charts of every series: per-user tok/s p50 against the load
// with the target band and each series' p10-p90 range, aggregate tok/s, and TTFT p95; the
// capacity marked ◆ on each (a trace has none). Every line, band and mark is named in its chart's legend.
func newCharts(series []Series) (chartSet, error) {
	pal := newPalette()
	xs, added := usersAxis(series)
	ax := axisWords(series)
	cs := chartSet{
		user:   newPlot(pal, xs, added, ax, "Per-user tok/s (p50) "+ax.rises, "tokens/s per user"),
		agg:    newPlot(pal, xs, added, ax, "Aggregate tok/s", "tokens/s, "+ax.all),
		ttft:   newPlot(pal, xs, added, ax, "Time to first token, p95", "milliseconds"),
		legend: legendCount{},
	}
	leg := cs.legend
	if len(series) == 0 {
		return cs, nil
	}
	slo := series[0].SLO().Report()
	if err := addTarget(leg, cs.user, pal, xs, slo.UserTPSMin); err != nil {
		return cs, err
	}
	charts := []struct {
		p *plot.Plot
		m metric
	}{{cs.user, userP50}, {cs.agg, aggregate}, {cs.ttft, ttftP95}}
	for i := range series {
		s := &series[i]
		band, err := addBand(cs.user, pal.color(i), s)
		if err != nil {
			return cs, err
		}
		for _, c := range charts {
			label, under := s.Label, []plot.Thumbnailer(nil)
			if c.p == cs.user && band != nil {
				label, under = s.Label+": p50, band p10-p90", []plot.Thumbnailer{band}
			}
			if err := addCurve(leg, c.p, pal, i, label, points(s, c.m), under...); err != nil {
				return cs, err
			}
		}
	}
	for _, c := range charts {
		if err := addCapacity(leg, c.p, pal, series, c.m); err != nil {
			return cs, err
		}
		if err := addUnjudged(leg, c.p, pal, series, c.m); err != nil {
			return cs, err
		}
	}
	if err := addTTFO(leg, cs.ttft, pal, series); err != nil {
		return cs, err
	}
	if err := addTTFTLimit(leg, cs.ttft, pal, xs, slo.TTFTP95MaxMs); err != nil {
		return cs, err
	}
	cs.user.Legend.Top = true
	cs.agg.Legend.Top, cs.agg.Legend.Left = true, true
	cs.ttft.Legend.Top, cs.ttft.Legend.Left = true, true
	for _, p := range []*plot.Plot{cs.user, cs.agg, cs.ttft} {
		p.Y.Min = 0
		// Room above the curves for the legend, one line per entry.
		p.Y.Max = math.Max(p.Y.Max*(1.04+0.07*float64(leg[p])), 1)
		p.Y.Tick.Marker = tidyTicks{plot.DefaultTicks{}}
	}
	return cs, nil
}

// xWords is what the x axis counts, in the runs' terms: users, arrival rates for
// rate-mode runs, or a trace's windows one after the other.
type xWords struct {
	label   string // the axis's label
	rises   string // how the load goes along it, in the per-user chart's title
	caption string // the axis in a sentence, under the charts
	all     string // who the aggregate sums: "all users", "all requests"
	log     bool   // a logarithmic scale (a ramp usually doubles); false for a trace's windows alone
}

func axisWords(series []Series) xWords {
	rate, users, trace := false, false, false
	for i := range series {
		switch {
		case series[i].Judgement.Trace != nil:
			trace = true
		case series[i].Judgement.Rate:
			rate = true
		default:
			users = true
		}
	}
	switch {
	case trace && !rate && !users:
		return xWords{"window of the trace (in time order)", "window by window", "The trace's windows in time order, one point per window", "all requests", false}
	case trace:
		return xWords{"users, requests/s or window of a trace", "as the load changes", "Users, request rates or a trace's windows on a logarithmic scale, one point per level", "all streams", true}
	case rate && users:
		return xWords{"users (concurrent streams) or requests/s (arrival rate)", "as the load rises", "Users or request rates on a logarithmic scale, one point per level", "all streams", true}
	case rate:
		return xWords{"requests/s (arrival rate)", "as the request rate rises", "Request rates on a logarithmic scale, one point per level", "all requests", true}
	}
	return xWords{"users (concurrent streams)", "as users are added", "Users on a logarithmic scale, one point per level", "all users", true}
}

// usersAxis is the users of every level measured, ascending and without repeats, and
// those of them only the capacity's bisection added (refined in every series that held
// them: no ramp's level).
func usersAxis(series []Series) (xs []float64, added map[float64]bool) {
	seen := map[int]bool{}
	added = map[float64]bool{}
	for i := range series {
		for _, l := range series[i].Endpoint.Levels {
			x := float64(l.Concurrency)
			if l.Concurrency > 0 && !seen[l.Concurrency] {
				seen[l.Concurrency] = true
				xs = append(xs, x)
				added[x] = l.Refined
			}
			added[x] = added[x] && l.Refined
		}
	}
	sortFloats(xs)
	return xs, added
}

func sortFloats(xs []float64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// newPlot is an empty chart with the levels on its X axis, logarithmic for users and
// rates (a ramp usually doubles), ticked at the levels measured (labelled first at the
// ramp's, then at those the bisection added, where room is left).
func newPlot(pal palette, xs []float64, added map[float64]bool, ax xWords, title, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = sans
	}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.TextStyle.Color = pal.text
	p.X.Label.Text = ax.label
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(11)
		a.Label.TextStyle.Color = pal.text
		a.Tick.Label.Font.Size = vg.Points(10)
		a.Tick.Label.Color = pal.text
		a.Color, a.Tick.Color = pal.faint, pal.faint
	}
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Color = pal.text
	p.Add(&plotter.Grid{Vertical: draw.LineStyle{Color: pal.grid, Width: vg.Points(0.5)}, Horizontal: draw.LineStyle{Color: pal.grid, Width: vg.Points(0.5)}})
	if len(xs) == 0 {
		return p
	}
	p.X.Min, p.X.Max = xs[0]-0.5, xs[len(xs)-1]+0.5
	p.X.Tick.Marker = plot.ConstantTicks(linearTicks(xs))
	if ax.log {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = xs[0]/1.3, xs[len(xs)-1]*1.3
		p.X.Tick.Marker = plot.ConstantTicks(xTicks(xs, added))
	}
	return p
}

// addCurve draws one series' line and markers and names it in the legend, its sample
// drawn over under (the series' band).
func addCurve(leg legendCount, p *plot.Plot, pal palette, i int, label string, xys plotter.XYs, under ...plot.Thumbnailer) error {
	if len(xys) == 0 {
		return nil
	}
	line, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	line.LineStyle = pal.seriesLine(i)
	pts.GlyphStyle = pal.seriesGlyph(i)
	p.Add(line, pts)
	leg.add(p, label, append(under, line, pts)...)
	return nil
}

// addBand shades a series' per-user p10 to p90 range, lightly, in its colour, and
// returns it for the legend (nil when there are fewer than two levels to span).
func addBand(p *plot.Plot, c color.Color, s *Series) (*plotter.Polygon, error) {
	var lo, hi plotter.XYs
	for _, l := range s.Endpoint.Levels {
		if _, ok := userP50(l); ok && l.Concurrency > 0 {
			lo = append(lo, plotter.XY{X: float64(l.Concurrency), Y: l.UserTPS.P10})
			hi = append(hi, plotter.XY{X: float64(l.Concurrency), Y: l.UserTPS.P90})
		}
	}
	if len(lo) < 2 {
		return nil, nil
	}
	ring := append(plotter.XYs{}, lo...)
	for i := len(hi) - 1; i >= 0; i-- {
		ring = append(ring, hi[i])
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	poly.Color = translucent(c, 0x30)
	poly.LineStyle.Width = 0
	p.Add(poly)
	return poly, nil
}

// addTarget shades the band below the per-user target, where a level fails the
// criteria, and draws the target line.
func addTarget(leg legendCount, p *plot.Plot, pal palette, xs []float64, target float64) error {
	if len(xs) == 0 || target <= 0 {
		return nil
	}
	x0, x1 := p.X.Min, p.X.Max
	band, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: target}, {X: x0, Y: target}})
	if err != nil {
		return err
	}
	band.Color = translucent(pal.bad, 0x1c)
	band.LineStyle.Width = 0
	line, err := plotter.NewLine(plotter.XYs{{X: x0, Y: target}, {X: x1, Y: target}})
	if err != nil {
		return err
	}
	line.LineStyle = draw.LineStyle{Color: pal.bad, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	p.Add(band, line)
	leg.add(p, "below the target of "+num(target)+" tok/s", band, line)
	return nil
}

// addTTFTLimit draws the TTFT limit when it is within reach of the curves (up to three
// times the highest p95): farther away it would flatten them, and the title says it instead.
func addTTFTLimit(leg legendCount, p *plot.Plot, pal palette, xs []float64, limit float64) error {
	if len(xs) == 0 || limit <= 0 {
		return nil
	}
	if limit > 3*p.Y.Max {
		p.Title.Text += " (limit " + model.Limit(limit) + ", far above)"
		return nil
	}
	line, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: limit}, {X: p.X.Max, Y: limit}})
	if err != nil {
		return err
	}
	line.LineStyle = draw.LineStyle{Color: pal.bad, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	p.Add(line)
	leg.add(p, "limit "+model.Limit(limit), line)
	return nil
}

// tidyTicks labels ticks without trailing zeros ("500", not "500.00").
type tidyTicks struct{ plot.Ticker }

func (t tidyTicks) Ticks(min, max float64) []plot.Tick {
	ts := t.Ticker.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(math.Round(ts[i].Value*1e6)/1e6, 'f', -1, 64)
		}
	}
	return ts
}

func translucent(c color.Color, alpha uint8) color.Color {
	r, g, b, _ := c.RGBA()
	// premultiplied by alpha for color.RGBA
	a := uint32(alpha)
	return color.RGBA{R: uint8(r >> 8 * a / 0xff), G: uint8(g >> 8 * a / 0xff), B: uint8(b >> 8 * a / 0xff), A: alpha}
}

// drawCharts lays the charts out on c: per-user tok/s across the top (the hero),
// aggregate tok/s and TTFT p95 side by side below.
func drawCharts(c draw.Canvas, cs chartSet) {
	h := c.Max.Y - c.Min.Y
	w := c.Max.X - c.Min.X
	gap := vg.Points(12)
	top := draw.Crop(c, 0, 0, h*0.45, 0)
	bottom := draw.Crop(c, 0, 0, 0, -(h*0.55 + gap))
	left := draw.Crop(bottom, 0, -(w/2 + gap/2), 0, 0)
	right := draw.Crop(bottom, w/2+gap/2, 0, 0, 0)
	cs.user.Draw(top)
	cs.agg.Draw(left)
	cs.ttft.Draw(right)
}

// sans is the variant of gonum/plot's Liberation fonts the report uses: its default is
// serif, which reads poorly at chart sizes.
const sans = "Sans"

// textStyle is a plain text style of the charts' font.
func textStyle(c color.Color, size vg.Length, bold bool) draw.TextStyle {
	f := font.Font{Typeface: plot.DefaultFont.Typeface, Variant: sans, Size: size}
	if bold {
		f.Weight = xfnt.WeightBold
	}
	return draw.TextStyle{Color: c, Font: f, Handler: plot.DefaultTextHandler}
}
