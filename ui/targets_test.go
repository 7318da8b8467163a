package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
)

// TestTTFTColouredAgainstTarget: a TTFT over its target is drawn bad, live and in the
// table (10.5 s and 58.6 s must not look like 20 ms).
func TestTTFTColouredAgainstTarget(t *testing.T) {
	st := testStyles()
	t0 := time.Unix(1000, 0)
	buckets := rampBuckets(60)
	p := sized(&seriesPanel{}, size{120, 7})
	p.SetTTFTTarget(2 * time.Second)
	p.SetData(buckets, model.Live{At: t0, HasTTFT: true, TTFTP50: 8 * time.Second, TTFTP95: 10500 * time.Millisecond, HasUser: true, UserTPS: 12}, 30)
	if v := p.View(); !strings.Contains(v, st.Bad.Render(fmtDur(10500*time.Millisecond))) {
		t.Errorf("live TTFT p95 10.5 s against 2 s is not drawn bad:\n%q", v)
	}
	p.SetData(buckets, model.Live{At: t0, HasTTFT: true, TTFTP50: 15 * time.Millisecond, TTFTP95: 20 * time.Millisecond}, 30)
	if v := p.View(); !strings.Contains(v, st.Good.Render(fmtDur(20*time.Millisecond))) {
		t.Errorf("live TTFT p95 20 ms against 2 s is not drawn good:\n%q", v)
	}

	tb := sized(&tablePanel{}, size{tableWidth(), 8})
	tb.SetTargets(2*time.Second, false)
	tb.SetErrorLimit(0.01)
	lv := model.LevelStats{Concurrency: 32, Requests: 40, Succeeded: 40, TTFT: model.Dist{Count: 40, P50: 20, P95: 58600}}
	tb.SetData("sim", []model.LevelStats{lv}, 0, 30)
	v := tb.View()
	if !strings.Contains(v, st.Bad.Render(fmt.Sprintf("%9s", fmtMs(58600)))) || !strings.Contains(v, st.Good.Render(fmt.Sprintf("%9s", fmtMs(20)))) {
		t.Errorf("the table's TTFT cells are not coloured against 2 s:\n%q", v)
	}
	within := model.LevelStats{Concurrency: 64, Requests: 1000, Succeeded: 995, ErrorRate: 0.005}
	over := model.LevelStats{Concurrency: 128, Requests: 100, Succeeded: 90, ErrorRate: 0.1}
	tb.SetData("sim", []model.LevelStats{within, over}, 0, 30)
	v = tb.View()
	if !strings.Contains(v, st.Warn.Render(fmt.Sprintf("%11s", "5 0.5%"))) || !strings.Contains(v, st.Bad.Render(fmt.Sprintf("%11s", "10 10.0%"))) {
		t.Errorf("the errors cells are not coloured against 1%%:\n%q", v)
	}
	p = sized(&seriesPanel{}, size{200, 7})
	p.SetTTFTTarget(2 * time.Second)
	p.SetData(buckets, model.Live{At: t0, HasTTFT: true, TTFTP50: 720 * time.Millisecond, TTFTP95: 1910 * time.Millisecond}, 30)
	if v := ansi.Strip(p.View()); !strings.Contains(v, "p95 1.91 s  target ≤2 s") {
		t.Errorf("the TTFT target is not shown beside TTFT:\n%s", v)
	}
}

// TestSeriesSaysSilenceAndTTFO: a frozen server's per-user value says the silence
// instead of 0.0 tok/s; a reasoning model's TTFO stands beside TTFT.
func TestSeriesSaysSilenceAndTTFO(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := sized(&seriesPanel{}, size{80, 3})
	p.SetData(rampBuckets(60), model.Live{At: t0, HasUser: true, UserTPS: 0, Active: 32, Silent: 32, SilentFor: 15 * time.Second}, 30)
	if v := strings.SplitN(ansi.Strip(p.View()), "\n", 2)[0]; !strings.Contains(v, "silent 15 s") || strings.Contains(v, "0.0 tok/s") {
		t.Errorf("frozen server:\n%s", v)
	}
	p.SetData(rampBuckets(60), model.Live{At: t0, HasTTFT: true, TTFTP95: 40 * time.Millisecond,
		Reasoning: true, HasTTFO: true, TTFOP95: 2280 * time.Millisecond}, 30)
	if v := ansi.Strip(p.View()); !strings.Contains(v, "p95 40 ms  TTFO 2.28 s") {
		t.Errorf("reasoning model: TTFO not beside TTFT (whole):\n%s", v)
	}
	tb := sized(&tablePanel{}, size{tableWidth(), 6})
	tb.SetTargets(2*time.Second, true)
	tb.SetData("sim", []model.LevelStats{{Concurrency: 1, Requests: 20, Succeeded: 20,
		TTFT: model.Dist{Count: 20, P95: 37}, TTFO: model.Dist{Count: 20, P95: 2290}}}, 0, 30)
	if v := ansi.Strip(tb.View()); !strings.Contains(v, "TTFO p95") || !strings.Contains(v, "2.29 s") {
		t.Errorf("table without TTFO:\n%s", v)
	}
}

// TestEmptyLevelsLeftOut: levels no request ended in are neither rows nor points.
func TestEmptyLevelsLeftOut(t *testing.T) {
	got := withRequests([]model.LevelStats{{Concurrency: 1, Requests: 3}, {Concurrency: 2}, {Concurrency: 3}, {Concurrency: 4, Open: true}})
	if len(got) != 2 || got[0].Concurrency != 1 || got[1].Concurrency != 4 {
		t.Errorf("withRequests kept %v, want levels 1 and 4 (open)", got)
	}
}
