package report

import (
	"bytes"
	stdhtml "html"
	"math"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// reportOf is what a report of runs says in Markdown and in HTML (the page's text as a
// browser shows it), and the picture's verdict lines.
func reportOf(t *testing.T, runs ...*Run) (md, html, poster string) {
	t.Helper()
	var h bytes.Buffer
	if err := Write(&h, "html", runs); err != nil {
		t.Fatal(err)
	}
	return Markdown(runs, SeriesOf(runs)), stdhtml.UnescapeString(h.String()), strings.Join(newPosterText(runs, SeriesOf(runs)).verdict, " ")
}

// TestReportSaysWhatCompareSays: a report of two files and compare of the same two files
// say the same sentences: a TTFT p95 29% higher within overlapping intervals is "within
// what 42 and 38 requests can tell, not called a regression" in both (the report used
// to say "+28.6%" with no verdict), an aggregate 20% lower within narrow intervals is "a
// regression, decided at 95%" in both, and the result is the same: worse, or not.
func TestReportSaysWhatCompareSays(t *testing.T) {
	fixture := load(t, "base.json")[0]
	inf := math.Inf(1)
	base := edited(t, fixture, "base.json", both(withIntervals(0.01), ttftAt4(20.6, model.Interval{Lo: 19.8, Hi: inf}, 42)))
	next := edited(t, fixture, "new.json", both(withIntervals(0.01), ttftAt4(26.5, model.Interval{Lo: 20.1, Hi: inf}, 38)))
	const undecided = "new vs base at 4 users: TTFT p95 20.6 ms → 26.5 ms (+28.6%): within what 42 and 38 requests can tell, not called a regression"
	const result = "new vs base: no regression; capacity at least 8 users vs at least 8 users (thresholds: tok/s and TTFT p95 within 5%, error rate up by at most 1 point)"
	c := Compare(base, next, DefaultThresholds)
	if len(c.Regressions) > 0 || strings.Join(c.Undecided, "\n") != undecided || !strings.Contains(c.Markdown, "- "+undecided+"\n") {
		t.Fatalf("compare: regressions %q, undecided %q", c.Regressions, c.Undecided)
	}
	md, html, poster := reportOf(t, base, next)
	for name, text := range map[string]string{"md": md, "html": html, "poster": poster} {
		for _, w := range []string{result, undecided} {
			if !strings.Contains(text, w) {
				t.Errorf("the report's %s does not say %q:\n%s", name, w, text)
			}
		}
		if strings.Contains(text, "is worse than") || strings.Contains(text, "a regression,") {
			t.Errorf("the report's %s calls a regression compare does not call:\n%s", name, text)
		}
	}
	if !strings.Contains(md, "- "+result+"\n  - "+undecided+"\n") {
		t.Errorf("the Markdown does not list the change under its result:\n%s", md)
	}

	// 8 users' aggregate 20% lower, within ±1%: decided, in both.
	slower := edited(t, next, "new.json", func(r *model.Report) {
		l := &r.Endpoints[0].Levels[3]
		l.AggregateTPS *= 0.8
		l.CI95.AggregateTPS = &model.Interval{Lo: l.AggregateTPS * 0.99, Hi: l.AggregateTPS * 1.01}
	})
	const decided = "new vs base at 8 users: aggregate tok/s 412.6 → 330.0 tok/s (-20%): a regression, decided at 95%"
	c = Compare(base, slower, DefaultThresholds)
	if strings.Join(c.Regressions, "\n") != decided || strings.Join(c.Undecided, "\n") != undecided ||
		!strings.Contains(c.Markdown, "**Result: NEW is worse than BASE**") || !strings.Contains(c.Markdown, "- "+decided+"\n") {
		t.Fatalf("compare: regressions %q, undecided %q\n%s", c.Regressions, c.Undecided, c.Markdown)
	}
	md, html, _ = reportOf(t, base, slower)
	for name, text := range map[string]string{"md": md, "html": html} {
		for _, w := range []string{"new vs base: new is worse than base; capacity", decided, undecided} {
			if !strings.Contains(text, w) {
				t.Errorf("the report's %s does not say %q:\n%s", name, w, text)
			}
		}
	}
	if !strings.Contains(html, `<span class="bad">new vs base: new is worse than base;`) {
		t.Errorf("the HTML does not mark the worse result:\n%s", html)
	}
}

// TestReportDoesNotCompareWhatCompareRefuses: two runs of different ramps are not
// compared by compare (exit 2), and the report says so with compare's reason, never a
// change of its own.
func TestReportDoesNotCompareWhatCompareRefuses(t *testing.T) {
	base := load(t, "base.json")[0]
	short := edited(t, base, "short.json", func(r *model.Report) {
		r.Settings.Ramp = []int{1, 2, 4}
		r.Endpoints[0].Levels = r.Endpoints[0].Levels[:3]
		r.Endpoints[0].Levels[2].TTFTMs.P95 *= 3
	})
	if c := Compare(base, short, DefaultThresholds); len(c.Mismatches) != 1 {
		t.Fatalf("compare: mismatches %q", c.Mismatches)
	}
	v := VerdictOf(SeriesOf([]*Run{base, short}))
	const want = "short vs base: not compared (BASE base, NEW short): the ramp differs: BASE 1,2,4,8, NEW 1,2,4"
	if len(v.Changes) != 1 || v.Changes[0].Text != want || len(v.Changes[0].Items) > 0 || v.Changes[0].Worse {
		t.Errorf("changes %+v\nwant %q", v.Changes, want)
	}
}

// TestCompareTraceFallDecided: a trace's load BASE held and NEW did not hold is a
// regression when NEW's failing window fails at 95% (5% of 400 requests failed: errors
// at least 3.3%, over 1%), and said, not called one, when its failure is not decided
// (1 of 25: errors 0.7% to 20%, reaching under 1%): the trace line no longer says
// "worse" on figures the intervals do not decide. The report says the same.
func TestCompareTraceFallDecided(t *testing.T) {
	base := load(t, "base.json")[0]
	failing := func(failed, n int) func(*model.Report) {
		return func(r *model.Report) {
			asTrace(r)
			l := &r.Endpoints[0].Levels[2]
			l.Requests, l.ErrorRate, l.Errors = n, float64(failed)/float64(n), map[string]int{"http_500": failed}
			withIntervals(0.01)(r)
		}
	}
	held := edited(t, base, "held.json", both(asTrace, withIntervals(0.01)))
	c := Compare(held, edited(t, base, "not.json", failing(20, 400)), DefaultThresholds)
	if !strings.Contains(strings.Join(c.Regressions, "\n"), "not vs held: BASE held the trace's load, NEW did not: a regression, decided at 95%") ||
		!strings.Contains(c.Markdown, "Trace: BASE held at this trace's load, NEW not held at this trace's load (**worse**)") {
		t.Errorf("20 of 400 failed: regressions %q\n%s", c.Regressions, c.Markdown)
	}
	not := edited(t, base, "not.json", failing(1, 25))
	c = Compare(held, not, DefaultThresholds)
	const why = "NEW: the failure of window 3 (20-30 s of the trace) is not decided"
	const said = "not vs held: BASE held the trace's load, NEW did not: not decided at 95% (" + why + "), not called a regression"
	if len(c.Regressions) > 0 || !strings.Contains(strings.Join(c.Undecided, "\n"), said) ||
		!strings.Contains(c.Markdown, "Trace: BASE held at this trace's load, NEW not held at this trace's load (worse on the figures, not decided at 95%: "+why+")") ||
		strings.Contains(c.Markdown, "**worse**") {
		t.Errorf("1 of 25 failed: regressions %q, undecided %q\n%s", c.Regressions, c.Undecided, c.Markdown)
	}
	if md, _, _ := reportOf(t, held, not); !strings.Contains(md, "- not vs held: no regression; not held at this trace's load vs held at this trace's load") ||
		!strings.Contains(md, "  - "+said+"\n") {
		t.Errorf("the report of both:\n%s", md)
	}
}
