package report

import (
	"fmt"
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
	fmt.Fprintf(b, "\n## %s\n\n", mdEscape(p.name))
	if bm, nm := p.base.Endpoint.Model, p.next.Endpoint.Model; bm != nm {
		fmt.Fprintf(b, "Model: BASE %s, NEW %s\n\n", mdEscape(bm), mdEscape(nm))
	}
	bcap, ncap := p.capWords(&p.base), p.capWords(&p.next)
	capLine := fmt.Sprintf("Capacity: BASE %s, NEW %s", bcap, ncap)
	if nc, bc := p.next.Endpoint.Capacity.Users, p.base.Endpoint.Capacity.Users; nc < bc {
		capLine += " (**worse**)"
		regs = append(regs, fmt.Sprintf("%s: capacity fell from %s to %s", p.name, bcap, ncap))
	} else if nc > bc {
		capLine += " (better)"
	}
	b.WriteString(capLine + "\n\n")
	var rows [][]string
	for _, bl := range p.base.Endpoint.Levels {
		nl, ok := levelAt(p.next.Endpoint.Levels, bl.Concurrency)
		if !ok {
			rows = append(rows, []string{strconv.Itoa(bl.Concurrency), "not measured in NEW", "", "", "", "", "", "", ""})
			regs = append(regs, fmt.Sprintf("%s: NEW did not measure %s (BASE did): its ramp stopped earlier", p.name, p.level(bl.Concurrency)))
			continue
		}
		row, r := compareLevel(p.name+" at "+p.level(bl.Concurrency), bl, nl, th)
		if fewRequests(&p.base, bl) || fewRequests(&p.next, nl) {
			few = append(few, strconv.Itoa(bl.Concurrency))
			row[0] += " (few requests)"
		}
		rows = append(rows, row)
		regs = append(regs, r...)
	}
	for _, nl := range p.next.Endpoint.Levels {
		if _, ok := levelAt(p.base.Endpoint.Levels, nl.Concurrency); !ok {
			rows = append(rows, []string{strconv.Itoa(nl.Concurrency), "not measured in BASE", "", "", "", "", "", "", ""})
		}
	}
	if len(rows) > 0 {
		header := compareHeader
		if p.rate() {
			header = append([]string{"rate req/s"}, compareHeader[1:]...)
		}
		writeRawTable(b, header, rows)
	}
	if len(few) > 0 {
		per := "user"
		if p.rate() {
			per = "request/s"
		}
		note = fmt.Sprintf("%s: at %s %s, BASE or NEW has fewer requests than a level needs "+
			"(at least 20, and 2 per %s): a change there may be noise; hold the levels longer", p.name, strings.Join(few, ", "), p.unit(), per)
	}
	return regs, note
}

// fewRequests reports whether level l of s rests on fewer requests than the hold rule
// asks for (max(20, 2 x users), the engine's rule): steady requests when the file counts them.
func fewRequests(s *Series, l model.ReportLevel) bool {
	n := l.Requests
	for i := range s.Endpoint.Levels {
		if s.Endpoint.Levels[i].Concurrency == l.Concurrency {
			if m, ok := s.SteadyRequests(i); ok {
				n = m
			}
		}
	}
	return n < max(20, 2*l.Concurrency)
}

// compareLevel is one table row and the regressions of one level; where names the
// level in the regressions ("gpu at 8 users").
func compareLevel(where string, a, b model.ReportLevel, th Thresholds) ([]string, []string) {
	var regs []string
	at := where + ": "
	metricCell := func(what, unit string, m metric, higherIsBetter bool) (string, string) {
		x, okA := m(a)
		y, okB := m(b)
		switch {
		case !okA && !okB:
			return "-", ""
		case !okB:
			regs = append(regs, at+what+" not measured in NEW (BASE "+num(x)+unit+")")
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
			regs = append(regs, fmt.Sprintf("%s%s %s → %s%s (%s)", at, what, num(x), num(y), unit, ch))
			ch = "**" + ch + "**"
		}
		return num(x) + " → " + num(y), ch
	}
	u, uc := metricCell("per-user tok/s p50", " tok/s", userP50, true)
	g, gc := metricCell("aggregate tok/s", " tok/s", aggregate, true)
	t, tc := metricCell("TTFT p95", " ms", ttftP95, false)
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
	return []string{strconv.Itoa(a.Concurrency), u, uc, g, gc, t, tc, e, ec}, regs
}

// capWords is a series' capacity in the pair's unit: "8 users", "at least 4 requests/s", "none".
func (p *endpointPair) capWords(s *Series) string {
	if !p.rate() {
		return capWords(s)
	}
	switch n := s.Endpoint.Capacity.Users; {
	case n == 0:
		return "none"
	case s.AtLeast():
		return "at least " + p.level(n)
	default:
		return p.level(n)
	}
}

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
