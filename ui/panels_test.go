package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
)

type size struct{ w, h int }

func (s size) String() string { return fmt.Sprintf("%dx%d", s.w, s.h) }

// sized gives p the test styles and sz, as the root does before any data.
func sized[P component](p P, sz size) P {
	p.SetStyles(testStyles())
	p.SetSize(sz.w, sz.h)
	return p
}

// goldenView checks that p's view fits sz and matches the test's golden file.
func goldenView(t *testing.T, p component, sz size) {
	t.Helper()
	out := p.View()
	checkBox(t, out, sz.w, sz.h)
	golden(t, out)
}

func TestHeaderPanel(t *testing.T) {
	base := headerData{
		Name: "sim", Model: "sim-llama-8b", Host: "127.0.0.1:8000", Simulated: true, Count: 1,
		TokenSource: model.SourceUsage, Target: 16, Active: 16, Elapsed: 83 * time.Second,
	}
	cases := []struct {
		name string
		size size
		edit func(*headerData)
	}{
		{"steady_80x2", size{80, 2}, func(*headerData) {}},
		{"ramp_120x2", size{120, 2}, func(d *headerData) {
			d.Ramp, d.Active = "4/7 at 8 users, 6s left", 7
		}},
		{"paused_all_chunks_120x2", size{120, 2}, func(d *headerData) {
			d.Paused, d.AllEndpoints, d.Count, d.Index = true, true, 3, 1
			d.Simulated, d.TokenSource, d.Name = false, model.SourceChunks, "vllm-b"
		}},
		{"narrow_40x2", size{40, 2}, func(*headerData) {}},
		{"one_line_80x1", size{80, 1}, func(*headerData) {}},
		{"api_messages_120x2", size{120, 2}, func(d *headerData) { d.API = "messages" }},
		{"trace_window_120x2", size{120, 2}, func(d *headerData) {
			d.Trace, d.Target, d.Active, d.Ramp = true, 2, 5, "2/3 at window 2, 12/20 requests, 4s left"
		}},
		{"trace_sent_120x2", size{120, 2}, func(d *headerData) { d.Trace, d.Target, d.Active, d.Ramp = true, 0, 98, "" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := base
			c.edit(&d)
			p := sized(&headerPanel{}, c.size)
			p.SetData(d)
			goldenView(t, p, c.size)
		})
	}
}

// The header names the API when it is not chat (the default says nothing new).
func TestHeaderNamesTheAPI(t *testing.T) {
	for api, want := range map[string]bool{"": false, "chat": false, "completions": true, "messages": true, "responses": true} {
		p := sized(&headerPanel{}, size{120, 2})
		p.SetData(headerData{Name: "sim", Model: "m", API: api, Target: 1})
		if got := strings.Contains(ansi.Strip(p.View()), "API "+api); got != want {
			t.Errorf("API %q named: %v, want %v:\n%s", api, got, want, ansi.Strip(p.View()))
		}
	}
}

func TestSeriesPanel(t *testing.T) {
	full := rampBuckets(600)
	last := full[len(full)-1]
	live := model.Live{At: last.Start, AggregateTPS: last.AggregateTPS, UserTPS: last.UserTPS, HasUser: true,
		TTFTP50: last.TTFTP50, TTFTP95: last.TTFTP95, HasTTFT: true}
	cases := []struct {
		name    string
		size    size
		buckets []model.Bucket
		live    model.Live
	}{
		{"stacked_80x3", size{80, 3}, full, live},
		{"stacked_80x6", size{80, 6}, full, live},
		{"cols_120x7", size{120, 7}, full, live},
		{"cols_200x11", size{200, 11}, full, live},
		{"few_buckets_120x7", size{120, 7}, full[:12], live},
		{"empty_80x3", size{80, 3}, nil, model.Live{}},
		{"below_slo_80x3", size{80, 3}, full, model.Live{At: t0, UserTPS: 12.5, HasUser: true, AggregateTPS: 800}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := sized(&seriesPanel{}, c.size)
			bs := c.buckets
			if n := p.History(); len(bs) > n {
				bs = bs[len(bs)-n:]
			}
			p.SetData(bs, c.live, 30)
			goldenView(t, p, c.size)
		})
	}
}

