package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/selfwatch"
	"github.com/tpsmon/tpsmon/probe/servermetrics"
)

const allSignals = model.SigRunning | model.SigWaiting | model.SigKV | model.SigGenerated | model.SigPreemptions

var queueFindings = []model.Finding{
	{Rule: model.DiagQueue, Severity: model.SevWarning, Text: "TTFT rises to 2.50 s (40 ms at low load) because requests queue on the server (14 waiting, KV 97%)"},
	{Rule: model.DiagOtherTraffic, Severity: model.SevInfo, Text: "another client uses the server: it generates 1.3x the tokens tpsmon receives (990 against 762 tok/s)"},
}

func upStatus() engine.ServerStatus {
	return engine.ServerStatus{State: engine.ServerUp, URL: "http://127.0.0.1:8000/metrics", Kind: "vLLM", HasLast: true,
		Last:        model.ServerPoint{Running: 32, Waiting: 14, KV: 0.97, GenTPS: 762, Preempted: 2, Rate: true, Has: allSignals},
		PreemptPerS: 4.3, Preempted: 52}
}

// TestServerPanel is the server panel at each height it gets, wide and narrow (golden).
func TestServerPanel(t *testing.T) {
	self := engine.SelfUse{Use: selfwatch.Use{CPU: 0.45, Cores: 2, Sched: 400 * time.Microsecond, Known: true}}
	var out []string
	for _, w := range []int{80, 120} {
		for h := 1; h <= 3; h++ {
			for _, f := range [][]model.Finding{nil, queueFindings} {
				p := serverPanel{}
				p.SetStyles(testStyles())
				p.SetSize(w, h)
				p.SetData(serverData{Status: upStatus(), Self: self, Findings: f, Requests: 424})
				v := p.View()
				checkBox(t, v, w, h)
				out = append(out, strings.Repeat("-", w), v)
			}
		}
	}
	states := []engine.ServerStatus{
		{State: engine.ServerOff},
		{State: engine.ServerWaiting, URL: "http://127.0.0.1:8000/metrics"},
		{State: engine.ServerUnavailable, URL: "http://127.0.0.1:8000/metrics", Reason: "404"},
		{State: engine.ServerDown, URL: "http://127.0.0.1:8000/metrics", Reason: "connection refused", Kind: "vLLM"},
	}
	busy := engine.SelfUse{Use: selfwatch.Use{CPU: 1.9, Cores: 2, Sched: 30 * time.Millisecond, Known: true}}
	for _, st := range states {
		p := serverPanel{}
		p.SetStyles(testStyles())
		p.SetSize(120, 2)
		p.SetData(serverData{Status: st, Self: busy})
		out = append(out, strings.Repeat("-", 120), p.View())
	}
	golden(t, strings.Join(out, "\n")+"\n")
}

// TestServerPanelWarnsWhenTpsmonIsBusy: the self row says when tpsmon may be the limit;
// with the simulator in its process only the readers' delay counts.
func TestServerPanelWarnsWhenTpsmonIsBusy(t *testing.T) {
	p := serverPanel{}
	p.SetStyles(testStyles())
	p.SetSize(120, 3)
	p.SetData(serverData{Status: upStatus(), Self: engine.SelfUse{Use: selfwatch.Use{CPU: 1.9, Cores: 2, Known: true}}})
	if v := ansi.Strip(p.View()); !strings.Contains(v, "tpsmon CPU 190% of 2 cores") || !strings.Contains(v, "tpsmon may be the limit") {
		t.Errorf("busy tpsmon not flagged:\n%s", v)
	}
	p.SetData(serverData{Status: upStatus(), Self: engine.SelfUse{Use: selfwatch.Use{CPU: 1.9, Cores: 2, Known: true}, WithSim: true}})
	if v := ansi.Strip(p.View()); !strings.Contains(v, "tpsmon+sim CPU 190%") || strings.Contains(v, "may be the limit") {
		t.Errorf("the simulator's CPU blamed on tpsmon:\n%s", v)
	}
}

