package ui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/graph"

	"github.com/tpsmon/tpsmon/model"
)

// curveSeries is one endpoint's degradation curve.
type curveSeries struct {
	Name     string
	Levels   []model.LevelStats // ordered by concurrency
	Capacity int                // 0 when no level meets the SLO
	Rate     bool               // rate mode: the levels are arrival rates (also when there is none yet)
}

// curveSplitW is the narrowest panel width at which the two charts sit side by side
// even when there is height to stack them.
const curveSplitW = 100

// curvePanel draws the degradation curve: per-user TPS p50 and aggregate TPS against
// concurrency (x on a log2 scale, so a doubling ramp is evenly spaced), as two charts
// that share the x axis. Points: the series' marker on a measured level (• for the first
// endpoint, seriesMarks), ● the level being measured now (it moves live), ◆ the
// capacity level. The per-user chart has the SLO target as a rule.
type curvePanel struct {
	panel
	series []curveSeries
	target float64
	cv     [2]canvas.Model // the charts' canvases, kept between redraws
	trace  bool            // the levels are a trace's windows (replay of a trace run)
}

// SetTrace says the levels are the windows of a trace (a trace run's replay).
func (p *curvePanel) SetTrace(on bool) {
	if on != p.trace {
		p.trace, p.dirty = on, true
	}
}

// SetData replaces the curves; call it when a bucket arrived (levels move at most once
// per bucket on screen).
func (p *curvePanel) SetData(s []curveSeries, target float64) {
	p.series, p.target, p.dirty = s, target, true
}

// View returns the curve, redrawn only after SetData, SetSize or SetStyles.
func (p *curvePanel) View() string { return p.view(p.render) }

// curveArrangement says whether the two charts sit side by side and each chart's size
// (title line excluded).
func curveArrangement(w, h int) (split bool, cw, ch int) {
	body := h - 1 // the panel title
	if w >= curveSplitW || body < 12 {
		return true, (w - 2) / 2, body - 1
	}
	return false, w, body/2 - 1
}

// rate reports whether the curve's x axis is arrival rates (rate mode).
func (p *curvePanel) rate() bool {
	for _, s := range p.series {
		if s.Rate || openLoop(s.Levels) {
			return true
		}
	}
	return false
}

func (p *curvePanel) render() string {
	st := p.st
	head := p.head()

	points := 0
	for _, s := range p.series {
		points += len(s.Levels)
	}
	if points == 0 && p.rate() {
		return fitBlock(head+"\n"+st.Faint.Render(firstFit(p.w,
			"no rate measured yet: press + to raise the rate or r to auto-ramp",
			"no rate yet: + raises it, r auto-ramps",
			"+ raise rate · r auto-ramp")), p.w, p.h)
	}
	if points == 0 {
		return fitBlock(head+"\n"+st.Faint.Render(firstFit(p.w,
			"no level measured yet: press + to add users or r to auto-ramp",
			"no level yet: + adds users, r auto-ramps",
			"+ add users · r auto-ramp")), p.w, p.h)
	}
	split, cw, ch := curveArrangement(p.w, p.h)
	if ch < 4 || cw < 20 {
		return fitBlock(head+"\n"+p.compact(), p.w, p.h)
	}
	user := p.chart(&p.cv[0], cw, ch, "per-user tok/s p50", func(l model.LevelStats) (float64, bool) {
		return l.UserTPS.P50, l.UserTPS.Count > 0
	}, p.target)
	agg := p.chart(&p.cv[1], cw, ch, "aggregate tok/s", func(l model.LevelStats) (float64, bool) {
		return l.AggregateTPS, l.AggregateTPS > 0
	}, 0)
	var body string
	if split {
		body = sideBySide(2, []int{cw, cw}, user, agg)
	} else {
		body = user + "\n" + agg
	}
	return fitBlock(head+"\n"+body, p.w, p.h)
}

