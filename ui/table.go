package ui

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
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

// levelProgress is how the level the ramp holds now stands against the level rule (what
// the run engine's LevelProgress says, as the table shows it). Users 0: no ramp drives
// the endpoint.
type levelProgress struct {
	Users        int
	Steady, Need int           // steady completed requests so far, and the rule's minimum
	Warming      bool          // not steady yet: the hold has not started
	Left         time.Duration // hold time still to go (0 once held)
	MaxLeft      time.Duration // time left before the maximum hold ends the level
	Waits        string        // what the level waits for, with an estimate (engine.LevelProgress.Brief); "" in replay
}

// tablePanel is the level table of the focused endpoint: one row per concurrency held
// (▸ the level being measured now, ◆ the capacity level; after the requests * of a level
// held short, ? of one undecided at its maximum hold, + of one the capacity's bisection
// added: model.LevelStats.Short, Undecided, Refined; - of one the judgement reads as
// not measured in full otherwise: stopped, too few, no steady answer, warm-up only), and
// under the rows the progress of the level being measured and the legend of the marks.
type tablePanel struct {
	panel
	name     string
	levels   []model.LevelStats
	capacity int
	target   float64
	ttftMax  time.Duration // TTFT p95 target: the TTFT cells are coloured against it
	ttfo     bool          // reasoning tokens seen: TTFO p95 replaces TTFT p50
	errMax   float64       // error-rate limit: the errors cell is coloured against it
	progress levelProgress
	server   map[int]model.ServerLevel // the server's view per level (SetServer)
	trace    *model.ReportTrace        // the levels are this trace's windows (a trace run's replay)
	marks    map[int]string            // per level, its state's mark when the judgement reads it as not measured in full (SetMarks)
}

// SetTrace says the levels are the windows of trace t (nil: they are not).
func (p *tablePanel) SetTrace(t *model.ReportTrace) {
	if t != p.trace {
		p.trace, p.dirty = t, true
	}
}

// levelWord names a level of the table: users, a rate, or a window of the trace.
func (p *tablePanel) levelWord(n int) string {
	if p.trace != nil {
		return p.trace.WindowWords(n)
	}
	return engine.LevelWord(openLoop(p.levels), n)
}

// SetErrorLimit sets the error-rate limit the errors cells are judged against.
func (p *tablePanel) SetErrorLimit(max float64) {
	if max != p.errMax {
		p.errMax, p.dirty = max, true
	}
}

// SetTargets sets the TTFT p95 target and whether TTFO (reasoning models) is shown.
func (p *tablePanel) SetTargets(ttftMax time.Duration, ttfo bool) {
	if ttftMax != p.ttftMax || ttfo != p.ttfo {
		p.ttftMax, p.ttfo, p.dirty = ttftMax, ttfo, true
	}
}

// SetData replaces the rows.
func (p *tablePanel) SetData(name string, levels []model.LevelStats, capacity int, target float64) {
	p.name, p.levels, p.capacity, p.target, p.dirty = name, levels, capacity, target, true
}

// SetMarks sets, per level, the judgement's mark of a level not measured in full that
// is neither short nor undecided nor open ("stopped", "too few", "no steady answer",
// "warm-up only": levelMarks).
func (p *tablePanel) SetMarks(marks map[int]string) {
	if !maps.Equal(marks, p.marks) {
		p.marks, p.dirty = marks, true
	}
}

// levelMarks is the table's marks (SetMarks) from an endpoint's judgement.
func levelMarks(j *model.EndpointJudgement) map[int]string {
	marks := map[int]string{}
	for _, l := range j.Levels {
		switch l.State {
		case model.LevelStopped, model.LevelFew, model.LevelNotMeasured:
			marks[l.Level] = l.Mark()
		}
	}
	return marks
}

