package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/themes"
)

// maxUsers bounds what the load keys ask for.
const maxUsers = engine.MaxUsers

// messageTTL is how long an action's status message stays before the last error shows again
// (on screens too small to show both).
const messageTTL = 15 * time.Second

// root is the screen's model: a view over the run engine (which owns the pools, the
// level books and the ramp), with the focus, the panels, the layout and the messages.
type root struct {
	ctx     context.Context
	events  <-chan probe.Event
	eng     *engine.Engine
	hosts   []string // host[:port] of each endpoint, for the header
	snapDir string

	keys     KeyMap
	help     help.Model
	themeIdx int
	dark     bool
	st       Styles

	focus int
	all   bool

	started, now time.Time
	w, h         int
	lay          layout

	panels             // header, series, curve, table, status
	server serverPanel // the server's view, under the series

	errWin   []errorWindow    // per endpoint: errors of the last minute
	fatal    []bool           // per endpoint: stopped because every answer was refused (R retries)
	verds    []verdict        // per endpoint: the verdict in words, updated once per bucket
	caps     []int            // per endpoint: the judged capacity (0: none), updated with verds
	marks    []map[int]string // per endpoint: the level table's marks of levels not measured in full, updated with verds
	showDiag bool             // every finding in place of the curve and the table (d)

	msg      string
	msgShort []string // shorter forms of msg, longest first, for a status line too narrow for it
	msgBad   bool
	msgAt    time.Time
	shownMsg string // the message the status panel shows now

	bucketDirty  bool // a new bucket arrived: charts
	dataDirty    bool // samples or segments arrived: table, status
	frame        string
	frameDirty   bool
	quitting     bool
	interrupted  bool          // the user quit while the ramp ran
	final        *model.Report // the report of the mode in use, once finish has run
	eventsClosed bool
}

// config is what newRoot needs besides the engine.
type config struct {
	Theme       string
	SnapshotDir string
	Now         time.Time
}

func newRoot(ctx context.Context, events <-chan probe.Event, eng *engine.Engine, cfg config) (*root, error) {
	if eng == nil || eng.Len() == 0 {
		return nil, fmt.Errorf("the live screen needs at least one endpoint")
	}
	t, err := themes.Get(cfg.Theme, true)
	if err != nil {
		return nil, err
	}
	idx := 0
	for i, n := range themes.Names() {
		if n == t.Name {
			idx = i
		}
	}
	m := &root{
		ctx: ctx, events: events, eng: eng, snapDir: cfg.SnapshotDir,
		keys: DefaultKeyMap(), help: help.New(),
		themeIdx: idx, dark: true,
		started: cfg.Now, now: cfg.Now,
		frameDirty: true,
	}
	for i := range eng.Len() {
		m.hosts = append(m.hosts, eng.Host(i))
	}
	m.errWin = make([]errorWindow, eng.Len())
	m.fatal = make([]bool, eng.Len())
	m.keys.setMulti(eng.Len() > 1)
	m.applyTheme()
	return m, nil
}

// Init starts the render tick, the event reader, and asks for the background colour.
func (m *root) Init() tea.Cmd {
	return tea.Batch(tickCmd(), waitEvents(m.ctx, m.events), waitServer(m.ctx, m.eng.ServerUpdates()), tea.RequestBackgroundColor)
}

// Update handles one message. It never blocks and does no I/O (snapshots are written by a Cmd).
func (m *root) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case eventsMsg:
		m.feed(msg.events)
		if msg.closed {
			m.eventsClosed = true
			if m.eng.Over() {
				m.say(true, "the run's maximum duration is over: the load generators have stopped; press q to quit")
			} else {
				m.say(true, "the load generators have stopped: press q to quit")
			}
			return m, nil
		}
		return m, waitEvents(m.ctx, m.events)
	case serverMsg:
		return m, m.onServer(msg)
	case tickMsg:
		m.now = time.Time(msg)
		m.onNotices(m.eng.Step(m.now))
		m.refresh(false)
		return m, tickCmd()
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.relayout()
		return m, nil
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		m.applyTheme()
		return m, nil
	case snapshotMsg:
		if msg.err != nil {
			m.say(true, "snapshot failed: %v", msg.err)
		} else {
			m.saySnapshot(msg)
		}
		m.refresh(false)
		return m, nil
	case tea.KeyPressMsg:
		cmd := m.handleKey(msg)
		if !m.quitting {
			m.refresh(false)
		}
		return m, cmd
	}
	return m, nil
}

