package ui

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output/timeseries"
)

// recording runs a hand-fed engine (real level books) through 1 and then 4 users for
// secs seconds each, recording its time series, and returns it with the engine.
func recording(t *testing.T, secs int) (*timeseries.Series, *engine.Engine) {
	t.Helper()
	var buf bytes.Buffer
	w := timeseries.NewWriter(&buf)
	ctl := &fakeCtl{}
	e, err := engine.New(engine.Config{Observers: []engine.Observer{w}}, []engine.Part{{Endpoint: client.Endpoint{Name: "gpu-a", BaseURL: "http://127.0.0.1:1/v1", Model: "llama"}, Control: ctl}})
	if err != nil {
		t.Fatal(err)
	}
	sec := 0
	for seg, users := range []int{1, 4} {
		ctl.conc = users
		start := t0.Add(time.Duration(sec) * time.Second)
		e.Handle(probe.Event{Segment: &model.Segment{ID: seg, Concurrency: users, Start: start, SteadyAt: start, End: start, Open: true}})
		for range secs {
			from, to := t0.Add(time.Duration(sec)*time.Second), t0.Add(time.Duration(sec+1)*time.Second)
			user := 100 / float64(users) // per-user tok/s falls as users are added
			for u := range users {
				s := &model.Sample{Segment: seg, Concurrency: users, Send: from, First: from.Add(50 * time.Millisecond),
					Last: from.Add(50*time.Millisecond + time.Duration(float64(time.Second)*19/user)), Tokens: 20, Usage: true, Status: 200, Finish: "stop"}
				s.End = s.Last
				if u == 3 && sec%2 == 0 {
					s.Err, s.ErrMsg = model.HTTPError(429), "HTTP 429: too many requests"
				}
				e.Handle(probe.Event{Sample: s})
			}
			chunks := make([]int32, users)
			for i := range chunks {
				chunks[i] = int32(user)
			}
			e.Handle(probe.Event{Segment: &model.Segment{ID: seg, Concurrency: users, Start: start, SteadyAt: start, End: to, Open: true, SteadyChunks: int64(user) * int64(users) * int64(sec+1)}})
			e.Handle(probe.Event{Tick: &model.Tick{Start: from, End: to, Target: users, Active: users, Chunks: int64(user) * int64(users),
				UserChunks: chunks, FirstTokens: []time.Duration{50 * time.Millisecond}, Started: users, Finished: users}})
			sec++
		}
		end := t0.Add(time.Duration(sec) * time.Second) // the pool closes the segment at a change
		e.Handle(probe.Event{Segment: &model.Segment{ID: seg, Concurrency: users, Start: start, SteadyAt: start, End: end, SteadyChunks: int64(100 * sec)}})
	}
	s, err := timeseries.Read(&buf)
	if err != nil || w.Err() != nil {
		t.Fatal(err, w.Err())
	}
	return s, e
}

func newTestReplay(t *testing.T, s *timeseries.Series) *replayRoot {
	t.Helper()
	m, err := newReplay(ReplayOptions{Series: s, Name: "run.jsonl"}, false)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m
}

// at plays the replay to wall time t0+d.
func (m *replayRoot) at(d time.Duration) { m.Update(tickMsg(t0.Add(d))) }

func TestReplayShowsWhatWasRecorded(t *testing.T) {
	s, e := recording(t, 25)
	if len(s.Lines) != 50 {
		t.Fatalf("%d lines recorded, want 50", len(s.Lines))
	}
	m := newTestReplay(t, s)
	m.at(0)
	m.at(10 * time.Second)
	out := ansi.Strip(m.View().Content)
	for _, w := range []string{"gpu-a", "model llama", "host 127.0.0.1:1 ", "users 1", "replay 00:10 of 00:50, real time", "replay of run.jsonl", "errors none"} {
		if !strings.Contains(out, w) {
			t.Errorf("at 10 s the screen does not show %q:\n%s", w, out)
		}
	}
	m.at(60 * time.Second)
	out = ansi.Strip(m.View().Content)
	// The table shows the levels as the engine's level book has them.
	for _, l := range e.Book(0).Levels() {
		row := levelRow(out, l.Concurrency)
		if row == "" || !strings.Contains(row, fmtRate(l.UserTPS.P50)) || !strings.Contains(row, " "+itoa(l.Requests)+" ") {
			t.Errorf("level %d (user p50 %s, %d requests): table row %q", l.Concurrency, fmtRate(l.UserTPS.P50), l.Requests, row)
		}
	}
	req, ok, errs := e.Book(0).Totals()
	n429 := itoa(errs[model.HTTPError(429)]) // all in the last minute, as the live status ranks them
	if want := "requests " + itoa(req) + " · ok " + itoa(ok) + " · errors last min http_429 " + n429 + " · " + n429 + " in all"; !strings.Contains(out, want) {
		t.Errorf("status does not say %q:\n%s", want, out)
	}
	if row := levelRow(out, 1); strings.Contains(row, "▸") || !strings.Contains(levelRow(out, 4), "▸") {
		t.Errorf("the closed level is shown open, or the open one closed:\n%s", out)
	}
	if !strings.Contains(out, "replay 00:50 of 00:50, the end") || !strings.Contains(out, "users 4") {
		t.Errorf("at the end:\n%s", out)
	}
	// The capacity the live screen marked: ◆ on the curve and in the table, and the verdict
	// (with how sure it is: the levels' intervals are recorded; 25 requests at 1 user
	// bound no TTFT p95).
	if row := levelRow(out, 1); !strings.Contains(row, "◆") || !strings.Contains(out, "100│◆") ||
		!strings.Contains(out, "\ncapacity 1 user, not decided at 95%; saturation not reached") {
		t.Errorf("no capacity ◆ at 1 user on the curve and in the table, or no verdict:\n%s", out)
	}
}