// serverScrape is a scrape report of endpoint 0 at d after t0.
func serverScrape(d time.Duration, waiting, kv, generated float64) serverMsg {
	return serverMsg{update: engine.ServerUpdate{Update: servermetrics.Update{Sample: model.ServerSample{
		Time: t0.Add(d), Kind: "vLLM", Running: 4, Waiting: waiting, KV: kv, Generated: generated, Has: allSignals,
	}}}}
}

// TestScreenShowsTheServer: scraper reports reach the engine through Update; the row
// under the series shows waiting and KV %, the table its server columns, the status the
// notices (metrics found, server down, back).
func TestScreenShowsTheServer(t *testing.T) {
	for _, sz := range []size{{80, 24}, {120, 40}} {
		t.Run(sz.String(), func(t *testing.T) {
			m, _, _ := newTestRoot(t, 1)
			m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
			// the pool holds 4 users, steady: scrapes count in level 4
			m.Update(eventsMsg{events: []probe.Event{{Segment: &model.Segment{ID: 1, Open: true, Concurrency: 4, Start: t0, SteadyAt: t0, End: t0}}}})
			first := serverScrape(time.Second, 14, 0.97, 100)
			first.update.Notice = "server metrics: vLLM at http://127.0.0.1:8000/metrics"
			m.Update(first)
			m.Update(serverScrape(2*time.Second, 14, 0.97, 900))
			m.bucketDirty = true
			m.refresh(false)
			plain := ansi.Strip(m.View().Content)
			want := []string{"waiting 14", "KV 97%", "800 tok/s", "server metrics: vLLM at http://127.0.0.1:8000/metrics"}
			if sz.w == 80 { // compact row; the table is full width: its server columns fit
				want = append(want[1:], "wait 14", "errors   wait   KV", "0    14  97%")
			}
			for _, w := range want {
				if !strings.Contains(plain, w) {
					t.Errorf("%q not on the screen:\n%s", w, plain)
				}
			}
			down := &servermetrics.Error{URL: "http://127.0.0.1:8000/metrics", Kind: servermetrics.ErrUnreachable, Reason: "connection refused"}
			m.Update(serverMsg{update: engine.ServerUpdate{Update: servermetrics.Update{Err: down, Notice: down.Error()}}})
			plain = ansi.Strip(m.View().Content)
			if !strings.Contains(plain, "down") || !strings.Contains(plain, "server down: http://127.0.0.1:8000/metrics: connection refused") {
				t.Errorf("the server's outage is not said:\n%s", plain)
			}
			m.Update(serverScrape(9*time.Second, 0, 0.1, 50))
			if plain = ansi.Strip(m.View().Content); !strings.Contains(plain, "server back: vLLM at http://127.0.0.1:8000/metrics") {
				t.Errorf("the server's return is not said:\n%s", plain)
			}
		})
	}
}

// TestServerPanelNeverHealthyBesideFailures: requests that failed in the last minute
// with no finding naming a cause are said as such, never "nothing wrong seen".
func TestServerPanelNeverHealthyBesideFailures(t *testing.T) {
	p := serverPanel{}
	p.SetStyles(testStyles())
	p.SetSize(120, 3)
	p.SetData(serverData{Status: upStatus(), Requests: 15, Failed: 2})
	v := ansi.Strip(p.View())
	if strings.Contains(v, "nothing wrong") || !strings.Contains(v, "diagnosis: 2 requests failed and no cause was named: too few at a time to tell why") {
		t.Errorf("two failures, no finding:\n%s", v)
	}
	p.SetData(serverData{Status: upStatus(), Requests: 15})
	if v := ansi.Strip(p.View()); !strings.Contains(v, "diagnosis: nothing wrong seen (15 requests)") {
		t.Errorf("no failure:\n%s", v)
	}
}
