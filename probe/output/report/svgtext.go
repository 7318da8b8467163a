package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// outlinedSVG is an SVG canvas whose text is drawn as the outlines of the glyphs the
// charts' font has, so that the picture looks the same in every viewer: a viewer
// lacking the font would otherwise substitute a wider one (DejaVu Sans for Liberation
// Sans) and the verdict would run off the edge and the legends' text onto their
// swatches. Viewers ignore fonts embedded with @font-face in many places (librsvg, so
// GNOME's viewers and most converters), so the glyphs are drawn, not embedded: each
// glyph the picture uses once, as a path in <defs>, placed with <use> wherever it
// appears. An invisible copy of each text stays beside it, stretched to the drawn
// width, so that the text can still be searched, selected and read aloud.
type outlinedSVG struct {
	*vgsvg.Canvas
	runs []textRun
}

// textRun is one text the charts drew: its face, baseline origin and string.
type textRun struct {
	face font.Face
	at   vg.Point
	text string
}

func newOutlinedSVG(w, h vg.Length) *outlinedSVG {
	return &outlinedSVG{Canvas: vgsvg.New(w, h)}
}

// runToken stands for text run i in vgsvg's output until WriteTo draws the run.
func runToken(i int) string { return "tpsmon-text-run-" + strconv.Itoa(i) }

// runElement matches a placeholder text element as vgsvg writes it.
var runElement = regexp.MustCompile(`<text x="[^"]*" y="[^"]*" transform="scale\(1, -1\)"\s*(?:style="([^"]*)")?>tpsmon-text-run-(\d+)</text>`)

// FillString records the text and lets vgsvg write a placeholder where it goes (inside
// whatever transforms are in force, e.g. a rotated axis label).
func (c *outlinedSVG) FillString(f font.Face, pt vg.Point, s string) {
	if f.Font.Size == 0 || s == "" {
		return
	}
	c.runs = append(c.runs, textRun{face: f, at: pt, text: s})
	c.Canvas.FillString(f, pt, runToken(len(c.runs)-1))
}

// WriteTo writes the SVG with every text run drawn as glyph outlines.
func (c *outlinedSVG) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	if _, err := c.Canvas.WriteTo(&buf); err != nil {
		return 0, err
	}
	g := newGlyphSet()
	var failed error
	body := runElement.ReplaceAllStringFunc(buf.String(), func(el string) string {
		m := runElement.FindStringSubmatch(el)
		i, _ := strconv.Atoi(m[2])
		out, err := g.draw(c.runs[i], m[1])
		if err != nil && failed == nil {
			failed = err
		}
		return out
	})
	if failed != nil {
		return 0, failed
	}
	// The glyphs' paths go right after the <svg> element's start tag.
	start := strings.Index(body, "<svg")
	end := strings.Index(body[max(start, 0):], ">\n") + max(start, 0)
	if start < 0 || end < start {
		return 0, fmt.Errorf("report: unexpected SVG from the chart library")
	}
	n, err := io.WriteString(w, body[:end+2]+g.defs()+body[end+2:])
	return int64(n), err
}

// glyphSet is the glyphs a picture uses, each defined once.
type glyphSet struct {
	buf   sfnt.Buffer
	ids   map[glyphKey]string // "" for a glyph without outline (a space)
	paths strings.Builder
}

type glyphKey struct {
	face *sfnt.Font
	idx  sfnt.GlyphIndex
}

func newGlyphSet() *glyphSet { return &glyphSet{ids: map[glyphKey]string{}} }

// defs is the <defs> element with every glyph used.
func (g *glyphSet) defs() string {
	if g.paths.Len() == 0 {
		return ""
	}
	return "<defs>\n" + g.paths.String() + "</defs>\n"
}

