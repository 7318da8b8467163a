package ui

import (
	"bytes"
	"html"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output/report"
	"github.com/tpsmon/tpsmon/probe/output/timeseries"
)

// traceRun feeds an engine that replays a trace (real level books) three windows of
// 10 s, 30 requests each, recording its time series; window 2's TTFT p95 is 3 s. Every
// request leaves 2 ms after its moment (on time), but lateEvery-th one 40 ms late (0:
// none).
func traceRun(t *testing.T, lateEvery int) (*engine.Engine, *timeseries.Series) {
	t.Helper()
	var buf bytes.Buffer
	w := timeseries.NewWriter(&buf)
	ctl := &fakeCtl{}
	tr := &model.ReportTrace{File: "day.jsonl", Requests: 90, DurationS: 30, Speed: 1, WindowS: 10}
	e, err := engine.New(engine.Config{Observers: []engine.Observer{w}, Now: func() time.Time { return t0 }, Trace: tr,
		OpenLoop: &engine.OpenLoop{Arrival: "trace"}, Ramp: engine.TraceRamp(tr)},
		[]engine.Part{{Endpoint: client.Endpoint{Name: "gpu-a", BaseURL: "http://127.0.0.1:1/v1", Model: "m", API: "messages"}, Control: ctl}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for win := 1; win <= 3; win++ {
		ctl.conc = win
		start := t0.Add(time.Duration(win-1) * 10 * time.Second)
		e.Handle(probe.Event{Segment: &model.Segment{ID: win, Concurrency: win, Start: start, SteadyAt: start, End: start, Open: true}})
		for sec := range 10 {
			from, to := start.Add(time.Duration(sec)*time.Second), start.Add(time.Duration(sec+1)*time.Second)
			for k := range 3 {
				ttft := 100 * time.Millisecond
				if win == 2 && k == 0 && sec < 5 {
					ttft = 3 * time.Second
				}
				wait := 2 * time.Millisecond
				if n++; lateEvery > 0 && n%lateEvery == 0 {
					wait = 40 * time.Millisecond
				}
				first := from.Add(ttft)
				s := &model.Sample{Segment: win, Concurrency: win, Send: from, First: first, FirstAnswer: first, Last: first.Add(200 * time.Millisecond),
					Tokens: 20, Usage: true, Status: 200, Finish: "stop", OpenLoop: true, ClientWait: wait}
				s.End = s.Last
				e.Handle(probe.Event{Sample: s})
			}
			e.Handle(probe.Event{Segment: &model.Segment{ID: win, Concurrency: win, Start: start, SteadyAt: start, End: to, Open: true,
				SteadyChunks: int64(60 * (sec + 1))}})
			e.Handle(probe.Event{Tick: &model.Tick{Start: from, End: to, Target: win, Active: 1, Chunks: 60,
				UserChunks: []int32{20, 20, 20}, FirstTokens: []time.Duration{100 * time.Millisecond}, Started: 3, Finished: 3}})
		}
		end := start.Add(10 * time.Second)
		e.Handle(probe.Event{Segment: &model.Segment{ID: win, Concurrency: win, Start: start, SteadyAt: start, End: end, SteadyChunks: 600}})
	}
	ctl.conc = 0
	e.Handle(probe.Event{Tick: &model.Tick{Start: t0.Add(30 * time.Second), End: t0.Add(31 * time.Second)}})
	s, err := timeseries.Read(&buf)
	if err != nil || w.Err() != nil {
		t.Fatal(err, w.Err())
	}
	return e, s
}

// TestOneTraceVerdictOnEverySurface: a trace run's verdict is whether the endpoint held
// the trace's load, said once by the judgement and the same in bench's Markdown, the
// report as Markdown, HTML and SVG, compare and replay: window 2 fails and is named by
// its span; no surface speaks of a capacity or of users. Sent late (more than 1% of the
// requests over 10 ms), a run that met the criteria is "not judged" on every surface.
func TestOneTraceVerdictOnEverySurface(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lateEvery int
		want      string
	}{
		{"on time", 0, "not held at this trace's load: 1 of 3 windows failed the criteria (window 2 (10-20 s of the trace): TTFT p95 3.00 s > 2 s)"},
		{"late", 10, "not held at this trace's load (even at the lighter load sent: requests left late): 1 of 3 windows failed the criteria (window 2 (10-20 s of the trace): TTFT p95 3.00 s > 2 s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, series := traceRun(t, tc.lateEvery)
			rep := e.Report(false)
			j := model.Judge(rep).Endpoints[0]
			if j.Verdict.Text != tc.want {
				t.Fatalf("verdict\n got %q\nwant %q", j.Verdict.Text, tc.want)
			}
			said := surfaces(t, rep, series)
			for surface, text := range said {
				if !strings.Contains(text, tc.want) {
					t.Errorf("%s does not say the verdict %q:\n%s", surface, tc.want, text)
				}
				if low := strings.ToLower(text); strings.Contains(low, "capacity") || strings.Contains(low, " users") {
					t.Errorf("%s speaks of a capacity or users in a trace run:\n%s", surface, text)
				}
			}
			if tc.lateEvery > 0 {
				late := "tpsmon could not keep up with the trace: 9 of 90 requests left more than 10 ms after their moment (the latest 40 ms late)"
				for _, surface := range []string{"bench Markdown", "report md", "report html"} {
					if !strings.Contains(said[surface], late) {
						t.Errorf("%s does not say how late the trace was sent (%q):\n%s", surface, late, said[surface])
					}
				}
			}
			if !strings.Contains(said["replay"], "API messages") {
				t.Errorf("replay's header does not name the API:\n%s", said["replay"])
			}
		})
	}
}

// surfaces renders a run's report on every surface that reads it back, and its time
// series in replay: what each says, as text.
func surfaces(t *testing.T, rep *model.Report, series *timeseries.Series) map[string]string {
	t.Helper()
	said := map[string]string{"bench Markdown": report.Summary(rep)}
	run, err := report.NewRun("run.json", rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"md", "html", "svg"} {
		var buf bytes.Buffer
		if err := report.Write(&buf, format, []*report.Run{run}); err != nil {
			t.Fatal(err)
		}
		switch format {
		case "html":
			said["report html"] = html.UnescapeString(buf.String())
		case "svg":
			said["report svg"] = svgText(buf.String())
		default:
			said["report md"] = buf.String()
		}
	}
	again, err := report.NewRun("again.json", rep)
	if err != nil {
		t.Fatal(err)
	}
	said["compare"] = report.Compare(run, again, report.DefaultThresholds).Markdown
	r, err := newReplay(ReplayOptions{Series: series, Name: "run.jsonl"}, false)
	if err != nil {
		t.Fatal(err)
	}
	r.Update(tea.WindowSizeMsg{Width: 400, Height: 60})
	r.at(0)
	r.at(time.Hour)
	said["replay"] = ansi.Strip(r.View().Content)
	return said
}
