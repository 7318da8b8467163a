package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// compareHeader is the header of a comparison table; each cell reads "BASE → NEW".
var compareHeader = []string{"users", "per-user tok/s p50", "change", "aggregate tok/s", "change", "TTFT p95 ms", "change", "errors", "change"}

// pairJudgement is what a comparison finds of one pair of endpoints: the line that sets
// BASE's claim beside NEW's (Markdown), the table of their levels, the calls, and a note
// when some levels rest on too few requests to tell a change from noise.
type pairJudgement struct {
	claim  string
	header []string
	rows   [][]string
	calls  calls
	note   string
}

// comparePair writes one endpoint's comparison and returns its calls, and a note when
// some levels rest on too few requests to tell a change from noise.
func comparePair(b *strings.Builder, p endpointPair, th Thresholds) (c calls, note string) {
	fmt.Fprintf(b, "\n## %s\n\n", mdEscape(p.name))
	if be, ne := p.base.Endpoint.Name, p.next.Endpoint.Name; be == ne {
		fmt.Fprintf(b, "Endpoint: %s\n\n", mdEscape(be))
	}
	if bm, nm := p.base.Endpoint.Model, p.next.Endpoint.Model; bm != nm {
		fmt.Fprintf(b, "Model: BASE %s, NEW %s\n\n", mdEscape(bm), mdEscape(nm))
	}
	fmt.Fprintf(b, "- BASE %s: %s\n- NEW %s: %s\n\n", mdEscape(p.base.Label), mdEscape(p.base.Judgement.Verdict.Text),
		mdEscape(p.next.Label), mdEscape(p.next.Judgement.Verdict.Text))
	j := p.judge(th)
	b.WriteString(j.claim + "\n\n")
	if len(j.rows) > 0 {
		writeRawTable(b, j.header, j.rows)
	}
	return j.calls, j.note
}

// judge compares NEW's levels with BASE's, figure by figure, by the one rule
// (model.Change.Call), and their claims (capacity, or a trace's load).
func (p *endpointPair) judge(th Thresholds) (j pairJudgement) {
	var few []string
	ttfo := p.base.Judgement.TTFO || p.next.Judgement.TTFO
	j.claim, j.calls = p.claimLine()
	intervals := [2]bool{p.base.Judgement.Intervals, p.next.Judgement.Intervals}
	for _, bl := range p.base.Endpoint.Levels {
		nl, ok := levelAt(p.next.Endpoint.Levels, bl.Concurrency)
		if !ok && bl.Refined {
			// The capacity's bisection added it in BASE: NEW's search took another path.
			j.rows = append(j.rows, unmeasuredRow(bl.Concurrency, "refined in BASE only", ttfo))
			continue
		}
		if !ok {
			j.rows = append(j.rows, unmeasuredRow(bl.Concurrency, "not measured in NEW", ttfo))
			j.calls.unmeasured(fmt.Sprintf("%s: NEW did not measure %s (BASE did): its ramp stopped earlier", p.name, p.level(bl.Concurrency)))
			continue
		}
		row, lc := compareLevel(p.name+" at "+p.level(bl.Concurrency), bl, nl, intervals, th, ttfo)
		if mark := p.judged(bl.Concurrency); mark != "" {
			few = append(few, strconv.Itoa(bl.Concurrency))
			row[0] += " (" + mark + ")"
		}
		j.rows = append(j.rows, row)
		j.calls.merge(lc)
	}
	for _, nl := range p.next.Endpoint.Levels {
		if _, ok := levelAt(p.base.Endpoint.Levels, nl.Concurrency); !ok {
			what := "not measured in BASE"
			if nl.Refined {
				what = "refined in NEW only" // the capacity's bisection added it in NEW: BASE's search took another path
			}
			j.rows = append(j.rows, unmeasuredRow(nl.Concurrency, what, ttfo))
		}
	}
	// NEW's own levels (a bisection's) among BASE's, in increasing load as every table.
	slices.SortStableFunc(j.rows, func(a, b []string) int { return rowLevel(a) - rowLevel(b) })
	j.header = slices.Clone(compareHeader)
	if ttfo {
		j.header = slices.Insert(j.header, 7, "TTFO p95 ms", "change")
	}
	j.header[0] = p.base.Judgement.LevelColumn()
	if len(few) > 0 {
		need := "at least 20, and 2 per " + p.per()
		switch {
		case p.trace():
			need = "20 in a window"
		case p.floor() > 0:
			need = fmt.Sprintf("at least %d, and until its criteria were decided", p.floor())
		}
		j.note = fmt.Sprintf("%s: at %s %s, BASE or NEW was not measured in full (the steady requests a level needs: %s): "+
			"a change there may be noise; hold the levels longer", p.name, strings.Join(few, ", "), p.unit(), need)
	}
	return j
}

