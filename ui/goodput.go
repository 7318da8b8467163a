package ui

import (
	"fmt"
	"strconv"
)

// goodW is the width the table's goodput column adds (a space before it): the share of
// a level's steady requests that met the per-request target (TTFT and their own tok/s).
const goodW = 1 + 5

// withGoodput widens a table that sits beside the curve for its goodput column when the
// curve keeps at least curveMinW columns.
func withGoodput(l layout) layout {
	if l.Beside && l.CurveW-goodW >= curveMinW {
		l.TableW += goodW
		l.CurveW -= goodW
	}
	return l
}

// goodShown reports whether the goodput column is drawn: some level judged a request
// and the column fits beside the others (the server's, when they are drawn).
func (p *tablePanel) goodShown() bool {
	need := tableWidth() + goodW
	if p.serverShown() {
		need += serverColsW
	}
	if p.w < need {
		return false
	}
	for i := range p.levels {
		if p.levels[i].Traffic.Goodput.Judged > 0 {
			return true
		}
	}
	return false
}

func (p *tablePanel) goodHead() string {
	if !p.goodShown() {
		return ""
	}
	return fmt.Sprintf(" %*s", goodW-1, "good")
}

// goodCell is a level's goodput share, " 94%", coloured against the error limit's
// complement (a level whose goodput is below 1 - the error limit misses most requests'
// targets), or a dash when nothing was judged.
func (p *tablePanel) goodCell(i int) string {
	if !p.goodShown() {
		return ""
	}
	st := p.st
	g := p.levels[i].Traffic.Goodput
	if g.Judged == 0 {
		return " " + st.Faint.Render(fmt.Sprintf("%*s", goodW-1, "—"))
	}
	style := st.Good
	switch {
	case g.Share < 0.5:
		style = st.Bad
	case g.Share < 0.9:
		style = st.Warn
	}
	return " " + style.Render(fmt.Sprintf("%*s", goodW-1, strconv.FormatFloat(100*g.Share, 'f', 0, 64)+"%"))
}
