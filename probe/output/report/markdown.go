package report

import (
	"fmt"
	"regexp"
	"strings"
)

// Markdown is the report as Markdown: the verdict, each series' level table, and the
// settings of each run.
func Markdown(runs []*Run, series []Series) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n## Verdict\n\n", Title(series))
	v := VerdictOf(series)
	for _, l := range v.Lines {
		fmt.Fprintf(&b, "- **%s**: %s\n", mdEscape(l.Label), mdEscape(l.Text()))
		for _, f := range l.Failures() {
			fmt.Fprintf(&b, "  - %s\n", mdEscape(f))
		}
		for _, n := range l.Notes() {
			fmt.Fprintf(&b, "  - %s\n", mdEscape(n))
		}
		if l.Criteria != "" {
			fmt.Fprintf(&b, "  - criteria: %s\n", l.Criteria)
		}
	}
	for _, c := range v.Changes {
		fmt.Fprintf(&b, "- %s\n", mdEscape(c.Text))
		for _, i := range c.Items {
			fmt.Fprintf(&b, "  - %s\n", mdEscape(i))
		}
	}
	if v.Criteria != "" {
		fmt.Fprintf(&b, "\nCriteria: %s.\n", v.Criteria)
	}
	if v.Diagnosed() {
		b.WriteString("\n## Diagnosis\n\n")
		for _, l := range v.Lines {
			if ds := l.Diagnosis(); len(ds) > 0 {
				fmt.Fprintf(&b, "- **%s**:\n", mdEscape(l.Label))
				writeDiagnosis(&b, ds, "  ", mdEscape)
			}
		}
	}
	b.WriteString("\n## Levels\n")
	for i := range series {
		fmt.Fprintf(&b, "\n### %s\n\n", mdEscape(strings.Join(heading(&series[i]), " · ")))
		header, rows := levelTable(&series[i])
		writeMDTable(&b, header, rows)
		if l := legend(rows); l != "" {
			b.WriteString("\n" + l + "\n")
		}
	}
	b.WriteString("\n## Settings\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "\n### %s\n\n", mdEscape(r.Name))
		var rows [][]string
		for _, s := range r.Settings() {
			rows = append(rows, []string{s.Name, s.Value})
		}
		writeMDTable(&b, []string{"setting", "value"}, rows)
	}
	return b.String()
}

// writeMDTable writes a Markdown table, numbers right-aligned (every column but the
// last two of a level table holds numbers; a two-column table is text).
func writeMDTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if len(header) > 2 && i < len(header)-1 {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = mdEscape(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

// mdEscape keeps a value from breaking a table or turning into markup ("<" only where
// it could open a tag: "26 < 30" stays readable as text).
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "\n", " ")
	return tagOpen.ReplaceAllString(r.Replace(s), "&lt;$1")
}

var tagOpen = regexp.MustCompile(`<([A-Za-z/!?])`)