// claimLine is the line that sets BASE's claim beside NEW's, "Capacity: BASE 8 users,
// NEW 4 users (**worse**)" or for a trace "Trace: BASE held at this trace's load, NEW
// not held at this trace's load (**worse**)", and its calls: the regression when NEW is
// worse, or, when the levels' 95% intervals do not decide the capacity's fall
// (capacityFall) or the failure of the trace's load (traceFall), the fall said and not
// called a regression: "Capacity: BASE 8 users, NEW 4 users (lower, not decided at 95%:
// NEW: the failure of 4 users is not decided)".
func (p *endpointPair) claimLine() (string, calls) {
	var c calls
	if bt, nt := p.base.Judgement.Trace, p.next.Judgement.Trace; bt != nil && nt != nil {
		line := fmt.Sprintf("Trace: BASE %s, NEW %s", bt.Words(), nt.Words())
		switch {
		case bt.Held() && nt.Kind == model.TraceNotHeld:
			call, why := p.traceFall()
			c.say(call, p.name+": BASE held the trace's load, NEW did not", "not decided at 95% ("+why+")")
			if call == model.ChangeUndecided {
				return line + " (worse on the figures, not decided at 95%: " + why + ")", c
			}
			return line + " (**worse**)", c
		case bt.Kind == model.TraceNotHeld && nt.Held():
			return line + " (better)", c
		}
		return line, c
	}
	bcap, ncap := p.capWords(&p.base), p.capWords(&p.next)
	line := fmt.Sprintf("Capacity: BASE %s, NEW %s", bcap, ncap)
	nj, bj := p.next.Judgement.Capacity, p.base.Judgement.Capacity
	nc, bc := nj.Report().Users, bj.Report().Users
	switch {
	case nc < bc && fellBelow(nj, bc):
		call, why := p.capacityFall()
		c.say(call, fmt.Sprintf("%s: capacity fell from %s to %s", p.name, bcap, ncap), "not decided at 95% ("+why+")")
		if call == model.ChangeUndecided {
			return line + " (lower, not decided at 95%: " + why + ")", c
		}
		return line + " (**worse**)", c
	case nc > bc && fellBelow(bj, nc):
		return line + " (better)", c
	case nc != bc:
		lo, hi, run := nj, bc, "NEW"
		if bc < nc {
			lo, hi, run = bj, nc, "BASE"
		}
		if lo.Kind == model.CapExact && lo.Above > hi {
			line += fmt.Sprintf(" (no change that %s's levels tell: it measured no level between %s)",
				run, model.LevelNames(p.rate(), []int{lo.Level, lo.Above}))
		}
	}
	return line, c
}

// floor is the sequential level rule's floor of steady requests the runs held their
// levels for (the larger of the two; 0 when neither records one).
func (p *endpointPair) floor() int {
	return max(p.base.Run.Report.Settings.MinRequests, p.next.Run.Report.Settings.MinRequests)
}

// per is what the level rule counts two steady requests for: "user", or "request/s".
func (p *endpointPair) per() string {
	if p.rate() {
		return "request/s"
	}
	return "user"
}

// judged is how BASE's or NEW's level at n was not measured in full, as the tables mark
// it ("short", "too few", "undecided: TTFT p95"); "" when both were (the judgement's
// level states).
func (p *endpointPair) judged(n int) string {
	for _, s := range []*Series{&p.base, &p.next} {
		if l, ok := s.Judgement.Level(n); ok && !l.State.Decides() {
			return l.Mark()
		}
	}
	return ""
}

// rowLevel is the level a comparison row is of: its first cell's number ("4 (short)").
func rowLevel(row []string) int {
	n, _ := strconv.Atoi(strings.Fields(row[0])[0])
	return n
}

// unmeasuredRow is a comparison row of a level only one run measured.
func unmeasuredRow(n int, why string, ttfo bool) []string {
	row := make([]string, len(compareHeader))
	if ttfo {
		row = make([]string, len(compareHeader)+2)
	}
	row[0], row[1] = strconv.Itoa(n), why
	return row
}

