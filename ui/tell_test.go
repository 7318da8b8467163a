package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

// feedSamples hands the screen endpoint 0's requests that ended every 250 ms in [from,
// to), each made by mk.
func feedSamples(m *root, from, to time.Duration, mk func(end time.Time) *model.Sample) {
	for d := from; d < to; d += 250 * time.Millisecond {
		m.Update(eventsMsg{events: []probe.Event{{Sample: mk(t0.Add(d))}}})
		if d%time.Second == 0 {
			m.Update(tickMsg(t0.Add(d)))
		}
	}
}

func okSample(end time.Time) *model.Sample {
	send := end.Add(-time.Second)
	return &model.Sample{Concurrency: 4, Send: send, Headers: send.Add(time.Millisecond), First: send.Add(50 * time.Millisecond),
		Last: end, End: end, Tokens: 50, Chunks: 50, Status: 200, Finish: "stop"}
}

func failSample(err model.ErrorKind, status int, msg string) func(time.Time) *model.Sample {
	return func(end time.Time) *model.Sample {
		return &model.Sample{Concurrency: 4, Send: end.Add(-10 * time.Millisecond), End: end, Err: err, Status: status, ErrMsg: msg}
	}
}

// TestScreenSaysEndpointBack: the screen says the server is down once requests fail to
// reach it for seconds, and back once it answers again; never "back" after one error.
func TestScreenSaysEndpointBack(t *testing.T) {
	m, _, _ := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	feedSamples(m, 0, 5*time.Second, okSample)
	feedSamples(m, 5*time.Second, 5250*time.Millisecond, failSample(model.HTTPError(500), 500, "http 500 Internal Server Error"))
	feedSamples(m, 5250*time.Millisecond, 7*time.Second, okSample)
	if out := ansi.Strip(m.View().Content); strings.Contains(out, "is back") {
		t.Fatalf("back after one HTTP 500:\n%s", out)
	}
	feedSamples(m, 7*time.Second, 12*time.Second, failSample(model.ErrConnect, 0, "connect: connection refused 127.0.0.1:8000: is the server running on that port?"))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "sim: diagnosis: the server is down: connections refused") {
		t.Errorf("no word that the server is down:\n%s", out)
	}
	feedSamples(m, 12*time.Second, 14*time.Second, okSample)
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "sim: diagnosis: the server is back after ") {
		t.Errorf("no word that the server is back:\n%s", out)
	}
}

// TestScreenStopsAFatalEndpoint: every answer refused (HTTP 401): the screen stops
// loading the endpoint, says why and that R retries; R loads it again.
func TestScreenStopsAFatalEndpoint(t *testing.T) {
	m, ctls, _ := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	feedSamples(m, 0, 2*time.Second, failSample(model.HTTPError(401), 401, "http 401 Unauthorized: the server wants an API key and none was sent: set it"))
	out := ansi.Strip(m.View().Content)
	if !ctls[0].paused || !strings.Contains(out, "stopped loading sim (R retries): authentication refused: HTTP 401 on all 5 requests: no API key was sent") {
		t.Fatalf("paused %v:\n%s", ctls[0].paused, out)
	}
	if !strings.Contains(out, "R retry endpoint") {
		t.Errorf("the help does not offer R:\n%s", out)
	}
	m.Update(press("R"))
	if ctls[0].paused || !strings.Contains(ansi.Strip(m.View().Content), "retrying sim (R): loading again") {
		t.Errorf("R: paused %v:\n%s", ctls[0].paused, ansi.Strip(m.View().Content))
	}
	m.Update(tickMsg(t0.Add(3 * time.Second)))
	if ctls[0].paused {
		t.Error("stopped again at once: the refusals before R were not forgotten")
	}
}

// TestScreenDiagnosisKey: d shows every finding with its evidence in place of the
// curve and the table, and d again closes it.
func TestScreenDiagnosisKey(t *testing.T) {
	m, _, _ := newTestRoot(t, 1)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	feedSamples(m, 0, 10*time.Second, func(end time.Time) *model.Sample {
		s := okSample(end)
		if end.Sub(t0)%time.Second == 0 {
			s.Err, s.Status, s.ErrMsg = model.HTTPError(429), 429, "http 429 Too Many Requests: slow down"
			s.RetryAfter = 2 * time.Second
		} else if end.Sub(t0)%time.Second == 500*time.Millisecond {
			s.Err, s.Status, s.ErrMsg = model.HTTPError(500), 500, "http 500 Internal Server Error: boom"
		}
		return s
	})
	m.Update(tickMsg(t0.Add(10 * time.Second)))
	out := ansi.Strip(m.View().Content)
	if !strings.Contains(out, "diagnosis: server errors: HTTP 500 on 25% of requests (10 of 40) (+2 more: d)") {
		t.Fatalf("diagnosis line:\n%s", out)
	}
	m.Update(press("d"))
	out = ansi.Strip(m.View().Content)
	for _, w := range []string{"diagnosis of sim · d closes", "✗ server errors: HTTP 500 on 25% of requests (10 of 40)", "last error: http 500 Internal Server Error: boom",
		"✗ rate limited: the server answers HTTP 429 to 25% of requests (10 of 40) and asks to retry after 2.00 s"} {
		if !strings.Contains(out, w) {
			t.Errorf("d: %q not shown:\n%s", w, out)
		}
	}
	m.Update(press("d"))
	if strings.Contains(ansi.Strip(m.View().Content), "d closes") {
		t.Error("d again did not close the findings")
	}
}

// TestScreenVerdictOnScreen: the verdict in words is on the screen at 80x24 and 120x40,
// one line per endpoint where there is room.
func TestScreenVerdictOnScreen(t *testing.T) {
	for _, c := range []struct {
		w, h, n int
		want    []string
	}{
		{80, 24, 1, []string{"capacity "}},
		{120, 40, 2, []string{"sim: capacity ", "vllm-b: capacity "}},
	} {
		m, _, _ := newTestRoot(t, c.n)
		m.Update(tea.WindowSizeMsg{Width: c.w, Height: c.h})
		out := ansi.Strip(m.View().Content)
		for _, s := range c.want {
			if !strings.Contains(out, s) {
				t.Errorf("%dx%d: %q not on the screen:\n%s", c.w, c.h, s, out)
			}
		}
	}
}

// TestOutcomeStaysAt80x24: on a small screen the ramp's outcome stays when there is no
// error to show in its place.
func TestOutcomeStaysAt80x24(t *testing.T) {
	m, _, trs := newTestRoot(t, 1)
	trs[0].lastErr = ""
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.say(false, "auto-ramp finished on sim: all 4 levels held")
	m.Update(tickMsg(t0.Add(time.Minute)))
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "auto-ramp finished") {
		t.Errorf("the outcome vanished with no error in its place:\n%s", out)
	}
}
