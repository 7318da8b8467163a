package ui

import (
	"fmt"
	"slices"
	"strings"

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
		switch {
		case n.Kind == engine.LevelStarted:
		case n.Kind == engine.Diagnosed && n.Rule != model.DiagDown && n.Rule != model.DiagBack:
		default:
			m.say(n.Bad(), "%s", n)
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
// the table (d): each finding now, most telling first, with its evidence; then the
// findings that held earlier in the run and no longer do.
func (m *root) diagnosisView(w, h int) string {
	st := m.st
	i := m.focus
	now := m.eng.Diagnosis(i)
	req, _, _ := m.eng.Book(i).Totals()
	lines := []string{st.Title.Render("diagnosis of "+m.eng.Info(i).Name) + st.Faint.Render(" · d closes")}
	if len(now) == 0 {
		lines = append(lines, st.Good.Render(healthyWords(req)))
	}
	for _, f := range now {
		lines = append(lines, findingLines(st, f, w)...)
	}
	var earlier []model.Finding
	for _, f := range m.eng.Findings(i) {
		if !slices.ContainsFunc(now, func(g model.Finding) bool { return g.Rule == f.Rule }) {
			earlier = append(earlier, f)
		}
	}
	if len(earlier) > 0 {
		lines = append(lines, "", st.Faint.Render("earlier in the run:"))
		for _, f := range earlier {
			lines = append(lines, indented("  ", fmt.Sprintf("%s (from %s to %s)", f.Text, runSecs(f.FirstS), runSecs(f.LastS)), w, st.Faint.Render)...)
		}
	}
	return fitBlock(strings.Join(wrapAll(lines, w), "\n"), w, h)
}

// findingLines is one finding: its words in its severity's colour, its evidence under it.
func findingLines(st Styles, f model.Finding, w int) []string {
	style := st.Text
	mark := "·"
	switch f.Severity {
	case model.SevProblem:
		style, mark = st.Bad, "✗"
	case model.SevWarning:
		style, mark = st.Warn, "!"
	}
	out := indented(mark+" ", f.Text, w, style.Render)
	for _, e := range f.Evidence {
		if e != "" {
			out = append(out, indented("    ", e, w, st.Faint.Render)...)
		}
	}
	return out
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

// runSecs is a time of the run in words: "20 s", "5 min 12 s".
func runSecs(s float64) string {
	n := int(s + 0.5)
	if n < 120 {
		return fmt.Sprintf("%d s", n)
	}
	return fmt.Sprintf("%d min %d s", n/60, n%60)
}

// healthyWords is what the diagnosis says without a finding: nothing wrong once
// requests ended, or that none has yet.
func healthyWords(requests int) string {
	if requests == 0 {
		return "no answer yet"
	}
	return model.NothingWrong + fmt.Sprintf(" (%d %s)", requests, plural(requests, "request"))
}
