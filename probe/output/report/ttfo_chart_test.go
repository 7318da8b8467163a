package report

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/tpsmon/tpsmon/model"
)

// TestTTFTChartShowsTTFO: where the level tables show TTFO beside TTFT (a reasoning
// model, whose answer starts after its thinking), the TTFT chart draws its TTFO p95 too,
// named in its legend and its title. The pictures drew TTFT alone: a reasoning model's
// chart read 158 ms "(limit 2 s, far above)" while its answers waited up to 5.9 s.
func TestTTFTChartShowsTTFO(t *testing.T) {
	run, err := NewRun("reasoning", sampleReport()) // its first endpoint: TTFO 1.9 s beside TTFT 101.5 ms
	if err != nil {
		t.Fatal(err)
	}
	series := SeriesOf([]*Run{run})
	if !series[0].Judgement.TTFO || series[1].Judgement.TTFO {
		t.Fatalf("the fixture's TTFO: %v, %v; want the first endpoint only", series[0].Judgement.TTFO, series[1].Judgement.TTFO)
	}
	cs, err := newCharts(series)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cs.ttft.Title.Text, "Time to first token and TTFO, p95") {
		t.Errorf("title %q does not name TTFO", cs.ttft.Title.Text)
	}
	// Each series' TTFT, the TTFT limit, the capacity and one TTFO: the first series'.
	plain, err := newCharts(series[1:])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cs.legend[cs.ttft]-plain.legend[plain.ttft], 2; got != want {
		t.Errorf("the TTFT chart's legend has %d more entries with the reasoning series, want %d (its TTFT and its TTFO)", got, want)
	}
	if strings.Contains(plain.ttft.Title.Text, "TTFO") {
		t.Errorf("a chart without reasoning names TTFO: %q", plain.ttft.Title.Text)
	}
	if _, max := cs.ttft.Y.Min, cs.ttft.Y.Max; max < 2300.5 {
		t.Errorf("the TTFT chart's y axis ends at %v, under the TTFO p95 2300.5 ms it should show", max)
	}
}

// TestChartsDrawUnjudgedLevelsHollow: a level not measured in full is drawn hollow on
// every chart where it has a figure, and the legend says what hollow means; a run whose
// levels all decide has no such entry. An interrupted run drew its 4 users, with no
// steady answer, as a point like those that decide.
func TestChartsDrawUnjudgedLevelsHollow(t *testing.T) {
	base := load(t, "base.json")[0]
	short := edited(t, base, "short.json", func(r *model.Report) { r.Endpoints[0].Levels[3].Short = true })
	full, err := newCharts(SeriesOf([]*Run{base}))
	if err != nil {
		t.Fatal(err)
	}
	marked, err := newCharts(SeriesOf([]*Run{short}))
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2]*plot.Plot{"per-user": {full.user, marked.user}, "aggregate": {full.agg, marked.agg}, "TTFT": {full.ttft, marked.ttft}} {
		if got := marked.legend[pair[1]] - full.legend[pair[0]]; got != 1 {
			t.Errorf("the %s chart has %d more legend entries with 8 users short, want 1 (hollow: not measured in full)", name, got)
		}
	}
}
