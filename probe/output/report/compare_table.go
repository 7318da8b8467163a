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

// comparePair writes one endpoint's comparison and returns its regressions, and a
// note when some levels rest on too few requests to tell a change from noise.
func comparePair(b *strings.Builder, p endpointPair, th Thresholds) (regs []string, note string) {
	var few []string
	ttfo := p.base.Judgement.TTFO || p.next.Judgement.TTFO
	fmt.Fprintf(b, "\n## %s\n\n", mdEscape(p.name))
	if be, ne := p.base.Endpoint.Name, p.next.Endpoint.Name; be == ne {
		fmt.Fprintf(b, "Endpoint: %s\n\n", mdEscape(be))
	}
	if bm, nm := p.base.Endpoint.Model, p.next.Endpoint.Model; bm != nm {
		fmt.Fprintf(b, "Model: BASE %s, NEW %s\n\n", mdEscape(bm), mdEscape(nm))
	}
	fmt.Fprintf(b, "- BASE %s: %s\n- NEW %s: %s\n\n", mdEscape(p.base.Label), mdEscape(p.base.Judgement.Verdict.Text),
		mdEscape(p.next.Label), mdEscape(p.next.Judgement.Verdict.Text))
	capLine, capRegs := p.claimLine()
	regs = append(regs, capRegs...)
	b.WriteString(capLine + "\n\n")
	var rows [][]string
	for _, bl := range p.base.Endpoint.Levels {
		nl, ok := levelAt(p.next.Endpoint.Levels, bl.Concurrency)
		if !ok && bl.Refined {
			// The capacity's bisection added it in BASE: NEW's search took another path.
			rows = append(rows, unmeasuredRow(bl.Concurrency, "refined in BASE only", ttfo))
			continue
		}
		if !ok {
			rows = append(rows, unmeasuredRow(bl.Concurrency, "not measured in NEW", ttfo))
			regs = append(regs, fmt.Sprintf("%s: NEW did not measure %s (BASE did): its ramp stopped earlier", p.name, p.level(bl.Concurrency)))
			continue
		}
		row, r := compareLevel(p.name+" at "+p.level(bl.Concurrency), bl, nl, th, ttfo)
		if mark := p.judged(bl.Concurrency); mark != "" {
			few = append(few, strconv.Itoa(bl.Concurrency))
			row[0] += " (" + mark + ")"
		}
		rows = append(rows, row)
		regs = append(regs, r...)
	}
	for _, nl := range p.next.Endpoint.Levels {
		if _, ok := levelAt(p.base.Endpoint.Levels, nl.Concurrency); !ok {
			what := "not measured in BASE"
			if nl.Refined {
				what = "refined in NEW only" // the capacity's bisection added it in NEW: BASE's search took another path
			}
			rows = append(rows, unmeasuredRow(nl.Concurrency, what, ttfo))
		}
	}
	if len(rows) > 0 {
		header := slices.Clone(compareHeader)
		if ttfo {
			header = slices.Insert(header, 7, "TTFO p95 ms", "change")
		}
		header[0] = p.base.Judgement.LevelColumn()
		writeRawTable(b, header, rows)
	}
	if len(few) > 0 {
		need := "at least 20, and 2 per " + p.per()
		switch {
		case p.trace():
			need = "20 in a window"
		case p.floor() > 0:
			need = fmt.Sprintf("at least %d, and until its criteria were decided", p.floor())
		}
		note = fmt.Sprintf("%s: at %s %s, BASE or NEW was not measured in full (the steady requests a level needs: %s): "+
			"a change there may be noise; hold the levels longer", p.name, strings.Join(few, ", "), p.unit(), need)
	}
	return regs, note
}

