package ui

import (
	"fmt"

	"github.com/tpsmon/tpsmon/model"
)

// ciW is the width the table's interval column adds (a space before it): the half-width
// of each level's per-user p50 95% interval ("±0.4", model.Spread), how well the level
// knows the curve's figure.
const ciW = 1 + 6

// withIntervals widens a table that sits beside the curve for its interval column when
// the curve keeps at least curveMinW columns.
func withIntervals(l layout) layout {
	if l.Beside && l.CurveW-ciW >= curveMinW {
		l.TableW += ciW
		l.CurveW -= ciW
	}
	return l
}

// ciShown reports whether the interval column is drawn: some level has an interval and
// the column fits beside the others (the server's and goodput, when they are drawn).
func (p *tablePanel) ciShown() bool {
	need := tableWidth() + ciW
	if p.serverShown() {
		need += serverColsW
	}
	if p.goodShown() {
		need += goodW
	}
	if p.w < need {
		return false
	}
	for i := range p.levels {
		if p.levels[i].CI.UserTPSP50 != nil {
			return true
		}
	}
	return false
}

func (p *tablePanel) ciHead() string {
	if !p.ciShown() {
		return ""
	}
	return fmt.Sprintf(" %*s", ciW-1, "± p50")
}

// ciCell is the half-width of level i's per-user p50 interval, " ±0.4" (one decimal
// below 100 tok/s, as the p50 cell), or a dash when its interval says nothing.
func (p *tablePanel) ciCell(i int) string {
	if !p.ciShown() {
		return ""
	}
	l := &p.levels[i]
	dec := 1
	if l.UserTPS.P50 >= 100 {
		dec = 0
	}
	h := ""
	if l.UserTPS.Count > 0 {
		h = model.Spread(l.UserTPS.P50, l.CI.UserTPSP50, dec)
	}
	if h == "" {
		return " " + p.st.Faint.Render(fmt.Sprintf("%*s", ciW-1, "—"))
	}
	return " " + p.st.Text.Render(fmt.Sprintf("%*s", ciW-1, "±"+h))
}