// unjudgedLegend names the levels marked "-" with their state ("- not measured in
// full: 1 user (too few), 32 users (stopped)"); "" when none is. The table shows it
// only when it hides no row.
func (p *tablePanel) unjudgedLegend() string {
	var named []string
	for _, l := range p.levels {
		if m := p.marks[l.Concurrency]; m != "" && !l.Short && len(l.Undecided) == 0 {
			named = append(named, p.levelWord(l.Concurrency)+" ("+m+")")
		}
	}
	if len(named) == 0 {
		return ""
	}
	return p.st.Faint.Render("- not measured in full: " + strings.Join(named, ", "))
}

// SetProgress sets how the level being measured stands (zero: no ramp drives the
// endpoint). The table redraws only when what it shows changes (times in seconds).
func (p *tablePanel) SetProgress(lp levelProgress) {
	lp.Left, lp.MaxLeft = lp.Left.Round(time.Second), lp.MaxLeft.Round(time.Second)
	if lp != p.progress {
		p.progress, p.dirty = lp, true
	}
}

// View returns the table, redrawn only after a setter changed what it shows.
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
	for i, c := range tableCols {
		name := c.name
		if i == 4 && p.ttfo {
			name = "TTFO p95"
		}
		switch {
		case i == 0 && p.trace != nil:
			name = "window" // a trace's windows
		case i == 0 && openLoop(p.levels):
			name = "rate/s" // rate mode: the levels are arrival rates
		}
		hb.WriteString(fmt.Sprintf("%*s ", c.w, name))
	}
	hb.WriteString(p.serverHead())
	hb.WriteString(p.goodHead())
	hb.WriteString(p.ciHead())
	lines = append(lines, st.Faint.Render(strings.TrimRight(hb.String(), " ")))

	open := -1
	for i, l := range p.levels {
		if l.Open {
			open = i
		}
	}
	foot := p.footer()
	if u := p.unjudgedLegend(); u != "" && p.h-3-len(foot) >= len(p.levels) {
		foot = append(foot, u)
	}
	for len(foot) > 0 && p.h-2-len(foot) < min(len(p.levels), 2) {
		foot = foot[:len(foot)-1] // the rows first: at least two of them
	}
	from, to := visibleRows(len(p.levels), p.h-2-len(foot), open)
	for i := from; i < to; i++ {
		lines = append(lines, p.row(p.levels[i])+p.goodCell(i)+p.ciCell(i))
	}
	lines = append(lines, foot...)
	return fitBlock(strings.Join(lines, "\n"), p.w, p.h)
}

// footer is what goes under the rows, most wanted first: the progress of the level being
// measured against the level rule's minimum ("▸ 32 users: 12/64 steady requests, 6s left"), and
// the legend of the short mark, naming the short levels.
func (p *tablePanel) footer() []string {
	st := p.st
	var foot []string
	rate := openLoop(p.levels)
	if lp := p.progress; lp.Users > 0 && lp.Waits != "" {
		head := st.Open.Render("▸ ") + st.Text.Render(p.levelWord(lp.Users)) + st.Faint.Render(": ") +
			st.Value.Render(strconv.Itoa(lp.Steady)) + st.Faint.Render(" steady requests, ")
		foot = append(foot, head+st.Faint.Render(wholeCommaClauses(lp.Waits, p.w-ansi.StringWidth(head))))
	} else if lp.Users > 0 {
		line := st.Open.Render("▸ ") + st.Text.Render(p.levelWord(lp.Users)) + st.Faint.Render(": ") +
			st.Value.Render(fmt.Sprintf("%d/%d", lp.Steady, lp.Need)) + st.Faint.Render(" steady requests, ")
		switch {
		case lp.Warming:
			line += st.Faint.Render("warming up")
		case lp.Left > 0:
			line += st.Value.Render(model.Duration(lp.Left)) + st.Faint.Render(" left")
		case lp.Steady < lp.Need:
			line += st.Faint.Render("waiting for more, ") + st.Value.Render(model.Duration(lp.MaxLeft)) +
				st.Faint.Render(" at most")
		default:
			line += st.Faint.Render("held")
		}
		foot = append(foot, line)
	}
	return append(foot, p.legend(rate)...)
}

