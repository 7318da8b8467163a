package report

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Formats are the report formats, by file extension.
var Formats = []string{"html", "svg", "png", "md"}

// FormatOf is the format of a report file, from its extension.
func FormatOf(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	for _, f := range Formats {
		if ext == f {
			return f, nil
		}
	}
	return "", fmt.Errorf("%q: the report format comes from the file's extension: .html, .svg, .png or .md", path)
}

// Write renders the report of runs in format (one of Formats) to w.
func Write(w io.Writer, format string, runs []*Run) error {
	series := SeriesOf(runs)
	if len(series) == 0 {
		return fmt.Errorf("no endpoint in the results: nothing to report")
	}
	switch format {
	case "html":
		return writeHTML(w, runs, series)
	case "md":
		_, err := io.WriteString(w, Markdown(runs, series))
		return err
	case "svg", "png":
		return writePoster(w, format, runs, series)
	}
	return fmt.Errorf("unknown report format %q: use html, svg, png or md", format)
}

// Poster geometry: the charts' area, and the text around them.
const (
	posterWidth  = 10 * vg.Inch
	chartsHeight = 6.6 * vg.Inch
	posterMargin = 0.3 * vg.Inch
	posterDPI    = 128         // 1280 pixels wide
	swatchWidth  = swatchW + 6 // the series' mark before its verdict, and a gap
)

// posterText is the text of a poster, worded and wrapped to its width.
type posterText struct {
	title, verdict, footer []string
	swatch                 []int // per verdict line: the series whose mark (colour, line, marker) it has, -1 for none, posterHeading for a section's heading
}

// posterChanges is the most sentences of a comparison a picture lists: a slide has no
// room for a regression at every level (the HTML and Markdown list them all).
const posterChanges = 4

// posterItems are the sentences of a comparison a picture lists: the first
// posterChanges, and how many more the other formats list.
func posterItems(items []string) []string {
	if len(items) <= posterChanges {
		return items
	}
	return append(slices.Clip(items[:posterChanges-1]), fmt.Sprintf("and %d more (the HTML and Markdown reports list them all)", len(items)-posterChanges+1))
}

func newPosterText(runs []*Run, series []Series) posterText {
	width := posterWidth - 2*posterMargin
	v := VerdictOf(series)
	var t posterText
	t.title = wrap(textStyle(color.Black, vg.Points(16), true), width, Title(series))
	var lines []string
	var owner []int // per line: the series whose colour marks it, or -1
	for i, l := range v.Lines {
		lines, owner = append(lines, l.Label+": "+l.Text()), append(owner, i)
		more := append(slices.Clip(l.Failures()), l.Notes()...) // one a line, as every surface lists them
		if l.Criteria != "" {
			more = append(more, "Criteria: "+l.Criteria)
		}
		for _, m := range more {
			lines, owner = append(lines, "· "+m), append(owner, -1)
		}
	}
	for _, c := range v.Changes {
		lines, owner = append(lines, c.Text), append(owner, -1)
		for _, i := range posterItems(c.Items) {
			lines, owner = append(lines, "· "+i), append(owner, -1)
		}
	}
	if v.Criteria != "" {
		lines, owner = append(lines, "Criteria: "+v.Criteria+"."), append(owner, -1)
	}
	lines, owner = posterDiagnosis(v, lines, owner)
	st := textStyle(color.Black, vg.Points(11), false)
	for i, l := range lines {
		for j, w := range wrap(st, width-swatchWidth, l) {
			t.verdict = append(t.verdict, w)
			if j == 0 {
				t.swatch = append(t.swatch, owner[i])
			} else {
				t.swatch = append(t.swatch, min(owner[i], -1))
			}
		}
	}
	foot := textStyle(color.Black, vg.Points(9), false)
	for _, r := range runs {
		line := r.SettingsLine()
		if len(runs) > 1 {
			line = runLabels([]*Run{r})[0] + ": " + line
		}
		t.footer = append(t.footer, wrap(foot, width, line)...)
	}
	return t
}

// posterHeading marks a poster's line as a section's heading (drawn bold).
const posterHeading = -2