// legend names the endpoints (several; short: without the part their names share, e.g.
// ":8000" and ":8001" for 127.0.0.1:8000 and 127.0.0.1:8001) or the markers (one).
func (p *curvePanel) legend(short bool) string {
	st := p.st
	if len(p.series) > 1 {
		names := make([]string, len(p.series))
		for i, s := range p.series {
			names[i] = s.Name
		}
		if short {
			names = trimCommonPrefix(names)
		}
		parts := make([]string, len(p.series), len(p.series)+1)
		for i, n := range names {
			parts[i] = st.SeriesStyle(i).Render(markOf(i).sample() + " " + n)
		}
		if !p.trace { // a trace's windows have no capacity to mark
			parts = append(parts, st.Good.Render("◆")+st.Faint.Render(" capacity"))
		}
		return strings.Join(parts, "  ")
	}
	capacity := st.Good.Render("◆") + st.Faint.Render(" capacity")
	if p.trace {
		capacity = ""
	}
	if short {
		return st.Open.Render("●") + st.Faint.Render(" now  ") + capacity
	}
	return st.Faint.Render("• level  ") + st.Open.Render("●") + st.Faint.Render(" now  ") + capacity
}

// compact is the curve as one line of text, for panels too small for a chart.
func (p *curvePanel) compact() string {
	var b strings.Builder
	b.WriteString(p.st.Faint.Render("user tok/s: ")) // per-user p50 by users
	for i, s := range p.series {
		if i > 0 {
			b.WriteString("  ")
		}
		if len(p.series) > 1 {
			b.WriteString(p.st.SeriesStyle(i).Render(string(markOf(i).dot) + " " + s.Name + ": "))
		}
		for j, l := range s.Levels {
			if j > 0 {
				b.WriteString(p.st.Faint.Render(" "))
			}
			b.WriteString(p.st.Faint.Render(strconv.Itoa(l.Concurrency) + "→"))
			b.WriteString(sloStyle(p.st, l.UserTPS.P50, p.target).Render(fmtRateVs(l.UserTPS.P50, p.target)))
		}
	}
	return b.String()
}

// log2x maps a concurrency to the chart's x.
func log2x(c int) float64 { return math.Log2(float64(max(c, 1))) }

// plotArea maps data to the cells of a chart's graph area (right of the y axis, above the
// x axis) exactly as ntcharts' braille grid does, so that labels and markers land in the
// cell that holds the line's dot for the same value.
type plotArea struct {
	x0, gw, gh int // first graph column (labels and axis left of it); graph width, height
	minX, maxX float64
	top, step  float64 // y range is [0, top], with a tick every step
}

// dot is the braille dot of (x, y): graph.BrailleGrid.GridPoint for this area.
func (a plotArea) dot(x, y float64) canvas.Point {
	var dx, dy float64
	if a.maxX > a.minX {
		dx = (x - a.minX) * float64(2*a.gw-1) / (a.maxX - a.minX)
	}
	if a.top > 0 {
		dy = y * float64(4*a.gh-1) / a.top
	}
	return canvas.Point{X: int(math.Round(dx)), Y: 4*a.gh - 1 - int(math.Round(dy))}
}

// cell is the canvas cell that holds the dot of (x, y).
func (a plotArea) cell(x, y float64) canvas.Point {
	d := a.dot(x, y)
	return canvas.Point{X: a.x0 + d.X/2, Y: d.Y / 4}
}

// ticks is the number of steps from 0 to the top of the y axis.
func (a plotArea) ticks() int { return int(math.Round(a.top / a.step)) }

// line draws pts joined by braille lines on one grid (ntcharts' DrawBrailleLine makes
// a grid per segment), dashed by dash: dots on, dots off... along the line (nil: solid).
func (a plotArea) line(c *canvas.Model, pts []canvas.Float64Point, style lipgloss.Style, dash []int) {
	if len(pts) < 2 {
		return
	}
	g := graph.NewBrailleGrid(a.gw, a.gh, a.minX, a.maxX, 0, a.top)
	k := 0 // dots along the line so far
	for i := 1; i < len(pts); i++ {
		seg := graph.GetLinePointsWithLimit(g.GridPoint(pts[i-1]), g.GridPoint(pts[i]), 0)
		if i > 1 && len(seg) > 0 {
			seg = seg[1:] // the point the last segment ended on
		}
		for _, p := range seg {
			if dashOn(dash, k) {
				g.Set(p)
			}
			k++
		}
	}
	graph.DrawBraillePatterns(c, canvas.Point{X: a.x0}, g.BraillePatterns(), style)
}

