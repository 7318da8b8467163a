// Package themes holds tpsmon's colour palettes: role-named colours, one Theme each.
// The ui package turns a Theme into lipgloss styles in one place; nothing else in
// tpsmon names a colour.
package themes

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
)

// Theme is a palette of role-named colours. A nil colour means "the terminal's own"
// (no colour sequence). Mono themes set every colour to nil and Mono to true: the ui
// then distinguishes roles with bold, faint and reverse only.
type Theme struct {
	Name    string
	Primary color.Color // titles, the focused endpoint
	Accent  color.Color // badges, the open level, markers
	Text    color.Color // ordinary text
	Faint   color.Color // labels, units, axes, help descriptions
	Border  color.Color // separators and rules
	Good    color.Color // meets the SLO
	Warn    color.Color // near the SLO
	Bad     color.Color // below the SLO, errors
	// Series colours one curve or sparkline each, in order (endpoint 0, 1, ...).
	Series []color.Color
	Mono   bool
}

// SeriesColor returns the colour of series i, cycling through Series (nil when empty).
func (t Theme) SeriesColor(i int) color.Color {
	if len(t.Series) == 0 {
		return nil
	}
	return t.Series[i%len(t.Series)]
}

// Names lists the built-in themes in the order `t` cycles through them.
func Names() []string { return []string{"default", "high-contrast", "colorblind", "mono"} }

// Get returns the named theme for a dark (dark = true) or light terminal background.
// The empty name is "default". Unknown names are an error that lists the valid ones.
func Get(name string, dark bool) (Theme, error) {
	switch strings.ToLower(name) {
	case "", "default":
		return Default(dark), nil
	case "high-contrast", "highcontrast", "contrast":
		return HighContrast(dark), nil
	case "colorblind", "colourblind", "okabe-ito", "cb":
		return ColorBlind(dark), nil
	case "mono", "none", "nocolor":
		return Mono(), nil
	}
	return Theme{}, fmt.Errorf("unknown theme %q: use one of %s", name, strings.Join(Names(), ", "))
}

// Default is a calm palette that adapts to light and dark backgrounds.
func Default(dark bool) Theme {
	ld := lipgloss.LightDark(dark)
	c := lipgloss.Color
	return Theme{
		Name:    "default",
		Primary: ld(c("#5A3FC0"), c("#A78BFA")),
		Accent:  ld(c("#B4530A"), c("#FBBF24")),
		Text:    ld(c("#1F2328"), c("#E6E6E6")),
		Faint:   ld(c("#6E7781"), c("#8B949E")),
		Border:  ld(c("#D0D7DE"), c("#3D444D")),
		Good:    ld(c("#1A7F37"), c("#3FB950")),
		Warn:    ld(c("#9A6700"), c("#D29922")),
		Bad:     ld(c("#CF222E"), c("#F85149")),
		Series: []color.Color{
			ld(c("#0969DA"), c("#58A6FF")),
			ld(c("#BF3989"), c("#F778BA")),
			ld(c("#1B7C83"), c("#39C5CF")),
			ld(c("#8250DF"), c("#D2A8FF")),
			ld(c("#953800"), c("#FFA657")),
		},
	}
}

// HighContrast uses the strongest colours of the 16-colour ANSI set, for projectors
// and poor eyesight; it follows the terminal's own palette.
func HighContrast(dark bool) Theme {
	ld := lipgloss.LightDark(dark)
	text := ld(lipgloss.Black, lipgloss.BrightWhite)
	return Theme{
		Name:    "high-contrast",
		Primary: text,
		Accent:  ld(lipgloss.Blue, lipgloss.BrightYellow),
		Text:    text,
		Faint:   text,
		Border:  text,
		Good:    ld(lipgloss.Green, lipgloss.BrightGreen),
		Warn:    ld(lipgloss.Magenta, lipgloss.BrightYellow),
		Bad:     ld(lipgloss.Red, lipgloss.BrightRed),
		Series: []color.Color{
			ld(lipgloss.Blue, lipgloss.BrightCyan),
			ld(lipgloss.Magenta, lipgloss.BrightMagenta),
			ld(lipgloss.Red, lipgloss.BrightYellow),
			ld(lipgloss.Green, lipgloss.BrightGreen),
		},
	}
}

// Okabe-Ito: a palette distinguishable with every common colour-vision deficiency
// (Okabe and Ito, "Color Universal Design", 2008).
var (
	okabeOrange    = lipgloss.Color("#E69F00")
	okabeSkyBlue   = lipgloss.Color("#56B4E9")
	okabeGreen     = lipgloss.Color("#009E73")
	okabeYellow    = lipgloss.Color("#F0E442")
	okabeBlue      = lipgloss.Color("#0072B2")
	okabeVermilion = lipgloss.Color("#D55E00")
	okabePurple    = lipgloss.Color("#CC79A7")
)

// ColorBlind is the Okabe-Ito palette: good is blue, warn is orange, bad is vermilion,
// never red against green.
func ColorBlind(dark bool) Theme {
	ld := lipgloss.LightDark(dark)
	return Theme{
		Name:    "colorblind",
		Primary: ld(okabeBlue, okabeSkyBlue),
		Accent:  ld(okabeVermilion, okabeYellow),
		Text:    ld(lipgloss.Color("#000000"), lipgloss.Color("#FFFFFF")),
		Faint:   ld(lipgloss.Color("#555555"), lipgloss.Color("#AAAAAA")),
		Border:  ld(lipgloss.Color("#BBBBBB"), lipgloss.Color("#555555")),
		Good:    ld(okabeBlue, okabeSkyBlue),
		Warn:    okabeOrange,
		Bad:     okabeVermilion,
		Series:  []color.Color{ld(okabeBlue, okabeSkyBlue), okabeOrange, okabeGreen, okabePurple, ld(okabeVermilion, okabeYellow)},
	}
}

// Mono has no colour at all (NO_COLOR, or monochrome terminals).
func Mono() Theme { return Theme{Name: "mono", Mono: true} }
