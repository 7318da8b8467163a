package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
)

// headerData is what the header shows about the focused endpoint and the load.
type headerData struct {
	Name, Model, Host string
	API               string // the endpoint's API, named when it is not chat
	Simulated         bool
	Index, Count      int    // focused endpoint (0-based) of Count
	TokenSource       string // model.SourceUsage/Chunks/Mixed, "" before the first request
	Target, Active    int
	Rate              bool // rate mode: Target is an arrival rate (requests/s)
	Trace             bool // a trace's replay: Target is the window's number
	Paused            bool
	AllEndpoints      bool   // load keys act on every endpoint
	Ramp              string // ramp state in words, "" when off
	Elapsed           time.Duration
	Replay            string // replay's position, length and speed, in place of the elapsed time
}

// headerPanel is the top two lines: who is measured, and the load on it.
type headerPanel struct {
	panel
	data headerData
}

// SetData replaces what the header shows; the same data again does not redraw it.
func (p *headerPanel) SetData(d headerData) {
	if d != p.data {
		p.data, p.dirty = d, true
	}
}

// View returns the header, redrawn only when its data, size or styles changed.
func (p *headerPanel) View() string { return p.view(p.render) }

func (p *headerPanel) render() string {
	line1 := p.endpointLine()
	if p.h < 2 {
		return fitBlock(line1, p.w, 1)
	}
	return fitBlock(line1+"\n"+p.loadLine(), p.w, p.h)
}

// endpointLine is the header's first line: the endpoint, its model, API and host.
func (p *headerPanel) endpointLine() string {
	d, st := p.data, p.st
	sep := st.Faint.Render(" · ")
	left := st.Title.Render("tpsmon") + "  " + st.Focus.Render(d.Name)
	if d.Simulated {
		left += " " + st.Badge.Render(" SIMULATED ")
	}
	var id []string
	if d.Model != "" {
		id = append(id, st.Faint.Render("model ")+st.Text.Render(d.Model))
	}
	if d.API != "" && d.API != "chat" {
		id = append(id, st.Faint.Render("API ")+st.Text.Render(d.API))
	}
	if d.Host != "" {
		id = append(id, st.Faint.Render("host ")+st.Text.Render(d.Host))
	}
	if len(id) > 0 {
		left += sep + strings.Join(id, sep)
	}
	right := ""
	if d.Count > 1 {
		right = st.Faint.Render(fmt.Sprintf("endpoint %d/%d", d.Index+1, d.Count))
	}
	return joinSpread(left, right, p.w)
}

// loadLine is the header's second line: the load, the ramp, the token source and the
// elapsed time (or where a replay stands). When it is too wide, the ramp's words give way
// a clause at a time from the end ("~20s", then "~5 more", ...): never the token source
// (it may be a warning), nor a word cut in the middle.
func (p *headerPanel) loadLine() string {
	d, st := p.data, p.st
	sep := st.Faint.Render(" · ")
	users := st.Faint.Render("users ") + st.Value.Render(fmt.Sprint(d.Target))
	switch {
	case d.Trace && d.Target == 0 && d.Elapsed > 0: // its schedule is over: its last answers are streaming
		users = st.Faint.Render("trace ") + st.Text.Render("sent")
	case d.Trace:
		users = st.Faint.Render("trace window ") + st.Value.Render(fmt.Sprint(d.Target))
	case d.Rate:
		users = st.Faint.Render("rate ") + st.Value.Render(fmt.Sprint(d.Target)) + st.Faint.Render(" req/s")
	}
	if d.Active != d.Target {
		users += st.Faint.Render(fmt.Sprintf(" (%d active)", d.Active))
	}
	head := []string{users}
	if d.Paused {
		head = append(head, st.Badge.Render(" PAUSED "))
	}
	if d.AllEndpoints && d.Count > 1 {
		head = append(head, st.Badge.Render(" ALL "))
	}
	join := func(ramp string) string {
		parts := slices.Clone(head)
		switch {
		case !d.Trace:
			parts = append(parts, st.Faint.Render("ramp ")+st.Text.Render(ramp))
		case d.Ramp != "": // a trace has no ramp: its windows follow its schedule
			parts = append(parts, st.Faint.Render("schedule ")+st.Text.Render(ramp))
		}
		if tok := p.tokenSource(); tok != "" {
			parts = append(parts, tok)
		}
		return strings.Join(parts, sep)
	}
	ramp := "off"
	if d.Ramp != "" {
		ramp = d.Ramp
	}
	if d.Replay == "" {
		left := join(wholeCommaClauses(ramp, p.w-ansi.StringWidth(join(""))))
		return joinSpread(left, st.Faint.Render("elapsed ")+st.Value.Render(fmtClock(d.Elapsed)), p.w)
	}
	clock := st.Badge.Render(" " + d.Replay + " ") // where the replay stands is never cut: the load's words give way
	room := p.w - ansi.StringWidth(clock) - 1
	left := join(wholeCommaClauses(ramp, room-ansi.StringWidth(join(""))))
	if ansi.StringWidth(left) > room {
		left = fitWidth(left, max(room, 0))
	}
	return joinSpread(left, clock, p.w)
}

// tokenSource is where the header's token counts come from ("tokens usage", a warning
// when estimated from chunks), "" before the first request.
func (p *headerPanel) tokenSource() string {
	st := p.st
	switch p.data.TokenSource {
	case model.SourceUsage:
		return st.Faint.Render("tokens ") + st.Text.Render("usage")
	case model.SourceChunks:
		return st.Faint.Render("tokens ") + st.Warn.Render("estimated (chunks)")
	case model.SourceMixed:
		return st.Faint.Render("tokens ") + st.Warn.Render("mixed (some estimated)")
	}
	return ""
}
