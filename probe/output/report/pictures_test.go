package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/tpsmon/tpsmon/model"
)

// svgDoc is what an SVG picture draws: its glyph definitions, and each text with the
// glyphs drawn for it.
type svgDoc struct {
	width float64
	defs  map[string]bool
	texts []svgText
}

type svgText struct {
	text, style      string
	x, length        float64
	uses, rotated    int // glyphs drawn for it; enclosing rotations
	undefinedGlyphs  int
	visibleTextStyle bool
}

// parseSVG reads the picture with encoding/xml: a glyph group (<g> of <use>) comes
// right before the invisible text it draws.
func parseSVG(t *testing.T, svg []byte) svgDoc {
	t.Helper()
	doc := svgDoc{defs: map[string]bool{}}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var uses []string
	var rotations []bool // per open <g>: whether it rotates
	var cur *svgText
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed SVG: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			a := attrs(e)
			switch e.Name.Local {
			case "svg":
				doc.width, _ = strconv.ParseFloat(strings.TrimSuffix(a["width"], "pt"), 64)
			case "path":
				if a["id"] != "" {
					doc.defs[a["id"]] = true
				}
			case "g":
				if strings.Contains(a["transform"], "translate(") && strings.Contains(a["transform"], "scale(") {
					uses = uses[:0]
				}
				rotations = append(rotations, strings.Contains(a["transform"], "rotate("))
			case "use":
				uses = append(uses, strings.TrimPrefix(a["href"], "#"))
			case "text":
				x, _ := strconv.ParseFloat(a["x"], 64)
				l, _ := strconv.ParseFloat(a["textLength"], 64)
				cur = &svgText{style: a["style"], x: x, length: l, uses: len(uses)}
				for _, r := range rotations {
					if r {
						cur.rotated++
					}
				}
				for _, u := range uses {
					if !doc.defs[u] {
						cur.undefinedGlyphs++
					}
				}
				cur.visibleTextStyle = !strings.Contains(a["style"], "fill-opacity:0")
				uses = uses[:0]
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "text":
				doc.texts = append(doc.texts, *cur)
				cur = nil
			case "g":
				rotations = rotations[:len(rotations)-1]
			}
		}
	}
	return doc
}

func attrs(e xml.StartElement) map[string]string {
	m := map[string]string{}
	for _, a := range e.Attr {
		m[a.Name.Local] = a.Value
	}
	return m
}

// TestSVGDrawsItsTextAsGlyphs: the SVG picture shows no text in a font of the viewer's
// choosing. Each text is the glyphs of the charts' own font, defined once in the file
// and placed as gonum/plot measured them (so that the verdict wraps inside the picture
// and legend text ends before its swatch), with an invisible copy for search and
// selection; and the file stays small.
func TestSVGDrawsItsTextAsGlyphs(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	svg := render(t, "svg", "base.json", "small-gpu.json")
	if len(svg) > 150_000 {
		t.Errorf("the SVG is %d bytes, want at most 150 kB", len(svg))
	}
	doc := parseSVG(t, svg)
	if len(doc.defs) < 40 || len(doc.texts) < 30 {
		t.Fatalf("%d glyphs defined, %d texts: want the verdict, titles, labels and legends drawn", len(doc.defs), len(doc.texts))
	}
	drawn := map[string]svgText{}
	for _, x := range doc.texts {
		drawn[x.text] = x
		if x.visibleTextStyle {
			t.Errorf("text %q is shown in a font the viewer picks, want it drawn as glyphs", x.text)
		}
		if want := len([]rune(strings.ReplaceAll(x.text, " ", ""))); x.uses != want {
			t.Errorf("text %q: %d glyphs drawn, want %d", x.text, x.uses, want)
		}
		if x.undefinedGlyphs > 0 {
			t.Errorf("text %q uses %d glyphs not defined in the file", x.text, x.undefinedGlyphs)
		}
		if x.rotated == 0 && x.x+x.length > doc.width-float64(posterMargin.Points())+0.5 {
			t.Errorf("text %q ends at %.1f pt, past the margin of a picture %.0f pt wide", x.text, x.x+x.length, doc.width)
		}
	}
	// Drawn exactly as wide as the poster's layout measured it (wrap).
	pt := newPosterText(runs, SeriesOf(runs))
	st := textStyle(color.Black, vg.Points(11), false)
	for _, line := range pt.verdict {
		x, ok := drawn[line]
		if !ok {
			t.Errorf("verdict line %q not drawn", line)
			continue
		}
		if w := st.Width(line).Points(); x.length < w-0.01 || x.length > w+0.01 {
			t.Errorf("verdict line %q drawn %.2f pt wide, laid out for %.2f pt", line, x.length, w)
		}
	}
}