// feed hands pool events to the engine.
func (m *root) feed(evs []probe.Event) {
	for i := range evs {
		ev := &evs[i]
		if ev.Endpoint < 0 || ev.Endpoint >= m.eng.Len() {
			continue
		}
		m.eng.Handle(*ev)
		m.dataDirty = true
		if ev.Tick != nil {
			m.bucketDirty = true
		}
	}
}

// say puts the screen's own words on the status line, and records them for replay.
func (m *root) say(bad bool, format string, args ...any) {
	m.sayForms(bad, fmt.Sprintf(format, args...))
}

// sayForms says text as say does, with shorter forms of it (longest first) for a status
// line too narrow for the whole sentence: each must keep its meaning, not a cut of it.
// Both are recorded for replay (the engine's own notices already are).
func (m *root) sayForms(bad bool, text string, shorter ...string) {
	m.show(bad, text)
	m.msgShort = shorter
	m.eng.Say(text, bad, shorter...)
}

// show puts text on the status line (an engine notice: the engine announced it).
func (m *root) show(bad bool, text string) {
	m.msg, m.msgShort, m.msgBad, m.msgAt = text, nil, bad, m.now
}

func (m *root) applyTheme() {
	name := themes.Names()[m.themeIdx]
	t, _ := themes.Get(name, m.dark)
	m.st = newStyles(t)
	m.help.Styles = m.st.Help
	m.setStyles(m.st)
	m.server.SetStyles(m.st)
	m.frameDirty = true
}

func (m *root) relayout() {
	helpH := 1
	if m.help.ShowAll {
		helpH = fullHelpHeight(m.keys)
	}
	m.lay = withIntervals(withGoodput(withServer(computeLayout(m.w, m.h, helpH, m.eng.Len()), m.serverOn())))
	l := m.lay
	m.setSizes(l)
	m.server.SetSize(l.Width, l.Server)
	m.help.SetWidth(l.Width)
	m.bucketDirty, m.dataDirty = true, true
	m.refresh(true)
}

// fullHelpHeight is the number of lines of the longest FullHelp column.
func fullHelpHeight(k help.KeyMap) int {
	h := 1
	for _, col := range k.FullHelp() {
		n := 0
		for _, b := range col {
			if b.Enabled() {
				n++
			}
		}
		h = max(h, n)
	}
	return h
}