// draw is run r as a group of glyphs placed with the font's advances and kerning (as
// gonum/plot measures text, so the layout holds), followed by its invisible text.
// style is the placeholder's style (font and fill colour).
func (g *glyphSet) draw(r textRun, style string) (string, error) {
	f := r.face.Face
	upem := f.UnitsPerEm()
	ppem := fixed.Int26_6(upem) // coordinates come out in font units
	scale := r.face.Font.Size.Points() / float64(upem)
	var b strings.Builder
	fmt.Fprintf(&b, `<g transform="translate(%s %s) scale(%s %s)" style="%s">`,
		num5(r.at.X.Points()), num5(r.at.Y.Points()), num5(scale), num5(-scale), fillOnly(style))
	x := fixed.Int26_6(0)
	prev, hasPrev := sfnt.GlyphIndex(0), false
	for _, ch := range r.text {
		idx, err := f.GlyphIndex(&g.buf, ch)
		if err != nil {
			return "", err
		}
		if hasPrev {
			if k, err := f.Kern(&g.buf, prev, idx, ppem, 0); err == nil {
				x += k
			}
		}
		id, err := g.glyph(f, idx, ppem)
		if err != nil {
			return "", err
		}
		if id != "" {
			if x == 0 {
				fmt.Fprintf(&b, `<use xlink:href="#%s"/>`, id)
			} else {
				fmt.Fprintf(&b, `<use xlink:href="#%s" x="%d"/>`, id, x)
			}
		}
		adv, err := f.GlyphAdvance(&g.buf, idx, ppem, 0)
		if err != nil {
			return "", err
		}
		x += adv
		prev, hasPrev = idx, true
	}
	b.WriteString("</g>\n")
	width := float64(x) * scale
	fmt.Fprintf(&b, `<text x="%s" y="%s" transform="scale(1, -1)" style="%s;fill-opacity:0" textLength="%s" lengthAdjust="spacingAndGlyphs">%s</text>`+"\n",
		num5(r.at.X.Points()), num5(-r.at.Y.Points()), style, num5(width), html.EscapeString(r.text))
	return b.String(), nil
}

// glyph defines glyph idx of f once and returns its id ("" when it has no outline).
func (g *glyphSet) glyph(f *sfnt.Font, idx sfnt.GlyphIndex, ppem fixed.Int26_6) (string, error) {
	k := glyphKey{f, idx}
	if id, ok := g.ids[k]; ok {
		return id, nil
	}
	segs, err := f.LoadGlyph(&g.buf, idx, ppem, nil)
	if err != nil {
		return "", err
	}
	if len(segs) == 0 {
		g.ids[k] = ""
		return "", nil
	}
	id := "tg" + strconv.Itoa(len(g.ids))
	g.ids[k] = id
	fmt.Fprintf(&g.paths, `<path id="%s" d="%s"/>`+"\n", id, outline(segs))
	return id, nil
}

// outline is a glyph's segments as SVG path data, in font units, y down.
func outline(segs sfnt.Segments) string {
	var b strings.Builder
	pt := func(p fixed.Point26_6) {
		b.WriteString(strconv.Itoa(int(p.X)))
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(int(p.Y)))
	}
	for i, s := range segs {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			if i > 0 {
				b.WriteByte('Z')
			}
			b.WriteByte('M')
			pt(s.Args[0])
		case sfnt.SegmentOpLineTo:
			b.WriteByte('L')
			pt(s.Args[0])
		case sfnt.SegmentOpQuadTo:
			b.WriteByte('Q')
			pt(s.Args[0])
			b.WriteByte(' ')
			pt(s.Args[1])
		case sfnt.SegmentOpCubeTo:
			b.WriteByte('C')
			pt(s.Args[0])
			b.WriteByte(' ')
			pt(s.Args[1])
			b.WriteByte(' ')
			pt(s.Args[2])
		}
	}
	b.WriteByte('Z')
	return b.String()
}

// fillOnly keeps the fill of a text's style (the font is the outlines').
func fillOnly(style string) string {
	var keep []string
	for _, p := range strings.Split(style, ";") {
		if strings.HasPrefix(p, "fill") {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, ";")
}

// num5 is x with at most 5 significant digits, as vgsvg writes numbers.
func num5(x float64) string { return strconv.FormatFloat(x, 'g', 5, 64) }
