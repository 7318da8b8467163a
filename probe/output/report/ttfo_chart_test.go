package report

import (
	"strings"
	"testing"
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