// legend says what the marks after the requests mean, naming the levels so marked: "*
// short: 32 users (the maximum hold came first)", "? undecided: 24 users (TTFT p95 not
// decided at 95% by the maximum hold)", "+ refined: 20 and 24 users (added by the
// capacity's bisection)".
func (p *tablePanel) legend(rate bool) []string {
	st := p.st
	var short, undecided, refined []int
	var terms []string
	for _, l := range p.levels {
		switch {
		case l.Short:
			short = append(short, l.Concurrency)
		case len(l.Undecided) > 0:
			undecided = append(undecided, l.Concurrency)
			for _, t := range l.Undecided {
				if !slices.Contains(terms, t) {
					terms = append(terms, t)
				}
			}
		case l.Refined:
			refined = append(refined, l.Concurrency)
		}
	}
	var out []string
	if len(short) > 0 {
		text := " short: " + model.LevelNames(rate, short) + " (the maximum hold came first)"
		if p.trace != nil {
			ws := make([]string, len(short))
			for i, n := range short {
				ws[i] = strconv.Itoa(n)
			}
			text = " short: windows " + strings.Join(ws, ", ") + " (the window ended first)"
		}
		out = append(out, st.Warn.Render("*")+st.Faint.Render(text))
	}
	if len(undecided) > 0 {
		out = append(out, st.Warn.Render("?")+st.Faint.Render(" undecided: "+model.LevelNames(rate, undecided)+
			" ("+model.TermsWords(terms)+" not decided at 95% by the maximum hold)"))
	}
	if len(refined) > 0 {
		out = append(out, st.Faint.Render("+ refined: "+model.LevelNames(rate, refined)+" (added by the capacity's bisection)"))
	}
	return out
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
		user = fmtRateVs(l.UserTPS.P50, p.target)
		userStyle = sloStyle(st, l.UserTPS.P50, p.target)
	}
	if l.AggregateTPS > 0 {
		agg = fmtRate(l.AggregateTPS)
	}
	s50, s95 := st.Text, st.Text
	if l.TTFT.Count > 0 {
		t50, t95 = fmtMs(l.TTFT.P50), fmtMsVs(l.TTFT.P95, ms(p.ttftMax))
		s50, s95 = latStyle(st, msDur(l.TTFT.P50), p.ttftMax), latStyle(st, msDur(l.TTFT.P95), p.ttftMax)
	}
	if p.ttfo {
		t50, s50 = dash, st.Text
		if l.TTFO.Count > 0 {
			t50 = fmtMs(l.TTFO.P95)
		}
	}
	failed := l.Requests - l.Succeeded
	errs := "0"
	errStyle := st.Text
	if failed > 0 {
		errs = fmt.Sprintf("%d %.1f%%", failed, 100*l.ErrorRate)
		errStyle = st.Bad
		if l.ErrorRate <= p.errMax {
			errStyle = st.Warn // failures, within the limit (or not charged)
		}
	}
	users := st.Value
	if l.Open {
		users = st.Open
	}
	after := " " // after the requests: * held short, ? undecided, - not measured in full, + added by the bisection
	switch {
	case l.Short:
		after = st.Warn.Render("*")
	case len(l.Undecided) > 0:
		after = st.Warn.Render("?")
	case p.marks[l.Concurrency] != "":
		after = st.Faint.Render("-")
	case l.Refined:
		after = st.Faint.Render("+")
	}
	return mark +
		users.Render(cell(0, strconv.Itoa(l.Concurrency))) + " " +
		st.Text.Render(cell(1, strconv.Itoa(l.Requests))) + after +
		userStyle.Render(cell(2, user)) + " " +
		st.Text.Render(cell(3, agg)) + " " +
		s50.Render(cell(4, t50)) + " " +
		s95.Render(cell(5, t95)) + " " +
		errStyle.Render(cell(6, errs)) +
		p.serverCells(l.Concurrency)
}
