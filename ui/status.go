package ui

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
)

// statusData is the focused endpoint's request counts and errors, the verdicts, and the
// status message.
type statusData struct {
	Load      string // the load in force when the header alone would not say it: "rate 2 req/s" in rate mode
	Active    int
	Requests  int // ended since start or `c`
	Succeeded int
	Errors    map[model.ErrorKind]int // since start or `c`
	Recent    map[model.ErrorKind]int // over the last minute (errorWindow); nil: not kept
	LastError string                  // plain words; "" once requests succeed again
	Silent    int                     // streams open with no token for more than model.SilentAfter
	SilentFor time.Duration           // the longest of those silences
	Verdicts  []verdict               // one per endpoint, in words (model.Verdict), "" before any level
	Focus     int                     // the focused endpoint's verdict (shown alone when they do not all fit)
	Message   string                  // the latest action's outcome (ramp stopped, snapshot saved, ...)
	Shorter   []string                // shorter forms of Message, longest first, for a line too narrow for it
	Bad       bool                    // Message reports a failure
}

// statusPanel shows active streams, requests, errors by kind, the verdict of every
// endpoint, silent streams and the last error of the focused endpoint, and the status
// message of the latest action.
type statusPanel struct {
	panel
	data statusData
}

// SetData replaces the counts and the message.
func (p *statusPanel) SetData(d statusData) {
	p.data, p.dirty = d, true
}

// View returns the status lines, redrawn only after SetData, SetSize or SetStyles.
func (p *statusPanel) View() string { return p.view(p.render) }

// render stacks, as the height allows: the counts; the verdicts (all of them, or the
// focused endpoint's); what needs attention (silent streams, the last error); the
// message. With room for only one line after the counts, the message wins, and
// attention shows when there is no message. A message wider than the panel takes the
// lines it has spare (wrapped at spaces), else its shorter form that fits (message).
func (p *statusPanel) render() string {
	d := p.data
	lines := []string{p.counts()}
	verdicts := p.verdicts()
	attention := p.attention()
	room := p.h - 1
	focus := func() string { return verdicts[min(d.Focus, len(verdicts)-1)] }
	switch {
	case room >= 2+len(verdicts):
		lines = append(lines, verdicts...)
		lines = append(lines, p.lastLines(room-len(verdicts), attention)...)
	case room >= 3 && len(verdicts) > 0:
		lines = append(lines, focus())
		lines = append(lines, p.lastLines(room-1, attention)...)
	case room == 2 && len(verdicts) > 0:
		lines = append(lines, focus(), firstOf(strings.Join(p.message(1), ""), attention))
	case room >= 1:
		lines = append(lines, firstOf(strings.Join(p.message(1), ""), attention))
	}
	for len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return fitBlock(strings.Join(lines, "\n"), p.w, p.h)
}

// lastLines are the n (at least 2) last lines: attention, then the message. When
// nothing needs attention, its line is left blank under a one-line message and lent to
// one that needs two.
func (p *statusPanel) lastLines(n int, attention string) []string {
	if attention != "" {
		return append([]string{attention}, p.message(n-1)...)
	}
	msg := p.message(n)
	if len(msg) >= 2 {
		return msg
	}
	return append([]string{""}, msg...)
}

// message is the status message in at most n lines: whole on one line when it fits the
// width; wrapped at spaces when it fits n lines so; else the first of its shorter forms
// (Shorter) that fits one line; else the shortest, cut at the width.
func (p *statusPanel) message(n int) []string {
	d := p.data
	if d.Message == "" || n <= 0 {
		return nil
	}
	style := p.st.Text
	if d.Bad {
		style = p.st.Bad
	}
	render := func(lines []string) []string {
		for i, l := range lines {
			lines[i] = style.Render(l)
		}
		return lines
	}
	if ansi.StringWidth(d.Message) <= p.w {
		return render([]string{d.Message})
	}
	if lines := wrapWords(d.Message, p.w); n >= 2 && len(lines) > 0 && len(lines) <= n {
		return render(lines)
	}
	for _, s := range d.Shorter {
		if ansi.StringWidth(s) <= p.w {
			return render([]string{s})
		}
	}
	if len(d.Shorter) > 0 {
		return render([]string{d.Shorter[len(d.Shorter)-1]})
	}
	return render([]string{d.Message})
}

// wrapWords breaks s at spaces into lines of at most w cells, never between a number and
// its unit ("120 s"); nil when a word is wider than w.
func wrapWords(s string, w int) []string {
	lines := strings.Split(ansi.Wordwrap(unitSpace.ReplaceAllString(s, "$1\u00a0$2"), w, ""), "\n")
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(strings.TrimRight(l, " "), "\u00a0", " ")
		if ansi.StringWidth(lines[i]) > w {
			return nil
		}
	}
	return lines
}

// unitSpace matches the space between a number and the unit after it, which a line
// must not break at.
var unitSpace = regexp.MustCompile(`(\d) (ms|s|min|h|tok/s|requests/s|req/s|%|MiB|GiB|users?\b|requests?\b)`)