// TestSeriesHeadsNotCut: where the series sit side by side, a value is never cut to
// make room for the target note (the note is left out when it does not fit).
func TestSeriesHeadsNotCut(t *testing.T) {
	full := rampBuckets(600)
	last := full[len(full)-1]
	live := model.Live{At: last.Start, AggregateTPS: 12345, UserTPS: 19.2, HasUser: true,
		TTFTP50: 720 * time.Millisecond, TTFTP95: 1910 * time.Millisecond, HasTTFT: true}
	for w := seriesCols; w <= 140; w++ {
		p := sized(&seriesPanel{}, size{w, 7})
		p.SetData(full, live, 30)
		head := strings.Split(ansi.Strip(p.View()), "\n")[0]
		if strings.Contains(head, "…") {
			t.Errorf("width %d: a series head is cut: %q", w, head)
		}
		if w >= 120 && !strings.Contains(head, "target ≥30") {
			t.Errorf("width %d: no target note: %q", w, head)
		}
	}
}

func TestCurvePanel(t *testing.T) {
	levels := rampLevels()
	second := rampLevels()
	for i := range second {
		second[i].UserTPS.P50 *= 1.4
		second[i].AggregateTPS *= 1.4
		second[i].Open = false
	}
	one := []curveSeries{{Name: "sim", Levels: levels, Capacity: 16}}
	two := []curveSeries{{Name: "sim", Levels: levels, Capacity: 16}, {Name: "vllm-b", Levels: second[:5], Capacity: 32}}
	cases := []struct {
		name   string
		size   size
		series []curveSeries
	}{
		{"split_80x10", size{80, 10}, one},
		{"stacked_66x27", size{66, 27}, one},
		{"split_134x27", size{134, 27}, one},
		{"two_endpoints_120x14", size{120, 14}, two},
		{"compact_80x4", size{80, 4}, one},
		{"one_level_80x10", size{80, 10}, []curveSeries{{Name: "sim", Levels: levels[:1]}}},
		{"empty_80x10", size{80, 10}, []curveSeries{{Name: "sim"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := sized(&curvePanel{}, c.size)
			p.SetData(c.series, 30)
			goldenView(t, p, c.size)
		})
	}
}

func TestCurveMarksOpenAndCapacity(t *testing.T) {
	p := sized(&curvePanel{}, size{80, 12})
	p.SetData([]curveSeries{{Name: "sim", Levels: rampLevels(), Capacity: 16}}, 30)
	out := p.View()
	// one open point and one capacity point per chart
	if n := strings.Count(out, "●"); n != 2+1 { // + the legend
		t.Errorf("%d open markers, want 2 and the legend's:\n%s", n, out)
	}
	if n := strings.Count(out, "◆"); n != 2+1 {
		t.Errorf("%d capacity markers, want 2 and the legend's:\n%s", n, out)
	}
	levels := rampLevels()
	levels[len(levels)-1].Open = false
	p.SetData([]curveSeries{{Name: "sim", Levels: levels}}, 30)
	out = p.View()
	if strings.Count(out, "●") != 1 || strings.Count(out, "◆") != 1 {
		t.Errorf("no open level and no capacity must leave only the legend's markers:\n%s", out)
	}
}

// TestCurveCapacityAmongCrowdedLevels is the screen after a bisection: the capacity, 22
// users, is the level held now and shares its cells with 23 users beside it (the README's
// capture hid its ◆ under 23's dot). ◆ shows on both charts.
func TestCurveCapacityAmongCrowdedLevels(t *testing.T) {
	var levels []model.LevelStats
	for _, l := range rampLevels() {
		l.Open = false
		levels = append(levels, l)
	}
	at := func(u int, v float64) model.LevelStats {
		l := levels[4]
		l.Concurrency, l.UserTPS.P50, l.AggregateTPS = u, v, v*float64(u)
		return l
	}
	near := []model.LevelStats{at(22, 30.6), at(23, 29.8)}
	near[0].Open = true
	levels = append(levels[:5], append(near, levels[5:]...)...)
	p := sized(&curvePanel{}, size{80, 12})
	p.SetData([]curveSeries{{Name: "sim", Levels: levels, Capacity: 22}}, 30)
	out := p.View()
	if n := strings.Count(out, "◆"); n != 2+1 {
		t.Errorf("%d capacity markers, want one per chart and the legend's:\n%s", n, out)
	}
}

// TestCurveXLabelsEverySeries: the x axis names the concurrencies of every endpoint's
// levels, also those of a later endpoint that lie left of the first one's.
func TestCurveXLabelsEverySeries(t *testing.T) {
	ls := rampLevels()
	a := []model.LevelStats{ls[3], ls[4]} // 8, 16
	b := []model.LevelStats{ls[0], ls[1]} // 1, 2
	p := sized(&curvePanel{}, size{120, 14})
	p.SetData([]curveSeries{{Name: "a", Levels: a}, {Name: "b", Levels: b}}, 30)
	lines := strings.Split(ansi.Strip(p.View()), "\n")
	axis := strings.Fields(lines[len(lines)-1])
	want := []string{"1", "2", "8", "16", "1", "2", "8", "16"} // both charts
	if strings.Join(axis, " ") != strings.Join(want, " ") {
		t.Errorf("x labels %q, want %q:\n%s", axis, want, strings.Join(lines, "\n"))
	}
}

func TestTablePanel(t *testing.T) {
	levels := rampLevels()
	openFirst := rampLevels()
	openFirst[len(openFirst)-1].Open = false
	openFirst[1].Open = true
	measuring := levelProgress{Users: 32, Steady: 12, Need: 64, Left: 6200 * time.Millisecond, MaxLeft: 100 * time.Second}
	waiting := levelProgress{Users: 32, Steady: 40, Need: 64, MaxLeft: 80 * time.Second}
	short := rampLevels()
	short[2].Short, short[4].Short = true, true // 4 and 16 users
	refined := rampLevels()                     // 8 undecided on TTFT p95, 4 and 16 added by the bisection
	refined[3].Undecided = []string{model.TermTTFT}
	refined[2].Refined, refined[4].Refined = true, true
	cases := []struct {
		name     string
		size     size
		levels   []model.LevelStats
		progress levelProgress
	}{
		{"all_rows_80x8", size{80, 8}, levels, levelProgress{}},
		{"newest_rows_80x5", size{80, 5}, levels, levelProgress{}},
		{"keeps_open_row_80x5", size{80, 5}, openFirst, levelProgress{}},
		{"narrow_50x8", size{50, 8}, levels, levelProgress{}},
		{"empty_80x5", size{80, 5}, nil, levelProgress{}},
		{"progress_80x9", size{80, 9}, levels, measuring},
		{"warming_80x9", size{80, 9}, levels, levelProgress{Users: 32, Need: 64, Warming: true, Left: 10 * time.Second}},
		{"waiting_80x9", size{80, 9}, levels, waiting},
		{"short_80x9", size{80, 9}, short, levelProgress{}},
		{"progress_short_80x10", size{80, 10}, short, measuring},
		{"crowded_progress_short_80x5", size{80, 5}, short, measuring},
		{"crowded_progress_short_80x6", size{80, 6}, short, measuring},
		{"undecided_refined_80x10", size{80, 10}, refined, levelProgress{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := sized(&tablePanel{}, c.size)
			p.SetData("sim", c.levels, 16, 30)
			p.SetProgress(c.progress)
			goldenView(t, p, c.size)
		})
	}
}

// TestTableProgressRedrawsOnVisibleChange: the progress redraws the table when what it
// shows changes (a request, a second of hold), not on every tick.
func TestTableProgressRedrawsOnVisibleChange(t *testing.T) {
	p := sized(&tablePanel{}, size{80, 9})
	p.SetData("sim", rampLevels(), 16, 30)
	lp := levelProgress{Users: 32, Steady: 12, Need: 64, Left: 6200 * time.Millisecond, MaxLeft: time.Minute}
	p.SetProgress(lp)
	if !strings.Contains(ansi.Strip(p.View()), "▸ 32 users: 12/64 steady requests, 6 s left") {
		t.Fatalf("no progress line:\n%s", ansi.Strip(p.View()))
	}
	lp.Left -= 250 * time.Millisecond // still 6 s on screen
	p.SetProgress(lp)
	if p.dirty {
		t.Error("a quarter second of hold with no visible change marked the table dirty")
	}
	lp.Steady++
	p.SetProgress(lp)
	if !strings.Contains(ansi.Strip(p.View()), "▸ 32 users: 13/64 steady requests") {
		t.Errorf("a new steady request is not shown:\n%s", ansi.Strip(p.View()))
	}
	p.SetProgress(levelProgress{})
	if strings.Contains(ansi.Strip(p.View()), "requests,") {
		t.Errorf("the progress stays after the ramp stopped:\n%s", ansi.Strip(p.View()))
	}
}

func TestVisibleRows(t *testing.T) {
	cases := []struct {
		n, room, keep int
		from, to      int
	}{
		{5, 10, -1, 0, 5},
		{10, 3, -1, 7, 10},
		{10, 3, 9, 7, 10},
		{10, 3, 2, 0, 3},
		{10, 3, 0, 0, 3},
		{10, 3, 5, 3, 6},
		{10, 0, 4, 0, 0},
	}
	for _, c := range cases {
		from, to := visibleRows(c.n, c.room, c.keep)
		if from != c.from || to != c.to {
			t.Errorf("visibleRows(%d,%d,%d) = %d,%d; want %d,%d", c.n, c.room, c.keep, from, to, c.from, c.to)
		}
	}
}

func TestStatusPanel(t *testing.T) {
	errs := map[model.ErrorKind]int{model.HTTPError(429): 3, model.ErrTimeout: 1, model.ErrConnect: 3, model.ErrCanceled: 9}
	cases := []struct {
		name string
		size size
		d    statusData
	}{
		{"errors_and_message_120x3", size{120, 3}, statusData{Active: 32, Requests: 431, Succeeded: 424, Errors: errs,
			LastError: "connect: connection refused 127.0.0.1:8000", Message: "snapshot saved: ./tpsmon-20261122-120000.json (+ .md)"}},
		{"message_wins_80x2", size{80, 2}, statusData{Active: 8, Requests: 40, Succeeded: 40,
			LastError: "timeout: no event for 60s", Message: "auto-ramp stopped at 16 users: 7.5% of requests failed on sim (over 5%)", Bad: true}},
		{"last_error_80x2", size{80, 2}, statusData{Active: 8, Requests: 41, Succeeded: 40, Errors: map[model.ErrorKind]int{model.ErrTruncated: 1},
			LastError: "truncated: the stream ended with no finish_reason and no [DONE]"}},
		{"healthy_80x1", size{80, 1}, statusData{Active: 1, Requests: 3, Succeeded: 3}},
		{"verdict_and_outcome_80x3", size{80, 3}, statusData{Active: 16, Requests: 900, Succeeded: 900,
			Verdicts: []verdict{{Full: "capacity 16 users; saturates at 32 users (740 tok/s; doubling to 64 users adds less than 10%)",
				Short: "capacity 16 users; saturates at 32 users (740 tok/s)"}},
			Message: "auto-ramp finished: settled at 16 users (the capacity)"}},
		{"frozen_server_120x4", size{120, 4}, statusData{Active: 32, Requests: 500, Succeeded: 500, Silent: 32, SilentFor: 15 * time.Second,
			Verdicts: []verdict{{Full: "capacity at least 32 users (limit not reached: the ramp goes on); saturation not reached (every doubling of users added at least 10% aggregate tok/s)",
				Short: "capacity at least 32 users; saturation not reached"}}}},
		{"recent_errors_two_endpoints_120x6", size{120, 6}, statusData{Active: 8, Requests: 600, Succeeded: 540,
			Errors:    map[model.ErrorKind]int{model.ErrTimeout: 50, model.HTTPError(500): 10},
			Recent:    map[model.ErrorKind]int{model.HTTPError(500): 4, model.ErrTimeout: 1},
			LastError: "http_500: Internal Server Error", Focus: 1,
			Verdicts: []verdict{{Full: "a: capacity 8 users; saturation not measured (no level measured in full was followed by one with twice its users)",
				Short: "a: capacity 8 users; saturation not measured"},
				{Full: "b: capacity none: no level measured in full meets the criteria (1 user: errors 9.09% > 1%); saturation not measured (no level measured in full was followed by one with twice its users)",
					Short: "b: capacity none (1 user: errors 9.09% > 1%); saturation not measured", Severity: model.SevProblem}}}},
		{"old_errors_only_120x2", size{120, 2}, statusData{Active: 8, Requests: 600, Succeeded: 590,
			Errors: map[model.ErrorKind]int{model.ErrTimeout: 10}, Recent: map[model.ErrorKind]int{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := sized(&statusPanel{}, c.size)
			p.SetData(c.d)
			goldenView(t, p, c.size)
		})
	}
}

func TestErrorKindsOrderAndCanceled(t *testing.T) {
	got := errorKinds(map[model.ErrorKind]int{"timeout": 1, "http_500": 4, "connect": 4, "canceled": 7, "truncated": 0})
	want := []string{"connect 4", "http_500 4", "timeout 1"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("errorKinds = %v, want %v (most first, canceled and zero left out)", got, want)
	}
}

func TestPanelsCacheUntilDataChanges(t *testing.T) {
	p := sized(&headerPanel{}, size{80, 2})
	p.SetData(headerData{Name: "a", Target: 1})
	first := p.View()
	p.SetData(headerData{Name: "a", Target: 1})
	if p.dirty {
		t.Fatal("same data marked the header dirty")
	}
	p.SetData(headerData{Name: "a", Target: 2})
	if p.View() == first {
		t.Fatal("new data did not redraw the header")
	}
}

func TestAxisTicks(t *testing.T) {
	cases := []struct {
		max       float64
		rows      int
		top, step float64
	}{
		{95.2, 8, 100, 50},
		{95.2, 36, 100, 10},
		{62.6, 6, 75, 25},
		{437, 8, 500, 250},
		{0, 8, 1, 0.5},
		{1234, 20, 1250, 250},
		{29, 3, 30, 30},
		{278, 6, 300, 100}, // 0/100/200/300 rather than 0/300 alone
	}
	for _, c := range cases {
		top, step := axisTicks(c.max, c.rows)
		if top != c.top || step != c.step {
			t.Errorf("axisTicks(%v, %d) = %v, %v; want %v, %v", c.max, c.rows, top, step, c.top, c.step)
		}
		if ticks := top / step; ticks > float64(c.rows)/2+1 {
			t.Errorf("axisTicks(%v, %d): %v ticks crowd %d rows", c.max, c.rows, ticks, c.rows)
		}
	}
	for _, c := range []struct {
		v, step float64
		want    string
	}{{0, 50, "0"}, {50, 50, "50"}, {7.5, 2.5, "7.5"}, {5, 2.5, "5.0"}, {0.5, 0.5, "0.5"},
		{15000, 5000, "15k"}, {2500, 2500, "2.5k"}, {30, 0, "30"}, {12.5, 0, "12.5"}} {
		if got := fmtTick(c.v, c.step); got != c.want {
			t.Errorf("fmtTick(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}

// TestCurveAxisLabelsWhereValuesAre checks that a y label sits on the row where its
// value is drawn: levels whose per-user p50 are the tick values have their markers on
// the rows of those labels, and the target rule is on the row labelled with the target.
func TestCurveAxisLabelsWhereValuesAre(t *testing.T) {
	for _, sz := range []size{{66, 27}, {134, 27}, {80, 14}, {200, 40}, {80, 10}} {
		_, _, ch := curveArrangement(sz.w, sz.h)
		top, step := axisTicks(100, ch-2)
		if top != 100 {
			t.Fatalf("%v: axisTicks(100, %d) top = %v", sz, ch-2, top)
		}
		levels := rampLevels()[:4]
		want := []float64{100}
		for v := top - step; v > 0 && len(want) < len(levels); v -= step {
			want = append(want, v)
		}
		for i := range levels {
			levels[i].UserTPS.P50 = want[min(i, len(want)-1)]
		}
		p := sized(&curvePanel{}, sz)
		p.SetData([]curveSeries{{Name: "sim", Levels: levels}}, 30)
		lines := strings.Split(ansi.Strip(p.View()), "\n")
		row := func(label string) (string, bool) {
			for _, l := range lines {
				if strings.HasPrefix(strings.TrimLeft(l, " "), label+"│") {
					return l, true
				}
			}
			return "", false
		}
		for _, v := range want {
			label := fmtTick(v, step)
			r, ok := row(label)
			if !ok {
				t.Errorf("%v: no y label %s:\n%s", sz, label, strings.Join(lines, "\n"))
			} else if !strings.Contains(r, "•") {
				t.Errorf("%v: the level at %s is not on the row labelled %s:\n%s", sz, label, label, strings.Join(lines, "\n"))
			}
		}
		if r, ok := row("30"); !ok || countBraille(r) < sz.w/4-5 {
			t.Errorf("%v: the target rule is not on a row labelled 30:\n%s", sz, strings.Join(lines, "\n"))
		}
	}
}

func countBraille(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x2801 && r <= 0x28FF {
			n++
		}
	}
	return n
}

// TestPanelBase: the shared base renders once per change (data, size, styles), and a
// panel with no room shows nothing without rendering.
func TestPanelBase(t *testing.T) {
	var p panel
	calls := 0
	render := func() string { calls++; return "x" }
	if got := p.view(render); got != "" || calls != 0 {
		t.Fatalf("zero-value panel: view %q after %d renders, want nothing and none", got, calls)
	}
	p.SetSize(10, 0)
	if got := p.view(render); got != "" || calls != 0 {
		t.Fatalf("no height: view %q after %d renders, want nothing and none", got, calls)
	}
	p.SetSize(10, 2)
	for range 3 {
		if got := p.view(render); got != "x" {
			t.Fatalf("view %q, want x", got)
		}
	}
	if calls != 1 {
		t.Fatalf("%d renders for one size, want 1 (cached)", calls)
	}
	p.SetStyles(testStyles())
	p.view(render)
	p.dirty = true // what a SetData does
	p.view(render)
	if calls != 3 {
		t.Fatalf("%d renders, want 3 (size, styles, data)", calls)
	}
	p.SetSize(0, 2)
	if got := p.view(render); got != "" || calls != 3 {
		t.Fatalf("shrunk to nothing: view %q after %d renders, want the old view dropped", got, calls)
	}
}

// TestCurveLegendSurvives: the endpoints' key (each its line and marker, which tell them
// apart also without colour) and the capacity marker's key stay
// on the curve's title line at the width the curve has at 120x40, also when the
// endpoints are named by host:port.
func TestCurveLegendSurvives(t *testing.T) {
	levels := rampLevels()
	w := computeLayout(120, 40, 1, 2).CurveW
	for _, c := range []struct {
		series []curveSeries
		want   []string
	}{
		{[]curveSeries{{Name: "sim", Levels: levels, Capacity: 16}}, []string{"◆ capacity", "● now"}},
		{[]curveSeries{{Name: "127.0.0.1:8000", Levels: levels}, {Name: "127.0.0.1:8001", Levels: levels}},
			[]string{"━• 127.0.0.1:8000", "╍▪ 127.0.0.1:8001", "◆ capacity"}},
		{[]curveSeries{{Name: "gpu-a.example.com:8000", Levels: levels}, {Name: "gpu-b.example.com:8000", Levels: levels}},
			[]string{"━• gpu-a", "╍▪ gpu-b", "◆ capacity"}},
		{[]curveSeries{{Name: "10.20.30.40:8000", Levels: levels}, {Name: "10.20.30.40:8001", Levels: levels}, {Name: "10.20.30.40:8002", Levels: levels}},
			[]string{"━• :8000", "╍▪ :8001", "┅▴ :8002", "◆ capacity"}},
	} {
		p := sized(&curvePanel{}, size{w, 24})
		p.SetData(c.series, 30)
		head := ansi.Strip(strings.SplitN(p.View(), "\n", 2)[0])
		for _, s := range c.want {
			if !strings.Contains(head, s) {
				t.Errorf("width %d: %q not in the curve's title line %q", w, s, head)
			}
		}
	}
}

// TestCurveHintFits: the first screen's hint is whole at every curve width.
func TestCurveHintFits(t *testing.T) {
	for _, w := range []int{80, computeLayout(120, 40, 1, 1).CurveW, 30} {
		p := sized(&curvePanel{}, size{w, 10})
		p.SetData([]curveSeries{{Name: "sim"}}, 30)
		lines := strings.Split(ansi.Strip(p.View()), "\n")
		if len(lines) < 2 || strings.Contains(lines[1], "…") || !strings.Contains(lines[1], "+") {
			t.Errorf("width %d: hint %q is cut or missing", w, lines[1:])
		}
	}
}