// levelMetric is the value a chart draws for a level, and whether the level has one.
type levelMetric func(model.LevelStats) (float64, bool)

// chart draws one chart of every series' metric against concurrency. The y axis has
// round ticks (0, step, 2*step ... top) at the rows where those values are drawn; a
// positive target is drawn as a rule and labelled with its value on the axis.
func (p *curvePanel) chart(c *canvas.Model, w, h int, title string, metric levelMetric, target float64) string {
	st := p.st
	a := p.area(w, h, metric, target)
	// the layout of an ntcharts linechart: y labels, the y axis, the graph; the x axis
	// and its labels on the last two rows. Drawn on a reused canvas (resetCanvas).
	resetCanvas(c, w, h)
	graph.DrawXYAxis(c, canvas.Point{X: a.x0 - 1, Y: a.gh}, st.Axis)
	p.yLabels(c, a, target)
	p.xLabels(c, a, w)
	for si, s := range p.series {
		p.plot(c, a, si, s, st.SeriesStyle(si), metric)
	}
	return st.Faint.Render(title) + "\n" + renderCanvas(c)
}

// area scales a w x h chart to every series' metric: x spans the measured concurrencies
// on a log2 scale (at least one doubling), y has round ticks from 0 up to the largest
// value or the target, and the y labels get the width of the widest of them.
func (p *curvePanel) area(w, h int, metric levelMetric, target float64) plotArea {
	minC, maxC, maxY := math.MaxInt, 0, target
	for _, s := range p.series {
		for _, l := range s.Levels {
			minC, maxC = min(minC, l.Concurrency), max(maxC, l.Concurrency)
			if v, ok := metric(l); ok {
				maxY = max(maxY, v)
			}
		}
	}
	a := plotArea{minX: log2x(minC), maxX: log2x(maxC), gh: h - 2} // the x axis and its labels take the last two rows
	if a.maxX-a.minX < 1 {
		a.maxX = a.minX + 1
	}
	a.top, a.step = axisTicks(maxY, a.gh)
	lw := 3 // at least 3: the chart does not shift sideways when the top passes 100
	if target > 0 && target <= a.top {
		lw = max(lw, len(fmtTick(target, 0)))
	}
	for i := range a.ticks() + 1 {
		lw = max(lw, len(fmtTick(float64(i)*a.step, a.step)))
	}
	a.x0, a.gw = lw+1, w-lw-1
	return a
}

// yLabels writes the tick values right-aligned left of the y axis, and a target inside
// the range as a rule across the graph, labelled with its value.
func (p *curvePanel) yLabels(c *canvas.Model, a plotArea, target float64) {
	lw := a.x0 - 1
	label := func(row int, s string, style lipgloss.Style) {
		c.SetStringWithStyle(canvas.Point{X: 0, Y: row}, fmt.Sprintf("%*s", lw, s), style)
	}
	for i := range a.ticks() + 1 {
		v := float64(i) * a.step
		label(a.cell(a.minX, v).Y, fmtTick(v, a.step), p.st.Label)
	}
	if target > 0 && target <= a.top {
		a.line(c, []canvas.Float64Point{{X: a.minX, Y: target}, {X: a.maxX, Y: target}}, p.st.Target, nil)
		label(a.cell(a.minX, target).Y, fmtTick(target, 0), p.st.Target)
	}
}

