package report

import (
	"bytes"
	stdhtml "html"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// asTrace makes base.json's run a trace run of its four levels as windows of 10 s of a
// 40 s trace (no capacity nor saturation of its own: a trace has no ramp).
func asTrace(r *model.Report) {
	r.Settings.Mode = "trace"
	r.Settings.Ramp = []int{1, 2, 3, 4}
	r.Settings.Trace = &model.ReportTrace{File: "day.jsonl", Requests: 400, DurationS: 40, Speed: 1, WindowS: 10}
	e := &r.Endpoints[0]
	e.Capacity, e.SaturationUsers = model.ReportCap{}, nil
	for i := range e.Levels {
		e.Levels[i].Concurrency = i + 1
		e.Levels[i].Steady = max(e.Levels[i].Steady, 40)
		e.Levels[i].TraceWindowS = []float64{float64(i) * 10, float64(i+1) * 10}
	}
}

// A trace run's verdict is whether the endpoint held the trace's load, never a
// capacity or a saturation.
func TestVerdictOfATrace(t *testing.T) {
	base := load(t, "base.json")[0]
	r := edited(t, base, "trace.json", func(r *model.Report) {
		r.Settings.Mode = "trace"
		e := &r.Endpoints[0]
		e.Capacity, e.SaturationUsers = model.ReportCap{}, nil
		for i := range e.Levels {
			e.Levels[i].Concurrency = i + 1
			e.Levels[i].TraceWindowS = []float64{float64(i) * 10, float64(i+1) * 10}
		}
	})
	v := VerdictOf(SeriesOf([]*Run{r}))
	l := v.Lines[0]
	if !strings.HasPrefix(l.Text(), "held at this trace's load") || !l.Meets() || strings.Contains(l.Text(), "saturat") {
		t.Errorf("verdict %q, meets %v", l.Text(), l.Meets())
	}
}

// Every report of a trace run names its levels as windows of the trace, by their span,
// and says the judgement's verdict: the level tables' first column is "window", the
// settings name the trace and its windows (not a ramp of users), the chart's axis is the
// windows, and a failing window is named with its span and its failures.
func TestTraceReportsSayWindows(t *testing.T) {
	base := load(t, "base.json")[0]
	r := edited(t, base, "trace.json", func(r *model.Report) {
		asTrace(r)
		r.Endpoints[0].Levels[1].TTFTMs.P95 = 3100
	})
	runs := []*Run{r}
	series := SeriesOf(runs)
	j := series[0].Judgement
	failing := "window 2 (10-20 s of the trace): TTFT p95 3.10 s > 2 s"
	if j.Trace == nil || j.Trace.Kind != model.TraceNotHeld || !strings.HasPrefix(j.Verdict.Text, "not held at this trace's load: 1 of 4 windows failed the criteria ("+failing) {
		t.Fatalf("judgement: %q", j.Verdict.Text)
	}
	md := Markdown(runs, series)
	var html, svg bytes.Buffer
	if err := Write(&html, "html", runs); err != nil {
		t.Fatal(err)
	}
	if err := Write(&svg, "svg", runs); err != nil {
		t.Fatal(err)
	}
	poster := strings.Join(newPosterText(runs, series).verdict, " ") + " " + strings.Join(newPosterText(runs, series).footer, " ")
	for name, text := range map[string]string{"md": md, "html": html.String(), "poster": poster} {
		if !strings.Contains(text, j.Verdict.Text) && !strings.Contains(text, stdhtml.EscapeString(j.Verdict.Text)) {
			t.Errorf("%s lacks the verdict %q", name, j.Verdict.Text)
		}
		if strings.Contains(text, "users") || strings.Contains(text, "capacity") {
			t.Errorf("%s speaks of users or a capacity in a trace run:\n%s", name, text)
		}
	}
	for _, want := range []string{"| window | requests |", "| trace | day.jsonl: 400 requests over 40 s, in windows of 10 s of the trace |",
		"| windows | 4, each held exactly its span of the trace (no ramp) |", "# tpsmon: trace replayed on simulator (simulated)"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(html.String(), "<th>window</th>") || !strings.Contains(html.String(), "The trace&#39;s windows in time order") {
		t.Errorf("the HTML's table or caption does not name windows")
	}
	if !strings.Contains(svg.String(), "window of the trace") {
		t.Errorf("the SVG's axis does not name the windows")
	}
}

// Two trace runs compare window by window, and NEW that does not hold the load BASE
// held is a regression; a trace run and a users run are not the same axis.
func TestCompareTraces(t *testing.T) {
	base := load(t, "base.json")[0]
	held := edited(t, base, "held.json", asTrace)
	not := edited(t, base, "not.json", func(r *model.Report) {
		asTrace(r)
		r.Endpoints[0].Levels[2].ErrorRate, r.Endpoints[0].Levels[2].Errors = 0.05, map[string]int{"http_500": 5}
	})
	c := Compare(held, not, DefaultThresholds)
	all := strings.Join(c.Regressions, "\n")
	if len(c.Mismatches) > 0 || !strings.Contains(all, "BASE held the trace's load, NEW did not") ||
		!strings.Contains(all, "at window 3 (20-30 s of the trace): errors") {
		t.Errorf("mismatches %v, regressions:\n%s", c.Mismatches, all)
	}
	if !strings.Contains(c.Markdown, "Trace: BASE held at this trace's load, NEW not held at this trace's load (**worse**)") ||
		!strings.Contains(c.Markdown, "| window | per-user tok/s p50 |") {
		t.Errorf("comparison:\n%s", c.Markdown)
	}
	fast := edited(t, base, "fast.json", func(r *model.Report) {
		asTrace(r)
		r.Settings.Trace.Speed, r.Settings.Trace.File = 2, "elsewhere/day.jsonl"
		r.Settings.HoldS /= 2 // each window held half its span at 2x speed
	})
	c = Compare(held, fast, DefaultThresholds)
	if want := "the trace's replay differs: BASE 400 requests over 40 s, in windows of 10 s of the trace, NEW 400 requests over 40 s, at 2x speed (20 s), in windows of 10 s of the trace"; !strings.Contains(strings.Join(c.Mismatches, "\n"), want) {
		t.Errorf("a trace replayed at another speed: %v\nwant %q", c.Mismatches, want)
	}
	if len(c.Mismatches) != 1 || len(c.Notes) != 0 {
		t.Errorf("a trace replayed at another speed differs by its replay alone (its windows are no ramp, their span no hold): %v, notes %v", c.Mismatches, c.Notes)
	}
	c = Compare(base, held, DefaultThresholds)
	if !strings.Contains(strings.Join(c.Mismatches, "\n"), "a trace's windows and users are not the same axis") {
		t.Errorf("a trace against a users run: %v", c.Mismatches)
	}
}
