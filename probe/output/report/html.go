package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tpsmon/tpsmon/model"
)

// htmlPage is one self-contained file: styles inline, the charts an inline SVG, no
// script, nothing loaded from anywhere, so it reads offline and in a mail.
var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;color:{{.Text}};background:#fff;max-width:1100px;margin:24px auto;padding:0 16px;line-height:1.4}
h1{font-size:1.5em;margin:0 0 .6em}
h2{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid {{.Grid}}}
h3{font-size:1em;margin:1.2em 0 .4em}
.verdict{list-style:none;padding:0;margin:0 0 .6em;font-size:1.1em}
.verdict li{margin:.3em 0}
.fails{font-size:.85em;margin:0;padding-left:1.6em}
.fails li{margin:0}
.swatch{display:inline-block;width:2.2em;height:1em;margin-right:.4em;vertical-align:-.1em}
.ok{color:{{.Good}};font-weight:bold}
.bad{color:{{.Bad}};font-weight:bold}
.warn{color:{{.Warn}};font-weight:bold}
.faint{color:{{.Faint}}}
.sim{display:inline-block;padding:0 .4em;border:1px solid {{.Warn}};color:{{.Warn}};border-radius:3px;font-size:.85em}
figure{margin:1em 0}
figure svg{width:100%;height:auto}
figcaption{color:{{.Faint}};font-size:.9em}
table{border-collapse:collapse;font-size:.9em;margin:.3em 0}
th,td{border:1px solid {{.Grid}};padding:.25em .5em;text-align:right;vertical-align:top}
th{background:#f6f8fa}
td:last-child,th:last-child,table.kv td,table.kv th{text-align:left}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<h2>Verdict</h2>
<ul class="verdict">
{{range .Lines}}<li>{{.Swatch}}<b>{{.Label}}</b>: <span class="{{.Class}}">{{.Text}}</span>{{if .Simulated}} <span class="sim">SIMULATED</span>{{end}}
{{if or .Failures .Notes}}<ul class="fails">{{range .Failures}}<li>{{.}}</li>{{end}}{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}{{if .Criteria}}<div class="faint">criteria: {{.Criteria}}</div>{{end}}</li>
{{end}}{{range .Changes}}<li><span class="{{.Class}}">{{.Text}}</span>{{if .Items}}<ul class="fails">{{range .Items}}<li>{{.}}</li>{{end}}</ul>{{end}}</li>
{{end}}</ul>
{{if .Criteria}}<p class="faint">Criteria: {{.Criteria}}.</p>{{end}}
{{if .Diagnosis}}<h2>Diagnosis</h2>
<ul class="verdict">
{{range .Diagnosis}}<li>{{.Swatch}}<b>{{.Label}}</b>
<ul class="fails">{{range .Items}}<li>{{if .Weight}}<span class="{{.Class}}">{{.Weight}}</span>: {{end}}{{.Text}}{{if .Held}} <span class="faint">({{.Held}})</span>{{end}}{{if .Evidence}}<ul class="faint">{{range .Evidence}}<li>{{.}}</li>{{end}}</ul>{{end}}</li>
{{end}}</ul></li>
{{end}}</ul>
{{end}}<h2>Degradation curve</h2>
<figure>
{{.Chart}}
<figcaption>{{.XAxis}}; each series has its own colour, line and marker. Per-user tok/s: the line is the median, the light band around it p10 to p90; the red band is below the target. Aggregate tok/s: {{if .Requests}}every request's{{else}}every user's{{end}} tokens together. TTFT p95: time to the first token.{{if not .Trace}} ◆ marks each series' capacity.{{end}}</figcaption>
</figure>
<h2>Levels</h2>
{{range .Tables}}<h3>{{.Swatch}}{{.Heading}}</h3>
<table>
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{if .Legend}}<p class="faint">{{.Legend}}</p>
{{end}}{{end}}<h2>Settings</h2>
{{range .Runs}}<h3>{{.Name}}</h3>
<table class="kv">
{{range .Settings}}<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>
{{end}}</table>
{{end}}<p class="faint">Made by tpsmon from {{range $i, $r := .Runs}}{{if $i}}, {{end}}{{$r.Name}}{{end}}.</p>
</body>
</html>
`))

type htmlLine struct {
	VerdictLine
	Swatch    template.HTML // the series' mark: its colour, line and marker
	Simulated bool
}

// htmlDiagnosis is one series' diagnosis on the page.
type htmlDiagnosis struct {
	Label  string
	Swatch template.HTML // the series' line, dash and marker
	Items  []htmlFinding
}

// htmlFinding is one statement of a diagnosis: its weight ("problem", "warning"; ""
// for information) coloured by Class, its words, when it held and its evidence.
type htmlFinding struct {
	Weight, Class, Text, Held string
	Evidence                  []string
}

type htmlTable struct {
	Heading string
	Swatch  template.HTML
	Header  []string
	Rows    [][]string
	Legend  string // what "±" means, when the table shows intervals
}

type htmlData struct {
	Title, Criteria, XAxis             string
	Requests, Trace                    bool // the aggregate sums requests, not users; the X axis is a trace's windows (no capacity)
	Text, Faint, Grid, Good, Bad, Warn string
	Lines                              []htmlLine
	Diagnosis                          []htmlDiagnosis
	Changes                            []ChangeLine
	Chart                              template.HTML
	Tables                             []htmlTable
	Runs                               []*Run
}

func writeHTML(w io.Writer, runs []*Run, series []Series) error {
	chart, err := inlineSVG(series)
	if err != nil {
		return err
	}
	pal := newPalette()
	v := VerdictOf(series)
	ax := axisWords(series)
	d := htmlData{
		Title: Title(series), Criteria: v.Criteria, Changes: v.Changes, XAxis: ax.caption, Requests: ax.all != "all users", Trace: !ax.log,
		Text: hex(pal.text), Faint: hex(pal.faint), Grid: hex(pal.grid), Good: hex(pal.good), Bad: hex(pal.bad), Warn: hex(pal.warn),
		Chart: chart, Runs: runs,
	}
	for i, l := range v.Lines {
		sw := template.HTML(swatchSVG(i)) // drawn by us, no text
		d.Lines = append(d.Lines, htmlLine{VerdictLine: l, Swatch: sw, Simulated: series[i].Endpoint.Simulated})
		if ds := l.Diagnosis(); len(ds) > 0 {
			d.Diagnosis = append(d.Diagnosis, htmlDiagnosisOf(l.Label, sw, ds))
		}
		header, rows := levelTable(&series[i])
		d.Tables = append(d.Tables, htmlTable{Heading: strings.Join(heading(&series[i]), " · "), Swatch: sw, Header: header, Rows: rows,
			Legend: legend(rows)})
	}
	return htmlPage.Execute(w, d)
}

// htmlDiagnosisOf is a series' diagnosis as the page shows it.
func htmlDiagnosisOf(label string, swatch template.HTML, ds []model.Statement) htmlDiagnosis {
	out := htmlDiagnosis{Label: label, Swatch: swatch}
	for _, st := range ds {
		f := htmlFinding{Text: st.Text, Held: st.Held, Evidence: st.Evidence}
		switch st.Severity {
		case model.SevProblem:
			f.Weight, f.Class = string(st.Severity), "bad"
		case model.SevWarning:
			f.Weight, f.Class = string(st.Severity), "warn"
		}
		out.Items = append(out.Items, f)
	}
	return out
}

// inlineSVG draws the charts as an <svg> element for the page: no XML prelude, and a
// width that follows the page.
func inlineSVG(series []Series) (template.HTML, error) {
	cs, err := newCharts(series)
	if err != nil {
		return "", err
	}
	c := newOutlinedSVG(posterWidth-2*posterMargin, chartsHeight)
	dc := draw.New(c)
	dc.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: posterWidth, Y: 0}, {X: posterWidth, Y: chartsHeight}, {X: 0, Y: chartsHeight}})
	drawCharts(dc, cs)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	out := svgPrelude.ReplaceAll(buf.Bytes(), []byte(`<svg role="img" aria-label="degradation curve"`))
	return template.HTML(out), nil // drawn by us: every text is escaped
}

// hex is a colour as #rrggbb.
func hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}
