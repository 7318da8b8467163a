package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/v2/linechart"

	"github.com/tpsmon/tpsmon/model"
)

// curveSeries is one endpoint's degradation curve.
type curveSeries struct {
	Name     string
	Levels   []model.LevelStats // ordered by concurrency
	Capacity int                // 0 when no level meets the SLO
}

// curveSplitW is the narrowest panel width at which the two charts sit side by side
// even when there is height to stack them.
const curveSplitW = 100

// curvePanel draws the degradation curve: per-user TPS p50 and aggregate TPS against
// concurrency (x on a log2 scale, so a doubling ramp is evenly spaced), as two charts
// that share the x axis. Points: • a measured level, ● the level being measured now
// (it moves live), ◆ the capacity level. The per-user chart has the SLO target as a rule.
type curvePanel struct {
	st     Styles
	w, h   int
	series []curveSeries
	target float64
	cache  string
	dirty  bool
}

func (p *curvePanel) SetSize(w, h int)    { p.w, p.h, p.dirty = w, h, true }
func (p *curvePanel) SetStyles(st Styles) { p.st, p.dirty = st, true }

// SetData replaces the curves; call it when a bucket arrived (levels move at most once
// per bucket on screen).
func (p *curvePanel) SetData(s []curveSeries, target float64) {
	p.series, p.target, p.dirty = s, target, true
}

func (p *curvePanel) View() string {
	if p.dirty {
		p.cache = p.render()
		p.dirty = false
	}
	return p.cache
}

// curveArrangement says whether the two charts sit side by side and each chart's size
// (title line excluded).
func curveArrangement(w, h int) (split bool, cw, ch int) {
	body := h - 1 // the panel title
	if w >= curveSplitW || body < 12 {
		return true, (w - 2) / 2, body - 1
	}
	return false, w, body/2 - 1
}

