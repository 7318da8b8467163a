package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/tpsmon/tpsmon/model"
)

// seriesCols is the narrowest panel width at which the three series sit side by side.
const seriesCols = 96

// seriesLabelW is the label column of a series when they are stacked.
const seriesLabelW = 36

// seriesPanel shows the three live series: per-user TPS p50 (coloured against the
// SLO), aggregate TPS, and TTFT p50/p95, each a sparkline of the newest per-second
// buckets with its current value and unit beside it.
type seriesPanel struct {
	panel
	buckets []model.Bucket
	live    model.Live
	target  float64       // per-user TPS target (SLO)
	ttftMax time.Duration // TTFT p95 target (SLO); 0: none
	grids   [3]sparkGrid  // the sparklines' cells, kept between redraws
}

// SetTTFTTarget sets the TTFT p95 target the TTFT values and chart are judged against.
func (p *seriesPanel) SetTTFTTarget(d time.Duration) {
	if d != p.ttftMax {
		p.ttftMax, p.dirty = d, true
	}
}

// SetData takes the newest buckets (oldest first) and live values. Call it when a
// new bucket arrived; the sparklines are drawn again only then (or on resize).
func (p *seriesPanel) SetData(b []model.Bucket, live model.Live, target float64) {
	p.buckets, p.live, p.target, p.dirty = b, live, target, true
}

// History is how many buckets the panel can show at its size (what to ask the Tracker for).
func (p *seriesPanel) History() int {
	_, cw, _ := seriesArrangement(p.w, p.h)
	return max(cw, 1)
}

// View returns the series, redrawn only after SetData, SetSize or SetStyles.
func (p *seriesPanel) View() string { return p.view(p.render) }

// seriesArrangement says whether the series sit side by side, and each sparkline's size.
func seriesArrangement(w, h int) (cols bool, chartW, chartH int) {
	if w >= seriesCols && h >= 3 {
		cw := (w - 4) / 3
		return true, cw, h - 1
	}
	rh := max(h/3, 1)
	return false, max(w-seriesLabelW-1, 0), rh
}

// render draws the heads and sparklines in columns or stacked, as the size allows.
func (p *seriesPanel) render() string {
	labels, values := p.heads()
	cols, cw, ch := seriesArrangement(p.w, p.h)
	charts := p.sparks(cw, ch)
	if cols {
		return p.columns(labels, values, charts, cw)
	}
	return p.stacked(labels, values, charts, ch)
}

// heads are the series' titles and their current values with units ("—" before any).
func (p *seriesPanel) heads() (labels, values [3]string) {
	st, live := p.st, p.live
	none := st.Faint.Render("—")
	unit := func(s string) string { return st.Faint.Render(" " + s) }

	user := none
	switch {
	case allSilent(live):
		user = st.Bad.Render(fmt.Sprintf("none: silent %d s", int(live.SilentFor/time.Second)))
	case live.HasUser:
		user = sloStyle(st, live.UserTPS, p.target).Render(fmtRateVs(live.UserTPS, p.target)) + unit("tok/s")
	}
	agg := st.Value.Render(fmtRate(live.AggregateTPS)) + unit("tok/s")
	if live.At.IsZero() {
		agg = none
	}
	ttft := p.ttftHead()
	labels = [3]string{
		st.Title.Render("per-user p50 "),
		st.Title.Render("aggregate "),
		st.Title.Render("TTFT "),
	}
	return labels, [3]string{user, agg, ttft}
}

// sparks draws the three sparklines, cw x ch each, of the newest buckets that fit
// (none when there is no room).
func (p *seriesPanel) sparks(cw, ch int) (charts [3]string) {
	if cw <= 0 || ch <= 0 {
		return charts
	}
	st := p.st
	n := min(len(p.buckets), cw)
	bs := p.buckets[len(p.buckets)-n:]
	userV := make([]float64, n)
	aggV := make([]float64, n)
	p50V := make([]float64, n)
	p95V := make([]float64, n)
	for i, b := range bs {
		if b.HasUser {
			userV[i] = b.UserTPS
		}
		aggV[i] = b.AggregateTPS
		if b.HasTTFT {
			p50V[i] = float64(b.TTFTP50) / float64(time.Millisecond)
			p95V[i] = float64(b.TTFTP95) / float64(time.Millisecond)
		}
	}
	userStyle := st.SeriesStyle(0)
	if p.live.HasUser && p.target > 0 {
		userStyle = sloStyle(st, p.live.UserTPS, p.target) // the chart in its number's colour
	}
	span := spanOf(bs)
	charts[0] = drawSpark(&p.grids[0], cw, ch, userV, nil, p.target, userStyle, st.Target, scaleLabel(st, "tok/s", span))
	charts[1] = drawSpark(&p.grids[1], cw, ch, aggV, nil, 0, st.SeriesStyle(1), st.Target, scaleLabel(st, "tok/s", span))
	charts[2] = drawSpark(&p.grids[2], cw, ch, p95V, p50V, ms(p.ttftMax), st.Faint, st.SeriesStyle(2), scaleLabel(st, "ms", span))
	return charts
}