// xLabels writes the measured concurrencies of every series under the x axis, left to
// right, skipping a label that would touch the one before. Every level is labelled,
// even one with no value yet, so the axis reads the same on both charts.
func (p *curvePanel) xLabels(c *canvas.Model, a plotArea, w int) {
	var concs []int
	for _, s := range p.series {
		for _, l := range s.Levels {
			concs = append(concs, l.Concurrency)
		}
	}
	slices.Sort(concs)
	labelEnd := -1
	for _, conc := range slices.Compact(concs) {
		lbl := strconv.Itoa(conc)
		col := min(a.cell(log2x(conc), 0).X, w-len(lbl))
		if col > labelEnd {
			c.SetStringWithStyle(canvas.Point{X: col, Y: a.gh + 1}, lbl, p.st.Label)
			labelEnd = col + len(lbl)
		}
	}
}

// plot draws series si: its levels' values joined by a line in style and its dash, and a
// marker on each (its own on a measured level, ● the level being measured now, ◆ the
// capacity level, held now or not); ◆, then ●, win a cell that close levels share.
func (p *curvePanel) plot(c *canvas.Model, a plotArea, si int, s curveSeries, style lipgloss.Style, metric levelMetric) {
	st := p.st
	pts := make([]canvas.Float64Point, 0, len(s.Levels))
	for _, l := range s.Levels {
		if v, ok := metric(l); ok {
			pts = append(pts, canvas.Float64Point{X: log2x(l.Concurrency), Y: v})
		}
	}
	mark := markOf(si)
	a.line(c, pts, style, mark.dash)
	for pass := range 3 { // plain levels, then the one held now, then the capacity
		for _, l := range s.Levels {
			r, rs, kind := mark.dot, style, 0
			switch {
			case s.Capacity > 0 && l.Concurrency == s.Capacity:
				r, rs, kind = '◆', st.Good, 2
			case l.Open:
				r, rs, kind = '●', st.Open, 1
			}
			if v, ok := metric(l); ok && kind == pass {
				c.SetCell(a.cell(log2x(l.Concurrency), v), canvas.NewCellWithStyle(r, rs))
			}
		}
	}
}

// axisTicks picks a round y axis for values up to maxV on a graph rows high: a step of
// 1, 2, 2.5, 3, 4 or 5 times a power of ten, and the top, the first multiple of step at
// or above maxV. It aims at a tick every 3 to 4 rows (never closer than 2) and takes the
// lowest top among the tick counts near that, so that the data fills the height (on a
// tie, the count nearest the aim, then the larger count).
func axisTicks(maxV float64, rows int) (top, step float64) {
	if maxV <= 0 || math.IsNaN(maxV) || math.IsInf(maxV, 0) {
		maxV = 1
	}
	want := max(int(math.Round(float64(rows)/3.5)), 1)
	best := 0
	for n := max(want-1, 1); n <= max(want+1, 1); n++ {
		if n > 1 && n > rows/2 {
			break
		}
		raw := maxV / float64(n)
		e := math.Pow(10, math.Floor(math.Log10(raw)))
		s := 10 * e
		for _, m := range []float64{1, 2, 2.5, 3, 4, 5} {
			if m*e >= raw*(1-1e-9) {
				s = m * e
				break
			}
		}
		t := math.Ceil(maxV/s-1e-9) * s
		if best == 0 || t < top*(1-1e-9) || (math.Abs(t-top) <= 1e-9*top && abs(n-want) <= abs(best-want)) {
			top, step, best = t, s, n
		}
	}
	return top, step
}

func abs(n int) int { return max(n, -n) }

// fmtTick formats an axis value with the decimals its step needs (step 0: as few as
// the value needs, one at most), in thousands ("2.5k") from a step of 1000.
func fmtTick(v, step float64) string {
	if v == 0 {
		return "0"
	}
	unit := ""
	if step >= 1000 || (step == 0 && v >= 10000) {
		v, step, unit = v/1000, step/1000, "k"
	}
	dec := 0
	if step == 0 {
		if v != math.Round(v) {
			dec = 1
		}
	} else {
		for s := step; math.Abs(s-math.Round(s)) > 1e-9*s && dec < 3; s *= 10 {
			dec++
		}
	}
	return strconv.FormatFloat(v, 'f', dec, 64) + unit
}
