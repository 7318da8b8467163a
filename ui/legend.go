package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// head is the curve's title line. The legend never gives way to the title: the title
// shortens first ("degradation curve (x = users)", "curve (x = users)", "curve", none;
// x = requests/s in rate mode, the windows of a trace in its replay),
// then the endpoints' names lose the part they share.
func (p *curvePanel) head() string {
	st := p.st
	x := " (x = users)"
	if p.rate() {
		x = " (x = requests/s)"
	}
	if p.trace {
		x = " (x = windows of the trace)"
	}
	titles := []string{
		st.Title.Render("degradation curve") + st.Faint.Render(x),
		st.Title.Render("curve") + st.Faint.Render(x),
		st.Title.Render("curve"),
		"",
	}
	for _, short := range []bool{false, true} {
		legend := p.legend(short)
		for _, t := range titles {
			if t == "" {
				if ansi.StringWidth(legend) <= p.w {
					return legend
				}
				continue
			}
			if ansi.StringWidth(t)+1+ansi.StringWidth(legend) <= p.w {
				return joinSpread(t, legend, p.w)
			}
		}
	}
	return fitWidth(p.legend(true), p.w)
}

// trimCommonPrefix shortens endpoint names for the legend: the suffix they all share
// from a separator on (".example.com:8000" of gpu-a.example.com:8000 and
// gpu-b.example.com:8000), then the prefix they all share up to a ":" or "/" (127.0.0.1
// of 127.0.0.1:8000 and 127.0.0.1:8001, which become ":8000" and ":8001"). Names that
// would become empty are kept whole.
func trimCommonPrefix(names []string) []string {
	if len(names) < 2 {
		return names
	}
	suf, pre := names[0], names[0]
	for _, n := range names[1:] {
		for !strings.HasSuffix(n, suf) {
			suf = suf[1:]
		}
		for !strings.HasPrefix(n, pre) {
			pre = pre[:len(pre)-1]
		}
	}
	drop := 0 // from the end
	if i := strings.IndexAny(suf, ".:/"); i >= 0 {
		drop = len(suf) - i
	}
	keep := 0 // from the start
	if i := strings.LastIndexAny(pre, ":/"); i > 0 {
		keep = i
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if short := n[:len(n)-drop]; drop > 0 && short != "" {
			out[i] = short
		} else if keep > 0 && len(n) > keep+1 {
			out[i] = n[keep:]
		}
	}
	return out
}

// firstFit is the first of texts (longest first) that fits w cells, else the last cut.
func firstFit(w int, texts ...string) string {
	for _, t := range texts {
		if ansi.StringWidth(t) <= w {
			return t
		}
	}
	return fitWidth(texts[len(texts)-1], w)
}