// compareLevel is one table row and the calls of one level; where names the level in
// the sentences ("gpu at 8 users"), intervals says whether BASE and NEW carry their
// 95% intervals. Each figure is judged by the one rule (model.Change.Call).
func compareLevel(where string, a, b model.ReportLevel, intervals [2]bool, th Thresholds, ttfo bool) ([]string, calls) {
	var c calls
	at := where + ": "
	// said is a figure in a sentence: tok/s with its unit as the table gives it, times
	// by the one rule for ms and s with the table's precision (model.MillisChange).
	said := func(v float64, unit string) string {
		if unit == " ms" {
			return model.MillisChange(v)
		}
		return model.TPSChange(v) + unit
	}
	metricCell := func(what, unit string, m metric, ci func(model.LevelCI) *model.Interval, higherIsBetter bool) (string, string) {
		x, okA := m(a)
		y, okB := m(b)
		num := num // tok/s with the tables' one decimal (model.TPSChange), times as before
		if unit == " tok/s" {
			num = model.TPSChange
		}
		switch {
		case !okA && !okB:
			return "-", ""
		case !okB:
			c.unmeasured(at + what + " not measured in NEW (BASE " + said(x, unit) + ")")
			return num(x) + " → -", "**not measured**"
		case !okA:
			return "- → " + num(y), ""
		}
		ch := Percent(x, y)
		sentence := fmt.Sprintf("%s%s %s → %s%s (%s)", at, what, num(x), num(y), unit, ch)
		if unit == " ms" {
			sentence = fmt.Sprintf("%s%s %s → %s (%s)", at, what, said(x, unit), said(y, unit), ch)
		}
		rule := model.Change{Higher: higherIsBetter, Rel: th.MaxRegression}
		call := rule.Call(figureOf(x, ci(a.CI95), intervals[0]), figureOf(y, ci(b.CI95), intervals[1]))
		return num(x) + " → " + num(y), changeCell(c.add(call, sentence, steadyOf(a), steadyOf(b)), ch)
	}
	u, uc := metricCell("per-user tok/s p50", " tok/s", userP50, func(c model.LevelCI) *model.Interval { return c.UserTPSP50 }, true)
	g, gc := metricCell("aggregate tok/s", " tok/s", aggregate, func(c model.LevelCI) *model.Interval { return c.AggregateTPS }, true)
	t, tc := metricCell("TTFT p95", " ms", ttftP95, func(c model.LevelCI) *model.Interval { return c.TTFTP95 }, false)
	var ttfoCells []string
	if ttfo {
		o, oc := metricCell("TTFO p95", " ms", ttfoP95, func(c model.LevelCI) *model.Interval { return c.TTFOP95 }, false)
		ttfoCells = []string{o, oc}
	}
	e := model.FormatPercent(a.ErrorRate) + " → " + model.FormatPercent(b.ErrorRate)
	d := b.ErrorRate - a.ErrorRate
	ec := strconv.FormatFloat(d*100, 'f', 2, 64)
	ec = strings.TrimRight(strings.TrimRight(ec, "0"), ".")
	if d > 0 {
		ec = "+" + ec
	}
	if ec == "-0" {
		ec = "0"
	}
	ec += " pt"
	rule := model.Change{Points: th.MaxErrorIncrease}
	call := rule.Call(figureOf(a.ErrorRate, a.CI95.ErrorRate, intervals[0]), figureOf(b.ErrorRate, b.CI95.ErrorRate, intervals[1]))
	ec = changeCell(c.add(call, fmt.Sprintf("%serrors %s (%s)", at, e, ec), a.Requests, b.Requests), ec)
	row := append([]string{strconv.Itoa(a.Concurrency), u, uc, g, gc, t, tc}, ttfoCells...)
	return append(row, e, ec), c
}

// changeCell is a change's table cell as its call marks it: bold for a regression,
// "(not decided)" for a change beyond the thresholds the intervals do not decide.
func changeCell(call model.ChangeCall, ch string) string {
	switch {
	case call.Regression():
		return "**" + ch + "**"
	case call == model.ChangeUndecided:
		return undecidedCell(ch)
	}
	return ch
}

// capWords is a series' capacity in the pair's unit: "8 users", "at least 4 requests/s",
// "none", "not measured" (its judgement's).
func (p *endpointPair) capWords(s *Series) string { return s.Judgement.Capacity.Words(p.rate()) }

// levelAt finds the level of the given users.
func levelAt(levels []model.ReportLevel, users int) (model.ReportLevel, bool) {
	for _, l := range levels {
		if l.Concurrency == users {
			return l, true
		}
	}
	return model.ReportLevel{}, false
}

// writeRawTable writes a Markdown table of cells that are already Markdown.
func writeRawTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
}

// fellBelow reports whether capacity c is known to lie below the load other: none, or
// exact with its failing level (Above) at or below other. A lower bound, a capacity not
// measured, or an exact one whose run measured no level between it and other (a ramp
// the bisection did not refine: 16 users, 32 fails, against 22) is not: the run did not
// measure the levels that would tell.
func fellBelow(c model.CapacityClaim, other int) bool {
	return c.Kind == model.CapNone || c.Kind == model.CapExact && c.Above <= other
}
