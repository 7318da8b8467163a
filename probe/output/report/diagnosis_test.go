package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// diagnosedReport is sampleReport with a diagnosis on its first endpoint: an outage
// that ended (in the past tense, with its last error) and the server back after it.
func diagnosedReport() *model.Report {
	r := sampleReport()
	e := &r.Endpoints[0]
	e.Diagnosed = true
	e.Diagnosis = []model.Finding{
		{Rule: model.DiagDown, Severity: model.SevProblem, FirstS: 20, LastS: 30,
			Text:     "the server was down for 10 s: connections refused from 20 s to 30 s, 40 requests failed",
			Evidence: []string{"last error: dial tcp 127.0.0.1:18601: connect: connection refused"}},
		{Rule: model.DiagBack, Severity: model.SevInfo, Text: "the server is back after 10 s down", FirstS: 30, LastS: 30},
	}
	r.Endpoints[1].Diagnosed = true
	return r
}

// TestMarkdownDiagnosis: bench's Markdown says each finding of the run with its
// severity (information needs no word) and when it held, its evidence under it; an
// endpoint diagnosed without a finding says nothing wrong was seen, with its requests.
func TestMarkdownDiagnosis(t *testing.T) {
	md := Summary(diagnosedReport())
	want := "Diagnosis:\n- problem: the server was down for 10 s: connections refused from 20 s to 30 s, 40 requests failed (from 20 s to 30 s)\n" +
		"  - last error: dial tcp 127.0.0.1:18601: connect: connection refused\n" +
		"- the server is back after 10 s down (at 30 s)\n"
	if !strings.Contains(md, want) {
		t.Errorf("got:\n%s\nwant within:\n%s", md, want)
	}
	if !strings.Contains(md, "Diagnosis:\n- nothing wrong seen (") {
		t.Errorf("the healthy endpoint does not say so:\n%s", md)
	}
}

// TestNoDiagnosisWithoutOne: a file that does not say it was diagnosed (an older
// tpsmon's) claims nothing of the diagnosis.
func TestNoDiagnosisWithoutOne(t *testing.T) {
	if md := Summary(sampleReport()); strings.Contains(md, "Diagnosis") || strings.Contains(md, model.NothingWrong) {
		t.Errorf("a file never diagnosed has a diagnosis:\n%s", md)
	}
}

// TestEveryReportFormatHasTheDiagnosis: the report's Markdown, HTML, SVG and PNG
// (whose text is the poster's) each have a Diagnosis section with the finding's words,
// when it held and its evidence, the same the judgement says.
func TestEveryReportFormatHasTheDiagnosis(t *testing.T) {
	run, err := NewRun("faulty", diagnosedReport())
	if err != nil {
		t.Fatal(err)
	}
	runs := []*Run{run}
	words := []string{"the server was down for 10 s: connections refused from 20 s to 30 s, 40 requests failed",
		"from 20 s to 30 s", "last error: dial tcp 127.0.0.1:18601: connect: connection refused",
		"the server is back after 10 s down", "at 30 s", "nothing wrong seen ("}
	texts := map[string]string{"poster (svg, png)": strings.Join(newPosterText(runs, SeriesOf(runs)).verdict, "\n")}
	for _, f := range []string{"md", "html", "svg"} {
		var buf bytes.Buffer
		if err := Write(&buf, f, runs); err != nil {
			t.Fatalf("Write(%s): %v", f, err)
		}
		texts[f] = buf.String()
	}
	for f, text := range texts {
		if !strings.Contains(text, "Diagnosis") {
			t.Errorf("%s: no Diagnosis section", f)
		}
		for _, w := range words {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q", f, w)
			}
		}
	}
	if !strings.Contains(texts["html"], `<span class="bad">problem</span>: the server was down`) {
		t.Errorf("the page does not colour the problem:\n%s", texts["html"])
	}
}
