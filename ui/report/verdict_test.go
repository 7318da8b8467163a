package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

func TestVerdictWording(t *testing.T) {
	runs := load(t, "base.json", "small-gpu.json")
	v := VerdictOf(SeriesOf(runs))
	if got := v.Lines[0].Capacity; got != "capacity at least 8 users (limit not reached)" {
		t.Errorf("base: %q", got)
	}
	if got := v.Lines[1].Capacity; got != "capacity 2 users" {
		t.Errorf("small-gpu: %q", got)
	}
	if got := strings.Join(v.Lines[1].Failures, "; "); got != "4 users: per-user p50 28.9 tok/s < 30 tok/s; 8 users: per-user p50 26 tok/s < 30 tok/s" {
		t.Errorf("small-gpu failures: %q", got)
	}
	if len(v.Lines[0].Failures) != 0 || !v.Lines[0].Meets {
		t.Errorf("base: failures %v, meets %v", v.Lines[0].Failures, v.Lines[0].Meets)
	}
	if v.Criteria != "per-user p50 >= 30 tok/s, TTFT p95 <= 2000 ms, errors <= 1%" {
		t.Errorf("criteria %q", v.Criteria)
	}
	if len(v.Changes) != 1 || !strings.HasPrefix(v.Changes[0], "small-gpu vs base: capacity 2 users vs at least 8 users; at 8 users per-user p50 26 vs 52.2 tok/s (-50.3%)") {
		t.Errorf("changes %q", v.Changes)
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
	if l.Capacity != "no level meets the criteria" || l.Meets {
		t.Errorf("capacity %q, meets %v", l.Capacity, l.Meets)
	}
	want := []string{
		"1 user: per-user p50 10 tok/s < 30 tok/s",
		"2 users: TTFT p95 30.7 ms > 25 ms, errors 4.55% > 1%",
		"4 users: TTFT p95 34.7 ms > 25 ms",
		"8 users: TTFT p95 54.1 ms > 25 ms",
	}
	if strings.Join(l.Failures, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(l.Failures, "\n"), strings.Join(want, "\n"))
	}
	if v.Criteria != "per-user p50 >= 30 tok/s, TTFT p95 <= 25 ms, errors <= 1%" {
		t.Errorf("criteria %q", v.Criteria)
	}
}

func TestVerdictInterruptedIsALowerBound(t *testing.T) {
	// A file from before capacity.at_least was written: the verdict derives it, and an
	// interrupted run's capacity is a lower bound.
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
	if got := VerdictOf(SeriesOf([]*Run{r})).Lines[0].Capacity; got != "capacity at least 2 users (limit not reached)" {
		t.Errorf("interrupted run: %q", got)
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
	if l.Capacity != "capacity 2 requests/s" {
		t.Errorf("capacity: %q", l.Capacity)
	}
	all := l.Capacity + strings.Join(l.Failures, "; ") + l.Saturation
	if !strings.Contains(strings.Join(l.Failures, "; "), "4 requests/s: per-user p50") || strings.Contains(all, "users") || strings.Contains(all, " 1 user") {
		t.Errorf("rate-mode verdict speaks of users: %q / %q / %q", l.Capacity, l.Failures, l.Saturation)
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
	if l.Capacity != "held at this trace's load" || !l.Meets || strings.Contains(l.Saturation, "saturates") {
		t.Errorf("verdict %+v", l)
	}
}
