package ui

import (
	"bytes"
	"context"
	"html"
	"regexp"
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

// reasoningRun feeds an engine (real level books) a reasoning model's run, recording
// its time series: 1 and 2 users held long enough to be measured in full, then 8 users
// left after 16 of the 20 steady requests a level needs (--min-requests 20), its
// per-user tok/s below the target. Every answer starts 1.5 s after its first (reasoning) token.
func reasoningRun(t *testing.T) (*engine.Engine, *timeseries.Series) {
	t.Helper()
	var buf bytes.Buffer
	w := timeseries.NewWriter(&buf)
	ctl := &fakeCtl{}
	e, err := engine.New(engine.Config{Observers: []engine.Observer{w}, Now: func() time.Time { return t0 }, MinRequests: 20},
		[]engine.Part{{Endpoint: client.Endpoint{Name: "gpu-a", BaseURL: "http://127.0.0.1:1/v1", Model: "thinker"}, Control: ctl}})
	if err != nil {
		t.Fatal(err)
	}
	sec := 0
	for seg, lv := range []struct{ users, secs int }{{1, 25}, {2, 15}, {8, 2}} {
		ctl.conc = lv.users
		start := t0.Add(time.Duration(sec) * time.Second)
		e.Handle(probe.Event{Segment: &model.Segment{ID: seg, Concurrency: lv.users, Start: start, SteadyAt: start, End: start, Open: true}})
		user := 100 / float64(lv.users)
		for range lv.secs {
			from, to := t0.Add(time.Duration(sec)*time.Second), t0.Add(time.Duration(sec+1)*time.Second)
			for range lv.users {
				first := from.Add(50 * time.Millisecond)
				s := &model.Sample{Segment: seg, Concurrency: lv.users, Send: from, First: first, FirstAnswer: first.Add(1500 * time.Millisecond),
					Last: first.Add(time.Duration(float64(time.Second) * 19 / user)), Tokens: 20, Usage: true, Status: 200, Finish: "stop"}
				s.End = s.Last
				e.Handle(probe.Event{Sample: s})
			}
			chunks := make([]int32, lv.users)
			for i := range chunks {
				chunks[i] = int32(user)
			}
			e.Handle(probe.Event{Segment: &model.Segment{ID: seg, Concurrency: lv.users, Start: start, SteadyAt: start, End: to, Open: true,
				SteadyChunks: int64(100 * (sec + 1))}})
			e.Handle(probe.Event{Tick: &model.Tick{Start: from, End: to, Target: lv.users, Active: lv.users, Chunks: 100,
				UserChunks: chunks, FirstTokens: []time.Duration{50 * time.Millisecond}, Started: lv.users, Finished: lv.users}})
			sec++
		}
		end := t0.Add(time.Duration(sec) * time.Second)
		e.Handle(probe.Event{Segment: &model.Segment{ID: seg, Concurrency: lv.users, Start: start, SteadyAt: start, End: end, SteadyChunks: int64(100 * sec)}})
	}
	// The load stops (the user moved on): the pool's next tick records the levels closed.
	ctl.conc = 0
	e.Handle(probe.Event{Tick: &model.Tick{Start: t0.Add(time.Duration(sec) * time.Second), End: t0.Add(time.Duration(sec+1) * time.Second)}})
	s, err := timeseries.Read(&buf)
	if err != nil || w.Err() != nil {
		t.Fatal(err, w.Err())
	}
	return e, s
}

// svgText is the text an SVG shows, its wrapped lines joined by spaces.
func svgText(svg string) string {
	var parts []string
	for _, m := range regexp.MustCompile(`(?s)<text[^>]*>(.*?)</text>`).FindAllStringSubmatch(svg, -1) {
		parts = append(parts, html.UnescapeString(m[1]))
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// TestOneVerdictOnEverySurface is issue 14's test of done: one run, judged once
// (model.Judge on its report), says the same verdict sentence on the live screen's
// status, in bench's Markdown, in the report as Markdown, HTML and SVG (the PNG draws
// the SVG's text: report's TestPosterSaysTheVerdict), in compare and in replay. The
// sentence holds the claims drawn only from the levels measured in full (8 users was
// left too early to decide anything) and how sure the capacity is at 95%, and every
// written surface says TTFO beside TTFT.
func TestOneVerdictOnEverySurface(t *testing.T) {
	e, series := reasoningRun(t)
	rep := e.Report(false)
	j := model.Judge(rep).Endpoints[0]
	verdict := j.Verdict.Text
	want := "capacity at least 2 users (limit not reached: 8 users too few: left after 16 of 20 steady requests), " +
		"not decided at 95% (TTFT p95 of 2 users undecided; errors 0 of 30 requests: within 1% as measured, under 11.36% at 95%); " +
		"saturation not reached (every doubling of users added at least 10% aggregate tok/s; 8 users not measured in full)"
	if verdict != want {
		t.Fatalf("verdict\n got %q\nwant %q", verdict, want)
	}
	if !j.TTFO {
		t.Fatal("a reasoning run does not show TTFO")
	}
	said := map[string]string{}

	// The live screen, wide enough for the whole sentence.
	m, err := newRoot(context.Background(), nil, e, config{SnapshotDir: t.TempDir(), Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 400, Height: 60})
	said["screen"] = ansi.Strip(m.View().Content)

	said["bench Markdown"] = report.Summary(rep)
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

	for surface, text := range said {
		if !strings.Contains(text, verdict) {
			t.Errorf("%s does not say the verdict %q:\n%s", surface, verdict, text)
		}
	}
	// TTFO beside TTFT, on every surface that writes the levels down.
	for _, surface := range []string{"bench Markdown", "report md", "report html", "compare"} {
		if !strings.Contains(said[surface], "TTFO p95") {
			t.Errorf("%s does not show TTFO:\n%s", surface, said[surface])
		}
	}
	if !strings.Contains(said["bench Markdown"], "reasoning: the answer's first token (TTFO) p50 1.55 s") {
		t.Errorf("bench Markdown does not say when the answer starts:\n%s", said["bench Markdown"])
	}
	if !strings.Contains(said["replay"], "TTFO") {
		t.Errorf("replay does not show TTFO:\n%s", said["replay"])
	}
}

// TestTableNeverRoundsAFailureOntoItsTarget: a failing 29.97 tok/s was shown "30.0"
// beside the verdict that it fails; a TTFT p95 of 2004 ms against 2 s read "2.00 s".
func TestTableNeverRoundsAFailureOntoItsTarget(t *testing.T) {
	p := sized(&tablePanel{}, size{100, 6})
	p.SetTargets(2*time.Second, false)
	p.SetData("gpu", []model.LevelStats{{Concurrency: 8, Requests: 40, Succeeded: 40, Steady: 40,
		UserTPS: model.Dist{Count: 40, P50: 29.97}, TTFT: model.Dist{Count: 40, P50: 900, P95: 2004}, AggregateTPS: 240}}, 0, 30)
	view := ansi.Strip(p.View())
	if !strings.Contains(view, "29.97") || !strings.Contains(view, "2.004 s") || strings.Contains(view, "30.0") {
		t.Errorf("a failing figure rounded onto its target:\n%s", view)
	}
}