// TestSVGLooksTheSameWithoutFonts renders the SVG with librsvg (GNOME's viewers, most
// converters) once with the machine's fonts and once with no font at all: the pictures
// are the same pixel for pixel, so a viewer that lacks Liberation Sans (and would
// substitute DejaVu Sans, wider) shows what tpsmon drew. It skips without rsvg-convert
// (Debian: librsvg2-bin).
func TestSVGLooksTheSameWithoutFonts(t *testing.T) {
	bin, err := exec.LookPath("rsvg-convert")
	if err != nil {
		t.Skip("rsvg-convert is not installed (Debian: apt-get install -y librsvg2-bin)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "report.svg")
	if err := os.WriteFile(src, render(t, "svg", "base.json", "small-gpu.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	noFonts := filepath.Join(dir, "fonts.conf")
	if err := os.WriteFile(noFonts, []byte(`<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">`+
		`<fontconfig><cachedir>`+filepath.Join(dir, "cache")+`</cachedir></fontconfig>`), 0o644); err != nil {
		t.Fatal(err)
	}
	draw := func(name string, env ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out := filepath.Join(dir, name)
		cmd := exec.CommandContext(ctx, bin, "-o", out, src)
		cmd.Env = append(os.Environ(), env...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("rsvg-convert: %v\n%s", err, msg)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	with, without := draw("fonts.png"), draw("nofonts.png", "FONTCONFIG_FILE="+noFonts)
	if !bytes.Equal(with, without) {
		t.Error("the SVG renders differently without fonts: some text depends on the viewer's fonts")
	}
}

// TestChartsNameEveryMark: each chart's legend names every line, band and mark on it
// (the target band and line, each series with its p10-p90 band, the capacity ◆, the
// TTFT limit when drawn), and the capacity each series' judgement found is marked ◆ on
// its three curves, at that level.
func TestChartsNameEveryMark(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	series := SeriesOf(runs)
	svg := string(render(t, "svg", "base.json", "small-gpu.json"))
	for want, n := range map[string]int{
		">below the target of 30 tok/s</text>": 1, ">base: p50, band p10-p90</text>": 1, ">small-gpu: p50, band p10-p90</text>": 1,
		">base</text>": 2, ">small-gpu</text>": 2, ">capacity</text>": 3,
	} {
		if got := strings.Count(svg, want); got != n {
			t.Errorf("%d legend entries %q, want %d", got, want, n)
		}
	}
	// ◆: four-point polygons in the "good" colour; one per series and chart, and one
	// in each chart's legend.
	pal := newPalette()
	diamond := regexp.MustCompile(`<path d="M[^"A]*L[^"A]*L[^"A]*L[^"A]*Z" style="fill:(?i:` + hex(pal.good) + `)"`)
	if got, want := len(diamond.FindAllString(svg, -1)), 3*len(series)+3; got != want {
		t.Errorf("%d capacity marks, want %d (each series' capacity on three charts, three legends)", got, want)
	}
	for _, s := range series {
		if s.Judgement.Capacity.Report().Users == 0 {
			t.Fatalf("%s: fixture without a capacity", s.Label)
		}
	}
	// A run without a capacity has no ◆ and no legend entry for it.
	none := edited(t, runs[0], "none.json", func(r *model.Report) {
		for i := range r.Endpoints[0].Levels {
			r.Endpoints[0].Levels[i].UserTPS.P50 = 5
		}
	})
	var buf bytes.Buffer
	if err := Write(&buf, "svg", []*Run{none}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), ">capacity</text>") || diamond.MatchString(buf.String()) {
		t.Error("a run without a capacity shows a ◆")
	}
}

// TestSeriesPartByMarkAndDash: overlaid series differ in marker and dash as well as in
// colour, on the charts and in the marks before their verdicts and tables (the poster
// and the HTML page), so that they part in grey print and for readers who do not tell
// the colours apart.
func TestSeriesPartByMarkAndDash(t *testing.T) {
	pal := newPalette()
	seen := map[string]int{}
	for i := range 4 {
		k := fmt.Sprintf("%v %T", pal.seriesLine(i).Dashes, pal.seriesGlyph(i).Shape)
		if j, dup := seen[k]; dup {
			t.Errorf("series %d and %d have the same dash and marker", j, i)
		}
		seen[k] = i
	}
	svg := string(render(t, "svg", "base.json", "small-gpu.json"))
	dashed := regexp.MustCompile(`style="fill:none;stroke:(#[0-9a-fA-F]{6});stroke-width:2;stroke-dasharray:`)
	dashedBy := map[string]int{}
	for _, m := range dashed.FindAllStringSubmatch(svg, -1) {
		dashedBy[strings.ToLower(m[1])]++
	}
	if dashedBy[hex(pal.color(0))] != 0 || dashedBy[hex(pal.color(1))] < 3 {
		t.Errorf("dashed lines by colour %v: want the first series solid, the second dashed on every chart", dashedBy)
	}
	page := string(render(t, "html", "base.json", "small-gpu.json"))
	sw := regexp.MustCompile(`(?s)<svg class="swatch".*?</svg>`).FindAllString(page, -1)
	if len(sw) != 4 || sw[0] == sw[1] || sw[0] != sw[2] || sw[1] != sw[3] {
		t.Errorf("HTML marks: %d, want 4, each series' the same before its verdict and its table and the two series' different", len(sw))
	}
}
