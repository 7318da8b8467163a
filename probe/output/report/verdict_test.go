package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

func TestVerdictWording(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	v := VerdictOf(SeriesOf(runs))
	if got := v.Lines[0].Text(); !strings.HasPrefix(got, "capacity at least 8 users (limit not reached: the highest level measured in full meets the criteria); saturation not reached") {
		t.Errorf("base: %q", got)
	}
	if got := v.Lines[1].Text(); !strings.HasPrefix(got, "capacity 2 users; ") {
		t.Errorf("small-gpu: %q", got)
	}
	if got := strings.Join(v.Lines[1].Failures(), "; "); got != "4 users: per-user p50 28.9 tok/s < 30 tok/s; 8 users: per-user p50 26 tok/s < 30 tok/s" {
		t.Errorf("small-gpu failures: %q", got)
	}
	if len(v.Lines[0].Failures()) != 0 || !v.Lines[0].Meets() {
		t.Errorf("base: failures %v, meets %v", v.Lines[0].Failures(), v.Lines[0].Meets())
	}
	if v.Criteria != "per-user p50 >= 30 tok/s, TTFT p95 <= 2 s, errors <= 1%" {
		t.Errorf("criteria %q", v.Criteria)
	}
	if len(v.Changes) != 1 || v.Changes[0].Text != "small-gpu vs base: small-gpu is worse than base; capacity 2 users vs at least 8 users (thresholds: tok/s and TTFT p95 within 5%, error rate up by at most 1 point)" ||
		!slices.Contains(v.Changes[0].Items, "small-gpu vs base at 8 users: per-user tok/s p50 52.2 → 26.0 tok/s (-50.3%): a regression on the figures alone") ||
		v.Changes[0].Items[len(v.Changes[0].Items)-1] != "base and small-gpu have no intervals (written by older tpsmon versions): changes judged on points alone" {
		t.Errorf("changes %+v", v.Changes)
	}
}

func TestVerdictNoLevelMeets(t *testing.T) {
	base := load(t, "base.json")[0]
	r := edited(t, base, "strict.json", func(r *model.Report) {
		r.Settings.SLO.TTFTP95MaxMs = 25
		r.Endpoints[0].Capacity.Users = 0
		r.Endpoints[0].Levels[0].UserTPS.P50 = 10
		r.Endpoints[0].Levels[1].ErrorRate = 0.0455
	})
	v := VerdictOf(SeriesOf([]*Run{r}))
	l := v.Lines[0]
	if !strings.HasPrefix(l.Text(), "capacity none: no level measured in full meets the criteria (1 user: per-user p50 10 tok/s < 30 tok/s)") || l.Meets() {
		t.Errorf("verdict %q, meets %v", l.Text(), l.Meets())
	}
	want := []string{
		"1 user: per-user p50 10 tok/s < 30 tok/s",
		"2 users: TTFT p95 31 ms > 25 ms; errors 4.55% > 1%",
		"4 users: TTFT p95 35 ms > 25 ms",
		"8 users: TTFT p95 54 ms > 25 ms",
	}
	if strings.Join(l.Failures(), "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(l.Failures(), "\n"), strings.Join(want, "\n"))
	}
	if v.Criteria != "per-user p50 >= 30 tok/s, TTFT p95 <= 25 ms, errors <= 1%" {
		t.Errorf("criteria %q", v.Criteria)
	}
}

func TestVerdictInterruptedIsALowerBound(t *testing.T) {
	// A file from before capacity.at_least was written: the judgement derives it, and
	// an interrupted run's capacity is a lower bound unless a level above it measured in
	// full fails: small-gpu's 4 and 8 users do, so its capacity stays exact.
	small := load(t, "small-gpu.json")[0]
	small.Report.Interrupted = true
	data, err := json.Marshal(small.Report)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(`,"at_least":false`), nil)
	if bytes.Contains(data, []byte("at_least")) {
		t.Fatal("the fixture still has at_least")
	}
	r, err := Decode("cut.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := VerdictOf(SeriesOf([]*Run{r})).Lines[0].Text(); !strings.HasPrefix(got, "capacity 2 users;") {
		t.Errorf("interrupted run: %q", got)
	}
	r.Report.Endpoints[0].Levels = r.Report.Endpoints[0].Levels[:2]
	if got := VerdictOf(SeriesOf([]*Run{r})).Lines[0].Text(); !strings.HasPrefix(got, "capacity at least 2 users (limit not reached: the run was interrupted)") {
		t.Errorf("interrupted run, nothing failing above: %q", got)
	}
}

func TestFailuresOfEmptyLevels(t *testing.T) {
	slo := model.DefaultSLO
	if f := Failures(model.ReportLevel{Concurrency: 4}, slo); len(f) != 1 || f[0] != "no request ended" {
		t.Errorf("no requests: %v", f)
	}
	if f := Failures(model.ReportLevel{Concurrency: 4, Requests: 3, ErrorRate: 1}, slo); len(f) != 3 ||
		f[0] != "no TTFT measured (no steady request delivered a token)" || f[2] != "errors 100% > 1%" {
		t.Errorf("every request failed: %v", f)
	}
	// A level the load left in its warm-up, its requests all successes: not judged.
	if f := Failures(model.ReportLevel{Concurrency: 4, Requests: 3, Succeeded: 3}, slo); len(f) != 1 || !strings.HasPrefix(f[0], "not measured (") {
		t.Errorf("left in its warm-up: %v", f)
	}
}

// TestVerdictWordingRateMode: a rate-mode run's verdict names its levels in requests/s,
// never in users.
func TestVerdictWordingRateMode(t *testing.T) {
	runs := load(t, "small-gpu.json")
	e := &runs[0].Report.Endpoints[0]
	for i := range e.Levels {
		r := e.Levels[i].Concurrency
		e.Levels[i].Rate = &r
	}
	v := VerdictOf(SeriesOf(runs))
	l := v.Lines[0]
	if !strings.HasPrefix(l.Text(), "capacity 2 requests/s;") {
		t.Errorf("verdict: %q", l.Text())
	}
	all := l.Text() + strings.Join(l.Failures(), "; ") + strings.Join(l.Notes(), "; ")
	if !strings.Contains(strings.Join(l.Failures(), "; "), "4 requests/s: per-user p50") || strings.Contains(all, "users") || strings.Contains(all, " 1 user") {
		t.Errorf("rate-mode verdict speaks of users: %q / %q / %q", l.Text(), l.Failures(), l.Notes())
	}
}

// TestPosterSaysTheVerdict: the PNG and SVG pictures draw the verdict lines of
// newPosterText; wrapped to the picture's width, they hold each series' verdict
// sentence whole (the judgement's, as every other surface says it), and its notes.
func TestPosterSaysTheVerdict(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	series := SeriesOf(runs)
	text := strings.Join(newPosterText(runs, series).verdict, " ")
	for _, s := range series {
		if !strings.Contains(text, s.Label+": "+s.Judgement.Verdict.Text) {
			t.Errorf("the picture lacks %s's verdict %q:\n%s", s.Label, s.Judgement.Verdict.Text, text)
		}
	}
	if !strings.Contains(text, "· 4 users: per-user p50 28.9 tok/s < 30 tok/s") {
		t.Errorf("the picture lacks small-gpu's failures:\n%s", text)
	}
}