// firstOf is the first non-empty string.
func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// counts is the first line: active, requests, ok, errors (ranked over the last minute,
// with the totals).
func (p *statusPanel) counts() string {
	d, st := p.data, p.st
	sep := st.Faint.Render(" · ")
	load := ""
	if d.Load != "" {
		load = st.Value.Render(d.Load) + sep
	}
	return load + st.Faint.Render("active ") + st.Value.Render(fmt.Sprint(d.Active)) + sep +
		st.Faint.Render("requests ") + st.Value.Render(fmt.Sprint(d.Requests)) + sep +
		st.Faint.Render("ok ") + st.Value.Render(fmt.Sprint(d.Succeeded)) + sep +
		st.Faint.Render("errors ") + p.errorWords()
}

// errorWords are the errors by kind: most frequent over the last minute first, then the
// total; without a recent error, the totals by kind; "none" without any.
func (p *statusPanel) errorWords() string {
	d, st := p.data, p.st
	total := errorCount(d.Errors)
	if total == 0 {
		return st.Good.Render("none")
	}
	if d.Recent == nil {
		return st.Bad.Render(strings.Join(errorKinds(d.Errors), ", "))
	}
	if recent := errorKinds(d.Recent); len(recent) > 0 {
		return st.Faint.Render("last min ") + st.Bad.Render(strings.Join(recent, ", ")) +
			st.Faint.Render(fmt.Sprintf(" · %d in all", total))
	}
	return st.Good.Render("none in the last min") + st.Faint.Render(" · ") +
		st.Warn.Render(fmt.Sprintf("%d in all: %s", total, strings.Join(errorKinds(d.Errors), ", ")))
}

// attention is what needs the viewer's eye: silent streams, and the last error.
func (p *statusPanel) attention() string {
	d, st := p.data, p.st
	var parts []string
	if d.Silent > 0 {
		parts = append(parts, st.Warn.Render(silenceWords(d.Silent, d.SilentFor)))
	}
	if d.LastError != "" {
		parts = append(parts, st.Faint.Render("last error: ")+st.Bad.Render(d.LastError))
	}
	return strings.Join(parts, st.Faint.Render(" · "))
}

// silenceWords is e.g. "32 streams silent for 15 s" (no token for that long).
func silenceWords(n int, d time.Duration) string {
	s := "streams"
	if n == 1 {
		s = "stream"
	}
	return fmt.Sprintf("%d %s silent for %d s (no token)", n, s, int(d/time.Second))
}

// verdict is one endpoint's verdict sentence (model.EndpointJudgement.Verdict), whole
// and short (for narrow screens), with its severity.
type verdict struct {
	Full, Medium, Short string
	Severity            model.Severity
}

// verdicts are the verdict lines, each in the form that fits the width, coloured by
// severity: green when a capacity was found, amber when it was not measured, red when
// no level meets the criteria.
func (p *statusPanel) verdicts() []string {
	var out []string
	for _, v := range p.data.Verdicts {
		s := v.Full
		if ansi.StringWidth(s) > p.w && v.Medium != "" {
			s = v.Medium
		}
		if ansi.StringWidth(s) > p.w {
			s = wholeClauses(v.Short, p.w)
		}
		if s == "" {
			continue
		}
		out = append(out, severityStyle(p.st, v.Severity).Render(s))
	}
	return out
}

// wholeClauses is s when it fits w columns, else its longest run of whole clauses
// ("; "-separated) that does: the capacity without the saturation beside it, never a
// clause cut mid-word. A first clause too wide for w is left for the panel to cut.
func wholeClauses(s string, w int) string {
	for ansi.StringWidth(s) > w {
		i := strings.LastIndex(s, "; ")
		if i < 0 {
			break
		}
		s = s[:i]
	}
	return s
}

// wholeCommaClauses is s when it fits w columns, else its longest run of whole ", "
// clauses that does ("waiting for 8 requests and 3 figures, ~5 more" of "..., ~20s");
// the first clause, cut, when even it does not fit.
func wholeCommaClauses(s string, w int) string {
	for ansi.StringWidth(s) > w {
		i := strings.LastIndex(s, ", ")
		if i < 0 {
			break
		}
		s = s[:i]
	}
	return s
}

// severityStyle is the style of a statement of severity sev: Bad for a problem, Warn
// for a warning, Good for the rest.
func severityStyle(st Styles, sev model.Severity) lipgloss.Style {
	switch sev {
	case model.SevProblem:
		return st.Bad
	case model.SevWarning:
		return st.Warn
	}
	return st.Good
}

// errorCount is the number of failures in errs, canceled requests left out.
func errorCount(errs map[model.ErrorKind]int) int {
	n := 0
	for k, c := range errs {
		if k != model.ErrCanceled && c > 0 {
			n += c
		}
	}
	return n
}