func (p *curvePanel) render() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	st := p.st
	title := st.Title.Render("degradation curve") + st.Faint.Render(" (x = users)")
	legend := p.legend()
	head := joinSpread(title, legend, p.w)

	points := 0
	for _, s := range p.series {
		points += len(s.Levels)
	}
	if points == 0 {
		msg := st.Faint.Render("no level measured yet: press + to add users or r to auto-ramp")
		return fitBlock(head+"\n"+msg, p.w, p.h)
	}
	split, cw, ch := curveArrangement(p.w, p.h)
	if ch < 4 || cw < 20 {
		return fitBlock(head+"\n"+p.compact(), p.w, p.h)
	}
	user := p.chart(cw, ch, "per-user tok/s p50", func(l model.LevelStats) (float64, bool) {
		return l.UserTPS.P50, l.UserTPS.Count > 0
	}, p.target)
	agg := p.chart(cw, ch, "aggregate tok/s", func(l model.LevelStats) (float64, bool) {
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

// legend names the endpoints (several) or the markers (one).
func (p *curvePanel) legend() string {
	st := p.st
	if len(p.series) > 1 {
		parts := make([]string, len(p.series))
		for i, s := range p.series {
			parts[i] = st.SeriesStyle(i).Render("━ " + s.Name)
		}
		return strings.Join(parts, "  ")
	}
	return st.Faint.Render("• level  ") + st.Open.Render("●") + st.Faint.Render(" now  ") +
		st.Good.Render("◆") + st.Faint.Render(" capacity")
}

// compact is the curve as one line of text, for panels too small for a chart.
func (p *curvePanel) compact() string {
	var b strings.Builder
	for i, s := range p.series {
		if i > 0 {
			b.WriteString("  ")
		}
		if len(p.series) > 1 {
			b.WriteString(p.st.SeriesStyle(i).Render(s.Name + ": "))
		}
		for j, l := range s.Levels {
			if j > 0 {
				b.WriteString(p.st.Faint.Render(" "))
			}
			b.WriteString(p.st.Faint.Render(strconv.Itoa(l.Concurrency) + "→"))
			b.WriteString(sloStyle(p.st, l.UserTPS.P50, p.target).Render(fmtRate(l.UserTPS.P50)))
		}
	}
	return b.String()
}

// log2x maps a concurrency to the chart's x.
func log2x(c int) float64 { return math.Log2(float64(max(c, 1))) }

// chart draws one chart of every series' metric against concurrency.
func (p *curvePanel) chart(w, h int, title string, metric func(model.LevelStats) (float64, bool), target float64) string {
	st := p.st
	minC, maxC, maxY := math.MaxInt, 0, target
	for _, s := range p.series {
		for _, l := range s.Levels {
			minC, maxC = min(minC, l.Concurrency), max(maxC, l.Concurrency)
			if v, ok := metric(l); ok {
				maxY = max(maxY, v)
			}
		}
	}
	minX, maxX := log2x(minC), log2x(maxC)
	if maxX-minX < 1 {
		maxX = minX + 1
	}
	if maxY <= 0 {
		maxY = 1
	}
	maxY = niceCeil(maxY * 1.1)
	ystep := max(h/3, 1)
	// Every y label has the width of the widest, so that ntcharts reserves room for all
	// of them (it measures only some).
	lw := len(fmtAxis(maxY, maxY))
	lc := linechart.New(w, h, minX, maxX, 0, maxY,
		linechart.WithXYSteps(1, ystep),
		linechart.WithStyles(st.Axis, st.Label, st.Text),
		linechart.WithXLabelFormatter(func(int, float64) string { return "" }),
		linechart.WithYLabelFormatter(func(_ int, v float64) string { return fmt.Sprintf("%*s", lw, fmtAxis(v, maxY)) }),
	)
	lc.DrawXYAxisAndLabel()
	// braille lines: one grid per series (ntcharts' DrawBrailleLine makes a grid per segment)
	braille := func(pts []canvas.Float64Point, style lipgloss.Style) {
		if len(pts) < 2 {
			return
		}
		g := graph.NewBrailleGrid(lc.GraphWidth(), lc.GraphHeight(), minX, maxX, 0, maxY)
		for i := 1; i < len(pts); i++ {
			for _, p := range graph.GetLinePointsWithLimit(g.GridPoint(pts[i-1]), g.GridPoint(pts[i]), 0) {
				g.Set(p)
			}
		}
		graph.DrawBraillePatterns(&lc.Canvas, canvas.Point{X: lc.Origin().X + 1}, g.BraillePatterns(), style)
	}
	if target > 0 && target <= maxY {
		braille([]canvas.Float64Point{{X: minX, Y: target}, {X: maxX, Y: target}}, st.Target)
	}
	origin := lc.Origin()
	labelEnd := -1
	for si, s := range p.series {
		style := st.SeriesStyle(si)
		pts := make([]canvas.Float64Point, 0, len(s.Levels))
		for _, l := range s.Levels {
			if v, ok := metric(l); ok {
				pts = append(pts, canvas.Float64Point{X: log2x(l.Concurrency), Y: v})
			}
		}
		braille(pts, style)
		for _, l := range s.Levels {
			// x labels at the measured concurrencies (drawn for every level, even one
			// with no value yet, so the axis reads the same on both charts).
			sx := lc.ScaleFloat64Point(canvas.Float64Point{X: log2x(l.Concurrency)}).X
			lbl := strconv.Itoa(l.Concurrency)
			col := min(origin.X+1+int(math.Round(sx)), w-len(lbl))
			if col > labelEnd {
				lc.Canvas.SetStringWithStyle(canvas.Point{X: col, Y: origin.Y + 1}, lbl, st.Label)
				labelEnd = col + len(lbl)
			}
		}
		for _, l := range s.Levels {
			v, ok := metric(l)
			if !ok {
				continue
			}
			pt := canvas.Float64Point{X: log2x(l.Concurrency), Y: v}
			r, rs := '•', style
			switch {
			case l.Open:
				r, rs = '●', st.Open
			case s.Capacity > 0 && l.Concurrency == s.Capacity:
				r, rs = '◆', st.Good
			}
			lc.DrawRuneWithStyle(pt, r, rs)
		}
	}
	return st.Faint.Render(title) + "\n" + renderCanvas(&lc.Canvas)
}

// fmtAxis formats an axis label: whole numbers when the axis reaches 20 or more.
func fmtAxis(v, top float64) string {
	switch {
	case v == 0:
		return "0"
	case top >= 10000:
		return fmt.Sprintf("%.0fk", v/1000)
	case top >= 20:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

// niceCeil rounds v up to a round number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}
