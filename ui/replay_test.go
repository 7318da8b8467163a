package ui

import (
	"bytes"
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
	for _, w := range []string{"gpu-a", "model llama", "users 1", "replay of run.jsonl: 00:10 of 00:50, real time", "errors none"} {
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
	if want := "requests " + itoa(req) + " · ok " + itoa(ok) + " · errors http_429 " + itoa(errs[model.HTTPError(429)]); !strings.Contains(out, want) {
		t.Errorf("status does not say %q:\n%s", want, out)
	}
	if row := levelRow(out, 1); strings.Contains(row, "▸") || !strings.Contains(levelRow(out, 4), "▸") {
		t.Errorf("the closed level is shown open, or the open one closed:\n%s", out)
	}
	if !strings.Contains(out, "the end (r plays it again, q quits)") || !strings.Contains(out, "users 4") {
		t.Errorf("at the end:\n%s", out)
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
	if m.next != 5 || !strings.Contains(ansi.Strip(m.View().Content), "paused (space plays)") || !m.keys.Play.Enabled() {
		t.Fatalf("paused: %d lines shown, want 5 still", m.next)
	}
	m.Update(press("p"))
	m.Update(press("4"))
	m.at(11 * time.Second) // 2 s at x4
	if m.next != 13 || !strings.Contains(ansi.Strip(m.View().Content), "speed ×4") {
		t.Fatalf("x4: %d lines shown, want 13", m.next)
	}
	m.Update(press("2"))
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
	for _, w := range []string{"space/p", "pause", "speed ×2", "speed ×4", "real time", "from the start", "next theme", "quit"} {
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
		if !strings.Contains(ansi.Strip(out), "replay of run.jsonl") {
			t.Errorf("%dx%d: no playback line:\n%s", size[0], size[1], ansi.Strip(out))
		}
	}
}

func TestReplayRefusesAnEmptyRecording(t *testing.T) {
	if _, err := newReplay(ReplayOptions{Series: &timeseries.Series{}}, false); err == nil {
		t.Error("an empty recording was accepted")
	}
}

// TestReplayShowsTheDiagnosis: a recording's server view and diagnosis show under the
// series, as they did live.
func TestReplayShowsTheDiagnosis(t *testing.T) {
	waiting, kv := 14.0, 97.0
	line := func(s float64, fs []model.Finding) timeseries.Line {
		at := t0.Add(time.Duration(s * float64(time.Second)))
		return timeseries.Line{Schema: timeseries.Schema, Time: at.Format(time.RFC3339Nano), ElapsedS: s, WidthS: 1,
			Endpoint: "gpu-a", TargetUsers: 64, Active: 64, Requests: 100, Succeeded: 100,
			Server: &timeseries.Server{Waiting: &waiting, KVPct: &kv}, Diagnosis: fs}
	}
	queue := []model.Finding{{Rule: model.DiagQueue, Severity: model.SevWarning,
		Text: "TTFT rises to 3.00 s (40 ms at low load) because requests queue on the server (14 waiting, KV 97%)"}}
	m, err := newReplay(ReplayOptions{Series: &timeseries.Series{Lines: []timeseries.Line{line(1, nil), line(2, queue)}}, Name: "run.jsonl"}, true)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tickMsg(t0))
	m.Update(tickMsg(t0.Add(1500 * time.Millisecond)))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "diagnosis: nothing wrong seen (100 requests)") || !strings.Contains(out, "waiting 14") {
		t.Errorf("at 1.5 s:\n%s", out)
	}
	m.Update(tickMsg(t0.Add(2500 * time.Millisecond)))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "diagnosis: TTFT rises to 3.00 s (40 ms at low load) because requests queue on the server") {
		t.Errorf("at 2.5 s:\n%s", out)
	}
}
