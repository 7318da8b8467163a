package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/tpsmon/tpsmon/themes"
)

// Styles are every lipgloss style the screen uses. newStyles is the only place that
// reads a Theme's colours; panels use these roles and never name a colour.
type Styles struct {
	Title  lipgloss.Style // panel titles
	Text   lipgloss.Style
	Faint  lipgloss.Style // labels, units
	Value  lipgloss.Style // numbers
	Good   lipgloss.Style
	Warn   lipgloss.Style
	Bad    lipgloss.Style
	Badge  lipgloss.Style // SIMULATED, PAUSED, ALL
	Focus  lipgloss.Style // the focused endpoint
	Open   lipgloss.Style // the level being measured now
	Rule   lipgloss.Style // separators
	Axis   lipgloss.Style // chart axes
	Label  lipgloss.Style // chart labels
	Target lipgloss.Style // the SLO line on the curve
	Series []lipgloss.Style
	Help   help.Styles
	Theme  string
	IsMono bool
}

// SeriesStyle returns the style of series i (cycling).
func (s Styles) SeriesStyle(i int) lipgloss.Style {
	if len(s.Series) == 0 {
		return s.Text
	}
	return s.Series[i%len(s.Series)]
}

// newStyles builds every style from a theme.
func newStyles(t themes.Theme) Styles {
	base := lipgloss.NewStyle()
	if t.Mono {
		bold := base.Bold(true)
		faint := base.Faint(true)
		return Styles{
			Title: bold, Text: base, Faint: faint, Value: bold,
			Good: bold, Warn: base.Underline(true), Bad: base.Reverse(true),
			Badge: base.Reverse(true).Bold(true), Focus: bold.Underline(true), Open: bold,
			Rule: faint, Axis: faint, Label: faint, Target: faint,
			Series: []lipgloss.Style{base, bold, faint},
			Help: help.Styles{
				Ellipsis: faint, ShortKey: bold, ShortDesc: faint, ShortSeparator: faint,
				FullKey: bold, FullDesc: faint, FullSeparator: faint,
			},
			Theme: t.Name, IsMono: true,
		}
	}
	fg := func(c color.Color) lipgloss.Style {
		if c == nil {
			return base
		}
		return base.Foreground(c)
	}
	s := Styles{
		Title:  fg(t.Primary).Bold(true),
		Text:   fg(t.Text),
		Faint:  fg(t.Faint),
		Value:  fg(t.Text).Bold(true),
		Good:   fg(t.Good).Bold(true),
		Warn:   fg(t.Warn).Bold(true),
		Bad:    fg(t.Bad).Bold(true),
		Badge:  fg(t.Accent).Bold(true).Reverse(true),
		Focus:  fg(t.Primary).Bold(true).Underline(true),
		Open:   fg(t.Accent).Bold(true),
		Rule:   fg(t.Border),
		Axis:   fg(t.Border),
		Label:  fg(t.Faint),
		Target: fg(t.Warn),
		Theme:  t.Name,
	}
	for _, c := range t.Series {
		s.Series = append(s.Series, fg(c))
	}
	keyStyle := fg(t.Primary)
	s.Help = help.Styles{
		Ellipsis: s.Faint, ShortKey: keyStyle, ShortDesc: s.Faint, ShortSeparator: s.Rule,
		FullKey: keyStyle, FullDesc: s.Faint, FullSeparator: s.Rule,
	}
	return s
}
