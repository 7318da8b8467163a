package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// tableCols are the level table's columns: header and right-aligned width.
var tableCols = []struct {
	name string
	w    int
}{
	{"users", 6}, {"reqs", 6}, {"user p50", 9}, {"aggregate", 10},
	{"TTFT p50", 9}, {"TTFT p95", 9}, {"errors", 11},
}

// tableWidth is the width the level table needs (marker column included).
func tableWidth() int {
	w := 2
	for _, c := range tableCols {
		w += c.w + 1
	}
	return w
}

// tablePanel is the level table of the focused endpoint: one row per concurrency held
// (▸ the level being measured now, ◆ the capacity level).
type tablePanel struct {
	panel
	name     string
	levels   []model.LevelStats
	capacity int
	target   float64
}

// SetData replaces the rows.
func (p *tablePanel) SetData(name string, levels []model.LevelStats, capacity int, target float64) {
	p.name, p.levels, p.capacity, p.target, p.dirty = name, levels, capacity, target, true
}

// View returns the table, redrawn only after SetData, SetSize or SetStyles.
func (p *tablePanel) View() string { return p.view(p.render) }

// visibleRows picks which of n rows fit in room lines, keeping row keep (the open
// level, -1 for none) visible and preferring the newest: it returns [from, to).
func visibleRows(n, room, keep int) (from, to int) {
	if room <= 0 {
		return 0, 0
	}
	if n <= room {
		return 0, n
	}
	to = n
	if keep >= 0 && keep < n-room {
		to = max(keep+1, room)
	}
	return to - room, to
}

func (p *tablePanel) render() string {
	st := p.st
	title := st.Title.Render("levels")
	if p.name != "" {
		title += st.Faint.Render(" · " + p.name)
	}
	if len(p.levels) > 0 {
		// the rate columns' unit (the TTFT cells carry theirs); left out when it does not fit
		title = joinSpread(title, st.Faint.Render("user p50, aggregate: tok/s"), min(p.w, tableWidth()-1))
	}
	lines := []string{title}
	if len(p.levels) == 0 {
		lines = append(lines, st.Faint.Render("no level yet"))
		return fitBlock(strings.Join(lines, "\n"), p.w, p.h)
	}
	var hb strings.Builder
	hb.WriteString("  ")
	for _, c := range tableCols {
		hb.WriteString(fmt.Sprintf("%*s ", c.w, c.name))
	}
	lines = append(lines, st.Faint.Render(strings.TrimRight(hb.String(), " ")))

	open := -1
	for i, l := range p.levels {
		if l.Open {
			open = i
		}
	}
	from, to := visibleRows(len(p.levels), p.h-2, open)
	for _, l := range p.levels[from:to] {
		lines = append(lines, p.row(l))
	}
	return fitBlock(strings.Join(lines, "\n"), p.w, p.h)
}

func (p *tablePanel) row(l model.LevelStats) string {
	st := p.st
	cell := func(i int, s string) string { return fmt.Sprintf("%*s", tableCols[i].w, s) }
	mark := "  "
	switch {
	case l.Open:
		mark = st.Open.Render("▸ ")
	case p.capacity > 0 && l.Concurrency == p.capacity:
		mark = st.Good.Render("◆ ")
	}
	dash := "—"
	user, agg, t50, t95 := dash, dash, dash, dash
	userStyle := st.Faint
	if l.UserTPS.Count > 0 {
		user = fmtRate(l.UserTPS.P50)
		userStyle = sloStyle(st, l.UserTPS.P50, p.target)
	}
	if l.AggregateTPS > 0 {
		agg = fmtRate(l.AggregateTPS)
	}
	if l.TTFT.Count > 0 {
		t50, t95 = fmtMs(l.TTFT.P50), fmtMs(l.TTFT.P95)
	}
	failed := l.Requests - l.Succeeded
	errs := "0"
	errStyle := st.Text
	if failed > 0 {
		errs = fmt.Sprintf("%d %.1f%%", failed, 100*l.ErrorRate)
		errStyle = st.Bad
	}
	users := st.Value
	if l.Open {
		users = st.Open
	}
	return mark +
		users.Render(cell(0, strconv.Itoa(l.Concurrency))) + " " +
		st.Text.Render(cell(1, strconv.Itoa(l.Requests))) + " " +
		userStyle.Render(cell(2, user)) + " " +
		st.Text.Render(cell(3, agg)) + " " +
		st.Text.Render(cell(4, t50)) + " " +
		st.Text.Render(cell(5, t95)) + " " +
		errStyle.Render(cell(6, errs))
}
