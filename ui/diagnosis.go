package ui

import (
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// onNotices says what Step did: the ramp's and the server's notices in the status line;
// of the diagnosis, the outage's start and end (which the status line's counts would
// otherwise leave to be guessed). Then an endpoint whose every recent answer is refused
// for good stops loading (stopFatal).
func (m *root) onNotices(ns []engine.Notice) {
	for _, n := range ns {
		if n.Shown() { // what the time series records as said, for replay
			m.show(n.Bad(), n.String())
		}
	}
	m.stopFatal()
}

// stopFatal stops loading each endpoint whose every recent request (at least 5) was
// refused for good (HTTP 401, 403 or 404): more load only adds failures. It says why,
// and that R retries it.
func (m *root) stopFatal() {
	for i := range m.eng.Len() {
		if m.fatal[i] || !m.eng.Fatal(i) || m.eng.Control(i).Paused() {
			continue
		}
		m.fatal[i] = true
		m.eng.Pause(i)
		why := "every answer is refused"
		if fs := m.eng.Diagnosis(i); len(fs) > 0 {
			why = fs[0].Text
		}
		m.say(true, "stopped loading %s (R retries): %s", m.eng.Info(i).Name, why)
		m.keys.Retry.SetEnabled(true)
		m.frameDirty = true
	}
}

// retry loads again the endpoints stopped for refused answers (R).
func (m *root) retry() {
	var names []string
	for i, stopped := range m.fatal {
		if stopped {
			m.fatal[i] = false
			m.eng.Retry(i)
			names = append(names, m.eng.Info(i).Name)
		}
	}
	m.keys.Retry.SetEnabled(false)
	if len(names) == 0 {
		return
	}
	m.say(false, "retrying %s (R): loading again", strings.Join(names, ", "))
}

// resumed forgets that endpoint i was stopped for refused answers (p resumed it).
func (m *root) resumed(i int) {
	if m.fatal[i] {
		m.fatal[i] = false
		m.eng.Retry(i)
		m.keys.Retry.SetEnabled(slices.Contains(m.fatal, true))
	}
}

// toggleDiagnosis shows or hides every finding of the focused endpoint (d).
func (m *root) toggleDiagnosis() {
	m.showDiag = !m.showDiag
	m.frameDirty = true
}

// diagnosisView is the findings of the focused endpoint, in place of the curve and
// the table (d).
func (m *root) diagnosisView(w, h int) string {
	req, _, errs := m.eng.Book(m.focus).Totals()
	failed := sumKinds(m.errWin[m.focus].Recent(errs))
	return findingsView(m.st, m.eng.Info(m.focus).Name, m.eng.Diagnosis(m.focus), m.eng.Findings(m.focus), req, failed, w, h)
}

// findingsView is an endpoint's findings (the live screen's and replay's d): each
// finding now, most telling first, with its evidence; then the findings of the run
// (all) that held earlier and no longer do, with when they held. The words are the
// judgement's (model.DiagnosisStatements).
func findingsView(st Styles, name string, now, all []model.Finding, req, failed, w, h int) string {
	lines := []string{st.Title.Render("diagnosis of "+name) + st.Faint.Render(" · d closes")}
	ds := model.DiagnosisStatements(now, req, failed, true)
	if len(ds) == 0 {
		lines = append(lines, st.Faint.Render("no answer yet"))
	}
	for _, d := range ds {
		lines = append(lines, statementLines(st, d, w)...)
	}
	var earlier []model.Finding
	for _, f := range all {
		if !slices.ContainsFunc(now, func(g model.Finding) bool { return g.Rule == f.Rule }) {
			earlier = append(earlier, f)
		}
	}
	if len(earlier) > 0 {
		lines = append(lines, "", st.Faint.Render("earlier in the run:"))
		for _, d := range model.DiagnosisStatements(earlier, req, 0, true) {
			text := d.Text
			if d.Held != "" {
				text += " (" + d.Held + ")"
			}
			lines = append(lines, indented("  ", text, w, st.Faint.Render)...)
		}
	}
	return fitBlock(strings.Join(wrapAll(lines, w), "\n"), w, h)
}

// toldView is the run's diagnosis as its judgement said it (replay's d at the end of a
// recording): each statement with when it held and its evidence, as bench's Markdown
// lists them.
func toldView(st Styles, name string, ds []model.Statement, w, h int) string {
	lines := []string{st.Title.Render("diagnosis of "+name+", the run's") + st.Faint.Render(" · d closes")}
	for _, d := range ds {
		if d.Held != "" {
			d.Text += " (" + d.Held + ")"
		}
		lines = append(lines, statementLines(st, d, w)...)
	}
	return fitBlock(strings.Join(wrapAll(lines, w), "\n"), w, h)
}

// inPlaceOfBody lays the findings view out in place of the curve and the table (d):
// the layout's body as one block, and that block.
func inPlaceOfBody(l layout, view func(w, h int) string) (layout, string) {
	h := l.Curve + l.Table
	if l.Beside {
		h = max(l.Curve, l.Table)
	}
	l.Beside, l.Curve, l.Table = false, h, 0
	return l, view(l.Width, h)
}

// statementLines is one statement of the diagnosis: its words in its severity's
// colour, its evidence under it.
func statementLines(st Styles, d model.Statement, w int) []string {
	mark := "·"
	switch d.Severity {
	case model.SevProblem:
		mark = "✗"
	case model.SevWarning:
		mark = "!"
	}
	style := findingStyle(st, d.Severity)
	if d.Kind == model.SayHealthy {
		mark, style = "✓", st.Good
	}
	out := indented(mark+" ", d.Text, w, style.Render)
	for _, e := range d.Evidence {
		if e != "" {
			out = append(out, indented("    ", e, w, st.Faint.Render)...)
		}
	}
	return out
}

// findingStyle is the colour of a diagnosis statement of weight sev: as the verdict's
// (severityStyle) for a problem or a warning, plain for information.
func findingStyle(st Styles, sev model.Severity) lipgloss.Style {
	if sev == model.SevProblem || sev == model.SevWarning {
		return severityStyle(st, sev)
	}
	return st.Text
}

// indented wraps text at w columns after a lead, its following lines indented as far
// as the lead, each line styled.
func indented(lead, text string, w int, style func(...string) string) []string {
	pad := strings.Repeat(" ", ansi.StringWidth(lead))
	var out []string
	for i, l := range strings.Split(ansi.Wrap(text, max(w-len(pad), 10), " "), "\n") {
		if i == 0 {
			out = append(out, style(lead+l))
		} else {
			out = append(out, style(pad+l))
		}
	}
	return out
}

// wrapAll wraps every line at w columns (by display width; styles kept).
func wrapAll(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		if w <= 0 || ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(l, w, " "), "\n")...)
	}
	return out
}