// levelRow is the table's row of users (the table sits right of the curve at 120 wide).
func levelRow(screen string, users int) string {
	for _, line := range strings.Split(screen, "\n") {
		if i := strings.Index(line, "  users "); i >= 0 {
			continue
		}
		f := strings.Fields(line[min(len(line), 51):])
		if len(f) > 2 && (f[0] == itoa(users) || len(f) > 3 && f[1] == itoa(users) && (f[0] == "▸" || f[0] == "◆")) {
			return line
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestReplayKeys(t *testing.T) {
	s, _ := recording(t, 20)
	m := newTestReplay(t, s)
	m.at(0)
	m.at(5 * time.Second)
	if m.next != 5 {
		t.Fatalf("5 s in: %d lines shown, want 5", m.next)
	}
	m.Update(press(" "))
	m.at(9 * time.Second)
	if m.next != 5 || !strings.Contains(ansi.Strip(m.View().Content), "replay 00:05 of 00:40, paused") || !m.keys.Play.Enabled() {
		t.Fatalf("paused: %d lines shown, want 5 still:\n%s", m.next, ansi.Strip(m.View().Content))
	}
	m.Update(press("p"))
	m.Update(press(">"))
	m.Update(press(">"))
	m.at(11 * time.Second) // 2 s at x4
	if m.next != 13 || !strings.Contains(ansi.Strip(m.View().Content), "replay 00:13 of 00:40, ×4") {
		t.Fatalf("x4: %d lines shown, want 13:\n%s", m.next, ansi.Strip(m.View().Content))
	}
	m.Update(press("<"))
	m.at(12 * time.Second)
	if m.next != 15 {
		t.Fatalf("x2: %d lines shown, want 15", m.next)
	}
	m.Update(press("1"))
	m.at(13 * time.Second)
	if m.next != 16 {
		t.Fatalf("x1: %d lines shown, want 16", m.next)
	}
	m.Update(press("r"))
	m.at(14 * time.Second)
	if m.next != 1 || m.eps[0].requests != 1 {
		t.Fatalf("r: %d lines shown, requests %d; want the first line again", m.next, m.eps[0].requests)
	}
	theme := m.st.Theme
	m.Update(press("t"))
	if m.st.Theme == theme {
		t.Error("t kept the theme")
	}
	m.Update(press("?"))
	help := ansi.Strip(m.View().Content)
	for _, w := range []string{"space/p", "pause", "real time", "speed ×2", "1 min back", "1 min on", "next level",
		"previous level", "from the start", "to the end", "next theme", "quit"} {
		if !strings.Contains(help, w) {
			t.Errorf("the help does not list %q:\n%s", w, help)
		}
	}
	if strings.Contains(help, "next endpoint") {
		t.Error("the help lists tab with one endpoint")
	}
	if _, cmd := m.Update(press("q")); cmd == nil || cmd() != tea.Quit() {
		t.Error("q does not quit")
	}
}

// TestReplaySpeedsUpTo64: > doubles the speed up to ×64 (an hour in about a minute),
// < halves it down to real time, and the help words what each leads to.
func TestReplaySpeedsUpTo64(t *testing.T) {
	s, _ := recording(t, 150)
	m := newTestReplay(t, s)
	m.at(0)
	for range 8 { // two presses more than it takes
		m.Update(press(">"))
	}
	if m.speed != MaxReplaySpeed || m.keys.Faster.Enabled() {
		t.Fatalf("speed ×%d after 8 presses of >, faster still offered: %v", m.speed, m.keys.Faster.Enabled())
	}
	m.at(2 * time.Second) // 2 s at x64: 128 s of the recording
	if m.next != 128 || !strings.Contains(ansi.Strip(m.View().Content), "replay 02:08 of 05:00, ×64") {
		t.Fatalf("x64: %d lines after 2 s, want 128:\n%s", m.next, ansi.Strip(m.View().Content))
	}
	if h := m.keys.Slower.Help(); h.Desc != "speed ×32" {
		t.Errorf("< says %q at x64, want speed ×32", h.Desc)
	}
	for range 8 {
		m.Update(press("<"))
	}
	if m.speed != 1 || m.keys.Slower.Enabled() || m.keys.Faster.Help().Desc != "speed ×2" {
		t.Errorf("speed ×%d after 8 presses of <, slower still offered %v, faster says %q", m.speed, m.keys.Slower.Enabled(), m.keys.Faster.Help().Desc)
	}
}

// TestReplaySeeks: → and ← move a minute on and back, showing the screen as it was
// then (totals, levels, the level held); ] and [ jump to the start of the next level
// and back to the start of the level shown, then the one before; end shows the end.
func TestReplaySeeks(t *testing.T) {
	s, e := recording(t, 90) // 1 user for 90 s, then 4 users for 90 s
	m := newTestReplay(t, s)
	m.at(0)
	screen := func() string { return ansi.Strip(m.View().Content) }
	m.Update(press("right"))
	if m.next != 60 || m.eps[0].target != 1 || !strings.Contains(screen(), "replay 01:00 of 03:00") {
		t.Fatalf("→: %d lines shown, users %d, want 60 and 1:\n%s", m.next, m.eps[0].target, screen())
	}
	m.Update(press("right"))
	m.Update(press("right")) // 3:00
	atEnd := screen()
	m.Update(press("left"))
	if m.next != 120 || m.eps[0].target != 4 || !strings.Contains(screen(), "replay 02:00 of 03:00") {
		t.Fatalf("→→→←: %d lines shown, users %d; want 120 and 4:\n%s", m.next, m.eps[0].target, screen())
	}
	// Back past a level: the totals and the table are the ones of that time again.
	m.Update(press("left"))
	m.Update(press("left"))
	if m.next != 0 || m.eps[0].requests != 0 || len(m.eps[0].levels) != 0 {
		t.Fatalf("at 0: %d lines, %d requests, %d levels; want none", m.next, m.eps[0].requests, len(m.eps[0].levels))
	}
	m.Update(press("]"))
	if m.pos != 91 || m.eps[0].target != 4 || !strings.Contains(screen(), "users 4") {
		t.Fatalf("]: at %v s, users %d; want the 4-user level's start (91 s)", m.pos, m.eps[0].target)
	}
	m.at(5 * time.Second) // plays on from there
	if m.pos != 96 {
		t.Fatalf("5 s after ]: at %v s, want 96", m.pos)
	}
	m.Update(press("["))
	if m.pos != 91 {
		t.Fatalf("[ 5 s into a level: at %v s, want its start (91 s)", m.pos)
	}
	m.Update(press("["))
	if m.pos != 1 || m.eps[0].target != 1 {
		t.Fatalf("[ at a level's start: at %v s, users %d; want the level before (1 s, 1 user)", m.pos, m.eps[0].target)
	}
	m.Update(press("end"))
	req, _, _ := e.Book(0).Totals()
	if !strings.Contains(atEnd, "errors last min http_429 30 · 45 in all") { // every other second of the last 90 s
		t.Errorf("at the end the status does not rank the last minute's errors:\n%s", atEnd)
	}
	if m.eps[0].requests != req || !m.done || screen() != atEnd {
		t.Errorf("end: %d requests (want %d), done %v; the screen differs from the one 3 minutes in:\n%s\n----\n%s", m.eps[0].requests, req, m.done, atEnd, screen())
	}
}

func TestReplaySmallScreens(t *testing.T) {
	s, _ := recording(t, 10)
	for _, size := range [][2]int{{120, 40}, {80, 24}, {60, 15}} {
		m, err := newReplay(ReplayOptions{Series: s, Name: "run.jsonl"}, false)
		if err != nil {
			t.Fatal(err)
		}
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m.at(0)
		m.at(15 * time.Second)
		out := m.View().Content
		checkBox(t, out, size[0], size[1])
		if !strings.Contains(ansi.Strip(out), "replay 00:15 of 00:20, real time") {
			t.Errorf("%dx%d: the position is not shown:\n%s", size[0], size[1], ansi.Strip(out))
		}
	}
}

func TestReplayRefusesAnEmptyRecording(t *testing.T) {
	if _, err := newReplay(ReplayOptions{Series: &timeseries.Series{}}, false); err == nil {
		t.Error("an empty recording was accepted")
	}
}

// TestReplaySaysWhatTheLiveScreenSaid: the status line says again what the live
// screen's said when it was recorded (here the ramp's stop and why), and a seek back
// before it takes it back; a recording made by an older tpsmon says what it lacks.
func TestReplaySaysWhatTheLiveScreenSaid(t *testing.T) {
	stop := "auto-ramp stopped at 16 users on gpu-a: TTFT p95 4.1 s > 2 × the 2 s limit; back to capacity, 8 users"
	lines := func(older bool) []timeseries.Line {
		var ls []timeseries.Line
		for s := 1; s <= 5; s++ {
			at := t0.Add(time.Duration(s) * time.Second)
			l := timeseries.Line{Schema: timeseries.Schema, Time: at.Format(time.RFC3339Nano), ElapsedS: float64(s), WidthS: 1,
				Endpoint: "gpu-a", TargetUsers: 16, Active: 16, Requests: 10 * s, Succeeded: 10 * s}
			if s == 1 && !older {
				l.Recorded, l.SLO = timeseries.RecordedKeys, &model.ReportSLO{UserTPSMin: 30, TTFTP95MaxMs: 2000}
			}
			if s == 3 {
				l.Said = []timeseries.Said{{Text: "gpu-a: server metrics: vLLM at http://127.0.0.1:8000/metrics"}, {Text: stop, Warning: true}}
			}
			ls = append(ls, l)
		}
		return ls
	}
	m := newTestReplay(t, &timeseries.Series{Lines: lines(false)})
	screen := func() string { return ansi.Strip(m.View().Content) }
	m.at(0)
	m.at(2500 * time.Millisecond)
	if out := screen(); !strings.Contains(out, "\nreplay of run.jsonl\n") || strings.Contains(out, "auto-ramp stopped") {
		t.Errorf("at 2.5 s, before the stop:\n%s", out)
	}
	m.at(3500 * time.Millisecond)
	if out := screen(); !strings.Contains(out, stop) || !m.saidBad {
		t.Errorf("at 3.5 s the status line does not say the stop as a warning (bad %v):\n%s", m.saidBad, out)
	}
	if out := screen(); !strings.Contains(out, "target ≤2 s") { // the recorded criteria, as the live series showed them
		t.Errorf("the series do not show the recorded TTFT target:\n%s", out)
	}
	m.Update(press("r"))
	if out := screen(); strings.Contains(out, "auto-ramp stopped") || !strings.Contains(out, "replay of run.jsonl") {
		t.Errorf("back at the start the stop is still said:\n%s", out)
	}

	m = newTestReplay(t, &timeseries.Series{Lines: lines(true)})
	m.at(0)
	want := "replay of run.jsonl · an older recording: no stop reasons, no diagnosis, verdicts by the default criteria"
	if m.said != want {
		t.Errorf("an older recording opens with %q, want %q", m.said, want)
	}
	// Said whole at 120 columns, and the diagnosis line does not claim nothing was wrong.
	if out := screen(); !strings.Contains(out, want+"\n") || !strings.Contains(out, "diagnosis: not recorded (an older tpsmon)") {
		t.Errorf("the screen does not say what the older recording lacks:\n%s", out)
	}
}

// TestReplayShowsTheDiagnosis: a recording's server view (which server, preemptions
// per second and in all), tpsmon's own load and the diagnosis show under the series, as
// they did live.
func TestReplayShowsTheDiagnosis(t *testing.T) {
	waiting, kv, gen, perS, total := 14.0, 97.0, 762.0, 0.4, 12.0
	line := func(s float64, fs []model.Finding) timeseries.Line {
		at := t0.Add(time.Duration(s * float64(time.Second)))
		l := timeseries.Line{Schema: timeseries.Schema, Time: at.Format(time.RFC3339Nano), ElapsedS: s, WidthS: 1,
			Endpoint: "gpu-a", TargetUsers: 64, Active: 64, Requests: 100 * int(s), Succeeded: 100 * int(s),
			Server:    &timeseries.Server{Kind: "vLLM", Waiting: &waiting, KVPct: &kv, GenTPS: &gen, PreemptPerS: &perS, PreemptedTotal: &total},
			Diagnosis: fs, Self: &timeseries.Self{CPUPct: 45, Cores: 2, SchedMs: 0.4}}
		if s == 1 {
			l.Recorded = timeseries.RecordedKeys
		}
		return l
	}
	queue := []model.Finding{{Rule: model.DiagQueue, Severity: model.SevWarning,
		Text: "TTFT rises to 3.00 s (40 ms at low load) because requests queue on the server (14 waiting, KV 97%)"}}
	lines := []timeseries.Line{line(1, nil), line(2, queue), line(3, nil)}
	m, err := newReplay(ReplayOptions{Series: &timeseries.Series{Lines: lines}, Name: "run.jsonl"}, true)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tickMsg(t0))
	m.Update(tickMsg(t0.Add(1500 * time.Millisecond)))
	out := ansi.Strip(m.View().Content)
	for _, w := range []string{"diagnosis: nothing wrong seen (100 requests)",
		"server vLLM · waiting 14 · KV 97% · 762 tok/s generated · preempted 0.4/s (12 in all)",
		"tpsmon CPU 45% of 2 cores · readers wait 0.4 ms to run (p99)"} {
		if !strings.Contains(out, w) {
			t.Errorf("at 1.5 s the screen does not show %q:\n%s", w, out)
		}
	}
	m.Update(tickMsg(t0.Add(2500 * time.Millisecond)))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "diagnosis: TTFT rises to 3.00 s (40 ms at low load) because requests queue on the server") {
		t.Errorf("at 2.5 s:\n%s", out)
	}
	// d: every finding, in place of the curve and the table; a second later the queue
	// no longer holds and is listed as earlier in the run; back at the start it never was.
	m.Update(tickMsg(t0.Add(3500 * time.Millisecond)))
	m.Update(press("d"))
	out = ansi.Strip(m.View().Content)
	if !strings.Contains(out, "diagnosis of gpu-a · d closes") || !strings.Contains(out, "earlier in the run:") ||
		!strings.Contains(out, "  TTFT rises to 3.00 s") || strings.Contains(out, "per-user tok/s p50\n") {
		t.Errorf("d at 3.5 s:\n%s", out)
	}
	m.Update(press("home"))
	if out = ansi.Strip(m.View().Content); !strings.Contains(out, "diagnosis of gpu-a") || strings.Contains(out, "earlier in the run") {
		t.Errorf("d at the start still lists what held later:\n%s", out)
	}
	m.Update(press("d"))
	if out = ansi.Strip(m.View().Content); strings.Contains(out, "diagnosis of gpu-a") || !strings.Contains(out, "curve (x = users)") {
		t.Errorf("d again does not close the findings:\n%s", out)
	}
}

// TestReplayKeepsTheQueueAtItsLongest: replay lists a finding that no longer holds with
// the words of the moment it told most, as the live screen and results.json do: a
// queue of 14 that shrank to 2 before it went is "earlier in the run" at 14.
func TestReplayKeepsTheQueueAtItsLongest(t *testing.T) {
	queue := func(n float64) []model.Finding {
		return []model.Finding{{Rule: model.DiagQueue, Severity: model.SevWarning, Strength: n,
			Text: fmt.Sprintf("TTFT rises to 3.00 s (40 ms at low load) because requests queue on the server (%.0f waiting, KV 97%%)", n)}}
	}
	var lines []timeseries.Line
	for s, fs := range [][]model.Finding{nil, queue(14), queue(2), nil} {
		l := timeseries.Line{Schema: timeseries.Schema, Time: t0.Add(time.Duration(s+1) * time.Second).Format(time.RFC3339Nano),
			ElapsedS: float64(s + 1), WidthS: 1, Endpoint: "gpu-a", TargetUsers: 64, Active: 64, Requests: 100 * (s + 1),
			Succeeded: 100 * (s + 1), Diagnosis: fs}
		if s == 0 {
			l.Recorded = timeseries.RecordedKeys
		}
		lines = append(lines, l)
	}
	m, err := newReplay(ReplayOptions{Series: &timeseries.Series{Lines: lines}, Name: "run.jsonl"}, true)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tickMsg(t0))
	m.Update(tickMsg(t0.Add(4500 * time.Millisecond)))
	m.Update(press("d"))
	out := ansi.Strip(m.View().Content)
	if !strings.Contains(out, "earlier in the run:") || !strings.Contains(out, "(14 waiting, KV 97%)") || strings.Contains(out, "(2 waiting") {
		t.Errorf("d at 4.5 s, want the queue at its longest:\n%s", out)
	}
}