// refresh hands fresh data to the panels whose data changed: the charts only when a
// bucket arrived (or force), the table and status when samples arrived, the header always
// (it compares its data and redraws only on change).
func (m *root) refresh(force bool) {
	if m.w == 0 || m.h == 0 {
		return
	}
	i := m.focus
	ctl, book, info := m.eng.Control(i), m.eng.Book(i), m.eng.Info(i)
	if paused := ctl.Paused(); paused != m.keys.Resume.Enabled() {
		m.keys.setPaused(paused)
		m.frameDirty = true
	}
	m.header.SetData(headerData{
		Name: info.Name, Model: info.Model, API: info.API, Host: m.hosts[i], Simulated: info.Simulated,
		Index: i, Count: m.eng.Len(), TokenSource: book.TokenSource(),
		Target: ctl.Concurrency(), Active: ctl.Active(), Paused: ctl.Paused(), Rate: m.eng.RateMode(),
		AllEndpoints: m.all, Ramp: m.rampText(),
		Elapsed: m.now.Sub(m.started).Truncate(time.Second),
	})
	userMin := m.eng.SLO().UserTPSMin
	if m.bucketDirty || force {
		m.series.SetTTFTTarget(m.eng.SLO().TTFTP95Max)
		m.table.SetTargets(m.eng.SLO().TTFTP95Max, book.Live().Reasoning)
		m.table.SetErrorLimit(m.eng.SLO().ErrorRateMax)
		m.series.SetData(book.Buckets(m.series.History()), book.Live(), userMin)
		curves := make([]curveSeries, m.eng.Len())
		for j := range curves {
			b := m.eng.Book(j)
			curves[j] = curveSeries{Name: m.eng.Info(j).Name, Levels: withRequests(b.Levels()), Rate: m.eng.RateMode()}
		}
		m.judge(curves) // sets each curve's capacity
		m.curve.SetData(curves, userMin)
		m.table.SetData(info.Name, curves[i].Levels, curves[i].Capacity, userMin)
		m.table.SetMarks(m.marks[i])
		m.table.SetServer(serverLevels(m.eng, i, curves[i].Levels))
		m.bucketDirty = false
		m.dataDirty = true
	} else if m.dataDirty && m.lay.Table > 0 {
		m.table.SetData(info.Name, withRequests(book.Levels()), m.capacity(i), userMin)
	}
	req, _, errs := book.Totals()
	m.server.SetData(serverData{Status: m.eng.Server(i), Self: m.eng.Self(), Findings: m.eng.Diagnosis(i), Requests: req,
		Failed: sumKinds(m.errWin[i].Recent(errs))})
	m.table.SetProgress(m.levelProgress())
	m.watchEndpoints()
	m.refreshStatus(force)
	if m.header.dirty || m.series.dirty || m.server.dirty || m.curve.dirty || m.table.dirty || m.status.dirty {
		m.frameDirty = true
	}
}

// View returns the cached frame; panels redraw only when their data changed.
func (m *root) View() tea.View {
	if m.frameDirty {
		m.frame = m.compose()
		m.frameDirty = false
	}
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.WindowTitle = "tpsmon"
	return v
}

// compose stacks the panels according to the layout.
func (m *root) compose() string {
	if m.quitting {
		return ""
	}
	l, series := m.lay, m.series.View()
	if l.Server > 0 { // the server panel sits right under the series
		series = padLines(series, l.Series) + "\n" + padLines(m.server.View(), l.Server)
		l.Series += l.Server
	}
	curve, table := m.curve.View(), m.table.View()
	if m.showDiag { // the findings take the curve's and the table's place
		l, curve = inPlaceOfBody(l, m.diagnosisView)
		table = ""
	}
	return stack(l, m.header.View(), series, curve, table, m.status.View(),
		m.help.View(m.keys))
}

// stack stacks the panels' views according to the layout (the live screen and replay).
func stack(l layout, header, series, curve, table, status, help string) string {
	if l.Width == 0 || l.Height == 0 {
		return "tpsmon: starting…"
	}
	var parts []string
	add := func(s string, h int) {
		if h > 0 {
			parts = append(parts, padLines(s, h))
		}
	}
	gap := func() {
		if l.Gap > 0 {
			parts = append(parts, "")
		}
	}
	add(header, l.Header)
	gap()
	add(series, l.Series)
	gap()
	switch {
	case l.Beside && (l.Curve > 0 || l.Table > 0):
		add(sideBySide(2, []int{l.CurveW, l.TableW}, padLines(curve, l.Curve), table), max(l.Curve, l.Table))
	default:
		add(curve, l.Curve)
		add(table, l.Table)
	}
	gap()
	add(status, l.Status)
	add(fitBlock(help, l.Width, l.Help), l.Help)
	return fitBlock(strings.Join(parts, "\n"), l.Width, l.Height)
}

// padLines makes s exactly h lines (cut or padded with empty lines).
func padLines(s string, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