// claimLine is the line that sets BASE's claim beside NEW's, "Capacity: BASE 8 users,
// NEW 4 users (**worse**)" or for a trace "Trace: BASE held at this trace's load, NEW
// not held at this trace's load (**worse**)", and the regression when NEW is worse.
func (p *endpointPair) claimLine() (string, []string) {
	if bt, nt := p.base.Judgement.Trace, p.next.Judgement.Trace; bt != nil && nt != nil {
		line := fmt.Sprintf("Trace: BASE %s, NEW %s", bt.Words(), nt.Words())
		switch {
		case bt.Held() && nt.Kind == model.TraceNotHeld:
			return line + " (**worse**)", []string{fmt.Sprintf("%s: BASE held the trace's load, NEW did not", p.name)}
		case bt.Kind == model.TraceNotHeld && nt.Held():
			return line + " (better)", nil
		}
		return line, nil
	}
	bcap, ncap := p.capWords(&p.base), p.capWords(&p.next)
	line := fmt.Sprintf("Capacity: BASE %s, NEW %s", bcap, ncap)
	nj, bj := p.next.Judgement.Capacity, p.base.Judgement.Capacity
	nc, bc := nj.Report().Users, bj.Report().Users
	switch {
	case nc < bc && fellBelow(nj, bc):
		return line + " (**worse**)", []string{fmt.Sprintf("%s: capacity fell from %s to %s", p.name, bcap, ncap)}
	case nc > bc && fellBelow(bj, nc):
		return line + " (better)", nil
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
	return line, nil
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

// unmeasuredRow is a comparison row of a level only one run measured.
func unmeasuredRow(n int, why string, ttfo bool) []string {
	row := make([]string, len(compareHeader))
	if ttfo {
		row = make([]string, len(compareHeader)+2)
	}
	row[0], row[1] = strconv.Itoa(n), why
	return row
}

// compareLevel is one table row and the regressions of one level; where names the
// level in the regressions ("gpu at 8 users").
func compareLevel(where string, a, b model.ReportLevel, th Thresholds, ttfo bool) ([]string, []string) {
	var regs []string
	at := where + ": "
	// said is a figure in a sentence: tok/s with its unit, times by the one rule for ms and s.
	said := func(v float64, unit string) string {
		if unit == " ms" {
			return model.Millis(v)
		}
		return num(v) + unit
	}
	metricCell := func(what, unit string, m metric, higherIsBetter bool) (string, string) {
		x, okA := m(a)
		y, okB := m(b)
		switch {
		case !okA && !okB:
			return "-", ""
		case !okB:
			regs = append(regs, at+what+" not measured in NEW (BASE "+said(x, unit)+")")
			return num(x) + " → -", "**not measured**"
		case !okA:
			return "- → " + num(y), ""
		}
		worse := y < x*(1-th.MaxRegression)
		if !higherIsBetter {
			worse = y > x*(1+th.MaxRegression)
		}
		ch := Percent(x, y)
		if worse {
			if unit == " ms" {
				regs = append(regs, fmt.Sprintf("%s%s %s → %s (%s)", at, what, said(x, unit), said(y, unit), ch))
			} else {
				regs = append(regs, fmt.Sprintf("%s%s %s → %s%s (%s)", at, what, num(x), num(y), unit, ch))
			}
			ch = "**" + ch + "**"
		}
		return num(x) + " → " + num(y), ch
	}
	u, uc := metricCell("per-user tok/s p50", " tok/s", userP50, true)
	g, gc := metricCell("aggregate tok/s", " tok/s", aggregate, true)
	t, tc := metricCell("TTFT p95", " ms", ttftP95, false)
	var ttfoCells []string
	if ttfo {
		o, oc := metricCell("TTFO p95", " ms", ttfoP95, false)
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
	if d > th.MaxErrorIncrease+1e-12 {
		regs = append(regs, fmt.Sprintf("%serrors %s (%s)", at, e, ec))
		ec = "**" + ec + "**"
	}
	row := append([]string{strconv.Itoa(a.Concurrency), u, uc, g, gc, t, tc}, ttfoCells...)
	return append(row, e, ec), regs
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