// columns sets the three series side by side, cw cells each: the head, then the chart.
// The per-user head also names the target when it fits.
func (p *seriesPanel) columns(labels, values, charts [3]string, cw int) string {
	if note := p.st.Faint.Render("  target ≥" + strconv.FormatFloat(p.target, 'f', -1, 64)); p.target > 0 &&
		cellWidth(labels[0]+values[0]+note) <= cw {
		values[0] += note // only when it fits: never cut the value's unit for it
	}
	if note := p.st.Faint.Render("  target ≤" + fmtLimit(p.ttftMax)); p.ttftMax > 0 &&
		cellWidth(labels[2]+values[2]+note) <= cw {
		values[2] += note
	}
	blocks := make([]string, 3)
	for i := range blocks {
		blocks[i] = fitWidth(labels[i]+values[i], cw)
		if charts[i] != "" {
			blocks[i] += "\n" + charts[i]
		}
	}
	return fitBlock(sideBySide(2, []int{cw, cw, cw}, blocks...), p.w, p.h)
}

// stacked sets the series one under the other, ch lines each: the head in a label
// column left of the chart. Series that do not fit the height are left out.
func (p *seriesPanel) stacked(labels, values, charts [3]string, ch int) string {
	rows := make([]string, 0, 3)
	for i := range 3 {
		if len(rows)*ch >= p.h {
			break
		}
		label := padRight(fitWidth(padRight(labels[i], 14)+values[i], seriesLabelW), seriesLabelW)
		if charts[i] == "" {
			rows = append(rows, label)
			continue
		}
		rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, label+" ", charts[i]))
	}
	return fitBlock(strings.Join(rows, "\n"), p.w, p.h)
}

// drawSpark draws values as columns scaled to the window's own maximum (so the chart
// rescales down as well as up) on g (reused). over, when given, is drawn on top in
// overStyle (TTFT p50 over p95). A positive target is drawn as a faint rule when it
// falls inside the range. The columns are what sparkline.DrawColumnsOnly draws (the
// newest w values, right-aligned), on a sparkGrid instead of a canvas.
func drawSpark(g *sparkGrid, w, h int, values, over []float64, target float64, style, overStyle lipgloss.Style, label func(top float64) (string, lipgloss.Style)) string {
	hi := 0.0
	for _, v := range values {
		hi = max(hi, v)
	}
	for _, v := range over {
		hi = max(hi, v)
	}
	if target > 0 && target < 2*hi {
		hi = max(hi, target)
	}
	measured := hi > 0 // something above 0 to scale: only then is the scale labelled
	if hi <= 0 {
		hi = 1
	}
	hi *= 1.05
	var labelText string
	var labelStyle lipgloss.Style
	if label != nil && h > 1 && measured {
		labelText, labelStyle = label(hi)
	}
	g.reset(w, h, [sparkLooks]lipgloss.Style{sparkValue: style, sparkOver: overStyle, sparkLabel: labelStyle})
	if len(values) > w {
		values = values[len(values)-w:]
	}
	scaled := make([]float64, len(values))
	for i, v := range values {
		scaled[i] = max(v, 0) / hi * float64(h)
	}
	g.columns(w-len(scaled), scaled, sparkValue)
	if len(over) > 0 {
		// whole cells only: a partial block on top of the taller column would cut a hole in it
		scaled := make([]float64, len(over))
		for i, v := range over {
			scaled[i] = math.Floor(v / hi * float64(h))
		}
		g.columns(w-len(over), scaled, sparkOver)
	}
	if target > 0 && target < hi && h > 1 {
		row := h - 1 - int(target/hi*float64(h))
		for x := range w {
			if g.at(x, row) == 0 {
				g.set(x, row, '┈', sparkOver)
			}
		}
	}
	if labelText != "" && cellWidth(labelText) <= w {
		g.text(0, 0, labelText, sparkLabel)
	}
	return g.render()
}
