package timeseries

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// TestLinesCarryTheDiagnosis: a line holds what the diagnosis said of its endpoint at
// that second (here every fourth request answered HTTP 500), as replay shows it.
func TestLinesCarryTheDiagnosis(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	e, err := engine.Start(context.Background(), engine.Config{
		Endpoints: []client.Endpoint{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}},
		Ramp:      engine.Ramp{Levels: []int{2}, Hold: 2500 * time.Millisecond},
		FullRamp:  true,
		Drain:     time.Second,
		NewStreamer: func(client.Endpoint, int) (probe.Streamer, error) {
			return &fake{tokens: 5, gap: 10 * time.Millisecond, failEvery: 4}, nil
		},
		PoolOptions:   []probe.Option{probe.WithTickEvery(100 * time.Millisecond)},
		ServerMetrics: []string{engine.ServerMetricsOff},
		Observers:     []engine.Observer{w},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var said []model.Finding
	for _, l := range s.Lines {
		if len(l.Diagnosis) > 0 {
			said = l.Diagnosis
		}
	}
	if len(said) == 0 || said[0].Rule != model.DiagServerErrors {
		t.Fatalf("the lines' diagnosis: %+v", said)
	}
	// The window's edges cut the every-fourth pattern (a request in flight at its start
	// or end), so the share is about a quarter, and the words' figures agree.
	m := regexp.MustCompile(`^server errors: HTTP 500 on (\d+)% of requests \((\d+) of (\d+)\)`).FindStringSubmatch(said[0].Text)
	if m == nil {
		t.Fatalf("the finding's words: %q", said[0].Text)
	}
	pct, _ := strconv.Atoi(m[1])
	n, _ := strconv.Atoi(m[2])
	of, _ := strconv.Atoi(m[3])
	if share := float64(n) / float64(of); share < 0.2 || share > 0.3 || int(math.Round(100*share)) != pct {
		t.Errorf("%q: %d of %d is not about a quarter, or not %d%%", said[0].Text, n, of, pct)
	}
	if !strings.Contains(buf.String(), `"diagnosis":[{"kind":"server-errors","words":"server errors: HTTP 500 on`) {
		t.Errorf("the line's JSON does not carry the finding's kind and words:\n%.400s", buf.String())
	}
}

// TestEndLineSaysTheRunsDiagnosis: once the run is over, each endpoint's End line holds
// the run's diagnosis as results.json's judgement says it (model.JudgeEndpoint, as
// bench's Markdown lists it), word for word; no reader takes it for a second.
func TestEndLineSaysTheRunsDiagnosis(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	e, err := engine.Start(context.Background(), engine.Config{
		Endpoints: []client.Endpoint{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}},
		Ramp:      engine.Ramp{Levels: []int{2}, Hold: 2500 * time.Millisecond},
		FullRamp:  true,
		Drain:     time.Second,
		NewStreamer: func(client.Endpoint, int) (probe.Streamer, error) {
			return &fake{tokens: 5, gap: 10 * time.Millisecond, failEvery: 4}, nil
		},
		PoolOptions:   []probe.Option{probe.WithTickEvery(100 * time.Millisecond)},
		ServerMetrics: []string{engine.ServerMetricsOff},
		Observers:     []engine.Observer{w},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.End(res.Report)
	s, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil || len(s.Lines) < 2 {
		t.Fatalf("%v, %d lines", err, len(s.Lines))
	}
	last, before := s.Lines[len(s.Lines)-1], s.Lines[len(s.Lines)-2]
	if !last.End || before.End || last.ElapsedS != before.ElapsedS || last.Time != before.Time || last.WidthS != 0 {
		t.Fatalf("the End line %+v after %+v", last, before)
	}
	j := model.JudgeEndpoint(&res.Report.Settings, &res.Report.Endpoints[0], res.Report.Interrupted, false)
	if len(j.Diagnosis) == 0 || j.Diagnosis[0].Kind != model.DiagServerErrors || len(last.RunDiagnosis) != len(j.Diagnosis) {
		t.Fatalf("the judgement's diagnosis %+v, the End line's %+v", j.Diagnosis, last.RunDiagnosis)
	}
	for i, d := range j.Diagnosis {
		if got := last.RunDiagnosis[i].Statement(); got.Text != d.Text || got.Held != d.Held || got.Severity != d.Severity ||
			strings.Join(got.Evidence, "|") != strings.Join(d.Evidence, "|") {
			t.Errorf("statement %d: the End line says %+v, the judgement %+v", i, got, d)
		}
	}
}