// posterDiagnosis appends the poster's Diagnosis section to its lines: under each
// series' label (marked by its colour), each statement with its weight and when it
// held, its evidence indented under it.
func posterDiagnosis(v Verdict, lines []string, owner []int) ([]string, []int) {
	if !v.Diagnosed() {
		return lines, owner
	}
	lines, owner = append(lines, "Diagnosis"), append(owner, posterHeading)
	for i, l := range v.Lines {
		ds := l.Diagnosis()
		if len(ds) == 0 {
			continue
		}
		lines, owner = append(lines, l.Label+":"), append(owner, i)
		for _, d := range ds {
			lines, owner = append(lines, "· "+d.HeldLine()), append(owner, -1)
			for _, e := range d.Evidence {
				lines, owner = append(lines, "    "+e), append(owner, -1)
			}
		}
	}
	return lines, owner
}

// Title names what the report is about.
func Title(series []Series) string {
	labels := make([]string, len(series))
	for i := range series {
		labels[i] = series[i].Label
	}
	t := "tpsmon: degradation curve of " + strings.Join(labels, " vs ")
	if len(series) > 0 && series[0].Judgement.Trace != nil {
		t = "tpsmon: trace replayed on " + strings.Join(labels, " vs ")
	}
	for i := range series {
		if series[i].Endpoint.Simulated {
			return t + " (simulated)"
		}
	}
	return t
}

// writePoster draws one picture for slides and tickets: the verdict on top, the
// charts, and the settings at the bottom.
func writePoster(w io.Writer, format string, runs []*Run, series []Series) error {
	cs, err := newCharts(series)
	if err != nil {
		return err
	}
	pal := newPalette()
	t := newPosterText(runs, series)
	titleH, lineH, footH := vg.Points(21), vg.Points(15), vg.Points(12)
	header := titleH*vg.Length(len(t.title)) + lineH*vg.Length(len(t.verdict)) + vg.Points(10)
	footer := footH * vg.Length(len(t.footer))
	height := posterMargin*2 + header + chartsHeight + footer + vg.Points(10)

	var cw vg.CanvasWriterTo
	if format == "png" {
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(posterWidth, height), vgimg.UseDPI(posterDPI), vgimg.UseBackgroundColor(color.White))}
	} else {
		cw = newOutlinedSVG(posterWidth, height)
	}
	dc := draw.New(cw)
	dc.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: posterWidth, Y: 0}, {X: posterWidth, Y: height}, {X: 0, Y: height}})

	x, y := posterMargin, height-posterMargin
	for _, l := range t.title {
		y -= titleH
		dc.FillText(textStyle(pal.text, vg.Points(16), true), vg.Point{X: x, Y: y}, l)
	}
	for i, l := range t.verdict {
		y -= lineH
		if k := t.swatch[i]; k >= 0 {
			drawSwatch(dc, pal, k, vg.Point{X: x, Y: y - 1}, swatchW, swatchH)
		}
		st := textStyle(pal.text, vg.Points(11), t.swatch[i] == posterHeading)
		text := strings.TrimLeft(l, " ") // an indent as an offset: SVG viewers collapse leading spaces
		dc.FillText(st, vg.Point{X: x + swatchWidth + st.Width(l[:len(l)-len(text)]), Y: y}, text)
	}
	y -= vg.Points(10)
	drawCharts(draw.Crop(dc, posterMargin, -posterMargin, y-chartsHeight, y-height), cs)
	y -= chartsHeight + vg.Points(6)
	for _, l := range t.footer {
		y -= footH
		dc.FillText(textStyle(pal.faint, vg.Points(9), false), vg.Point{X: x, Y: y}, l)
	}
	_, err = cw.WriteTo(w)
	return err
}

// wrap breaks s into lines no wider than width in style st, between words; each line
// keeps the spaces s starts with (an indented line stays indented).
func wrap(st draw.TextStyle, width vg.Length, s string) []string {
	var lines []string
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	cur := ""
	for _, word := range strings.Fields(s) {
		next := lead + word
		if cur != "" {
			next = cur + " " + word
		}
		if cur != "" && st.Width(next) > width {
			lines = append(lines, cur)
			next = lead + word
		}
		cur = next
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
