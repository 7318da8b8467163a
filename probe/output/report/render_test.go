package report

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

func render(t *testing.T, format string, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, format, load(t, names...)); err != nil {
		t.Fatalf("Write(%s): %v", format, err)
	}
	return buf.Bytes()
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]string{"r.html": "html", "a/b.SVG": "svg", "x.png": "png", "x.md": "md"} {
		if got, err := FormatOf(path); err != nil || got != want {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	for _, path := range []string{"r.pdf", "report", "r.json"} {
		if _, err := FormatOf(path); err == nil || !strings.Contains(err.Error(), ".html, .svg, .png or .md") {
			t.Errorf("FormatOf(%q): err %v, want one listing the formats", path, err)
		}
	}
}

// remote matches anything that would make a browser or a mail client fetch a resource.
var remote = regexp.MustCompile(`(?i)<script|<link|<iframe|<img|\ssrc\s*=|\shref\s*=|url\(|@import`)

func TestHTMLIsSelfContainedVerdictFirst(t *testing.T) {
	page := string(render(t, "html", "base.json", "small-gpu.json"))
	if m := remote.FindString(page); m != "" {
		t.Errorf("the page loads something: %q", m)
	}
	if n := strings.Count(page, `<svg role="img"`); n != 1 {
		t.Fatalf("%d <svg> charts, want one inline chart", n)
	}
	if n := strings.Count(page, `<svg class="swatch"`); n != 4 {
		t.Errorf("%d series marks, want 4 (each series' verdict line and level table)", n)
	}
	verdict := strings.Index(page, "capacity at least 8 users (limit not reached: the highest level measured in full meets the criteria)")
	small := strings.Index(page, "capacity 2 users")
	chart := strings.Index(page, `<svg role="img"`)
	table := strings.Index(page, "<table")
	settings := strings.Index(page, ">Settings<")
	if verdict < 0 || small < 0 {
		t.Fatalf("verdict missing: base %d, small-gpu %d", verdict, small)
	}
	if !(verdict < chart && small < chart && chart < table && table < settings) {
		t.Errorf("order: verdict %d, chart %d, tables %d, settings %d; want verdict, curve, levels, settings", verdict, chart, table, settings)
	}
	for _, want := range []string{"max_tokens", "256", "128 tokens", "5 s", "2026-11-23 14:26 UTC", "SIMULATED", "small-gpu vs base"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	svg := page[chart : chart+strings.Index(page[chart:], "</svg>")+len("</svg>")]
	if err := xml.Unmarshal([]byte(svg), new(any)); err != nil {
		t.Errorf("inline SVG is not well-formed: %v", err)
	}
}

// curvePaths counts, per stroke colour, the unfilled paths of exactly n points: the
// curves of a series with n levels (legend samples have two points).
func curvePaths(svg string, n int) map[string]int {
	out := map[string]int{}
	re := regexp.MustCompile(`<path d="([^"]*)" style="fill:none;stroke:(#[0-9A-Fa-f]{6});stroke-width:2[;"]`)
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		if strings.Count(m[1], "L")+1 == n && !strings.Contains(m[1], "A") {
			out[strings.ToUpper(m[2])]++
		}
	}
	return out
}

func TestSVGOverlaysOneCurvePerSeriesAndChart(t *testing.T) {
	svg := string(render(t, "svg", "base.json", "small-gpu.json"))
	if err := xml.Unmarshal([]byte(svg), new(any)); err != nil {
		t.Fatalf("not well-formed SVG: %v", err)
	}
	pal := newPalette()
	got := curvePaths(svg, 4) // 4 levels each
	for i, label := range []string{"base", "small-gpu"} {
		c := strings.ToUpper(hex(pal.color(i)))
		if got[c] != 3 {
			t.Errorf("%s (%s): %d curves of 4 points, want 3 (per-user, aggregate, TTFT)", label, c, got[c])
		}
		// The per-user chart names the series' band with it.
		if n, m := strings.Count(svg, ">"+label+"</text>"), strings.Count(svg, ">"+label+": p50, band p10-p90</text>"); n != 2 || m != 1 {
			t.Errorf("%s named in %d legends and with its band in %d, want 2 and 1", label, n, m)
		}
	}
	for _, want := range []string{"base: capacity at least 8 users", "small-gpu: capacity 2 users", "below the target of 30 tok/s",
		"users (concurrent streams)", "tokens/s per user", "milliseconds", "(simulated)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestPNGIsAPicture(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(render(t, "png", "base.json", "small-gpu.json")))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 1280 || b.Dy() < 900 {
		t.Errorf("PNG is %dx%d, want 1280 wide and tall enough for the charts", b.Dx(), b.Dy())
	}
	// The background is white, not transparent: the picture goes on slides of any colour.
	if r, g, bl, a := img.At(2, 2).RGBA(); r>>8 != 255 || g>>8 != 255 || bl>>8 != 255 || a>>8 != 255 {
		t.Errorf("corner pixel %d,%d,%d,%d, want opaque white", r>>8, g>>8, bl>>8, a>>8)
	}
}

func TestMarkdownReport(t *testing.T) {
	md := string(render(t, "md", "base.json", "small-gpu.json"))
	for _, want := range []string{
		"## Verdict\n\n- **base**: capacity at least 8 users (limit not reached: the highest level measured in full meets the criteria)",
		"- **small-gpu**: capacity 2 users;",
		"| 8 | 31 | 0 | 52.2 | 47.6 | 59.7 | 412.6 |",
		"| 8 | 22 | 0 | 26.0 | 26.0 | 27.3 | 185.7 | 125.4 | 126.4 | 36.6 | no: per-user p50 26 tok/s < 30 tok/s |",
		"| max\\_tokens | 256 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "## Verdict") > strings.Index(md, "## Levels") || strings.Index(md, "## Levels") > strings.Index(md, "## Settings") {
		t.Error("sections out of order")
	}
}

func TestWriteWithoutEndpoints(t *testing.T) {
	r, err := Decode("empty.json", []byte(`{"schema":"tpsmon.bench/v1","endpoints":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Formats {
		if err := Write(new(bytes.Buffer), f, []*Run{r}); err == nil || !strings.Contains(err.Error(), "no endpoint") {
			t.Errorf("%s: err %v, want one saying there is nothing to report", f, err)
		}
	}
}

func TestWriteRunWithoutLevels(t *testing.T) {
	// Interrupted before any level ended: every format still says what there is.
	base := load(t, "base.json")[0]
	r := edited(t, base, "cut.json", func(r *model.Report) {
		r.Interrupted = true
		r.Endpoints[0].Levels = nil
		r.Endpoints[0].Capacity.Users = 0
	})
	for _, f := range Formats {
		var buf bytes.Buffer
		if err := Write(&buf, f, []*Run{r}); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if f != "png" && !strings.Contains(buf.String(), "capacity not measured (no level got past its warm-up)") {
			t.Errorf("%s: no verdict", f)
		}
	}
}
