package ui

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/themes"
)

// Controller is the load control of one endpoint. *probe.Pool satisfies it; the
// screen depends only on this, so its keys are tested with a fake.
type Controller interface {
	SetConcurrency(n int)
	Concurrency() int
	Active() int
	Pause()
	Resume()
	Paused() bool
	Stop()
}

var _ Controller = (*probe.Pool)(nil)

// tracker is what the screen reads from and feeds into a *model.Tracker.
type tracker interface {
	AddSample(s *model.Sample)
	AddTick(tk *model.Tick)
	UpdateSegment(seg model.Segment)
	Reset(now time.Time)
	Levels() []model.LevelStats
	Buckets(n int) []model.Bucket
	Live() model.Live
	TokenSource() string
	Totals() (requests, succeeded int, errors map[model.ErrorKind]int)
	LastError() (msg string, at time.Time)
	Capacity() int
	Saturation() (users int, ok bool)
	ReportEndpoint(info model.EndpointInfo) model.ReportEndpoint
}

var _ tracker = (*model.Tracker)(nil)

// maxUsers bounds what the load keys ask for.
const maxUsers = 10000

// messageTTL is how long an action's status message stays before the last error shows again
// (on screens too small to show both).
const messageTTL = 15 * time.Second

type endpointState struct {
	info model.EndpointInfo
	host string
	ctl  Controller
	tr   tracker
}

// root is the screen's model: it owns the trackers, the panels and the key map.
type root struct {
	ctx      context.Context
	events   <-chan probe.Event
	eps      []*endpointState
	rampPlan probe.Ramp
	slo      model.SLO
	settings model.ReportSettings
	version  string
	snapDir  string

	keys     KeyMap
	help     help.Model
	themeIdx int
	dark     bool
	st       Styles

	focus int
	all   bool
	ramp  rampState

	started, now time.Time
	w, h         int
	lay          layout

	header headerPanel
	series seriesPanel
	curve  curvePanel
	table  tablePanel
	status statusPanel

	msg      string
	msgBad   bool
	msgAt    time.Time
	shownMsg string // the message the status panel shows now

	bucketDirty  bool // a new bucket arrived: charts
	dataDirty    bool // samples or segments arrived: table, status
	frame        string
	frameDirty   bool
	quitting     bool
	eventsClosed bool
}

// config is what newRoot needs besides the endpoints.
type config struct {
	Ramp        probe.Ramp
	SLO         model.SLO
	Settings    model.ReportSettings
	Theme       string
	SnapshotDir string
	Version     string
	Now         time.Time
}

func newRoot(ctx context.Context, events <-chan probe.Event, eps []*endpointState, cfg config) (*root, error) {
	if len(eps) == 0 {
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
	if cfg.SLO == (model.SLO{}) {
		cfg.SLO = model.DefaultSLO
	}
	if len(cfg.Ramp.Levels) == 0 {
		cfg.Ramp = probe.DefaultRamp
	}
	m := &root{
		ctx: ctx, events: events, eps: eps,
		rampPlan: cfg.Ramp, slo: cfg.SLO, settings: cfg.Settings,
		version: cfg.Version, snapDir: cfg.SnapshotDir,
		keys: DefaultKeyMap(), help: help.New(),
		themeIdx: idx, dark: true,
		started: cfg.Now, now: cfg.Now,
		frameDirty: true,
	}
	m.keys.setMulti(len(eps) > 1)
	m.applyTheme()
	return m, nil
}

// Init starts the render tick, the event reader, and asks for the background colour.
func (m *root) Init() tea.Cmd {
	return tea.Batch(tickCmd(), waitEvents(m.ctx, m.events), tea.RequestBackgroundColor)
}

// Update handles one message. It never blocks and does no I/O (snapshots are written by a Cmd).
func (m *root) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case eventsMsg:
		m.feed(msg.events)
		if msg.closed {
			m.eventsClosed = true
			m.say(true, "the load generators have stopped: press q to quit")
			return m, nil
		}
		return m, waitEvents(m.ctx, m.events)
	case tickMsg:
		m.now = time.Time(msg)
		m.stepRamp()
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
			// on a narrow screen keep the file name and cut leading directories
			room := m.lay.Width - len("snapshot saved:  (+ .md)")
			m.say(false, "snapshot saved: %s (+ .md)", shortenPath(msg.path, room))
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

// feed hands pool events to the trackers.
func (m *root) feed(evs []probe.Event) {
	for i := range evs {
		ev := &evs[i]
		if ev.Endpoint < 0 || ev.Endpoint >= len(m.eps) {
			continue
		}
		tr := m.eps[ev.Endpoint].tr
		switch {
		case ev.Sample != nil:
			tr.AddSample(ev.Sample)
			m.dataDirty = true
		case ev.Tick != nil:
			tr.AddTick(ev.Tick)
			m.bucketDirty, m.dataDirty = true, true
		case ev.Segment != nil:
			tr.UpdateSegment(*ev.Segment)
			m.observeRamp(ev.Endpoint, ev)
			m.dataDirty = true
		}
	}
}

// say sets the status message.
func (m *root) say(bad bool, format string, args ...any) {
	m.msg, m.msgBad, m.msgAt = fmt.Sprintf(format, args...), bad, m.now
}

// loadTargets are the endpoints the load keys act on.
func (m *root) loadTargets() []int {
	if !m.all {
		return []int{m.focus}
	}
	t := make([]int, len(m.eps))
	for i := range t {
		t[i] = i
	}
	return t
}

func (m *root) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Quit):
		m.quitting, m.frameDirty = true, true
		m.ramp.on = false
		for _, e := range m.eps {
			e.ctl.Stop()
		}
		return tea.Quit
	case key.Matches(msg, k.More):
		m.setLoad("+", func(n int) int { return n + 1 })
	case key.Matches(msg, k.Less):
		m.setLoad("-", func(n int) int { return n - 1 })
	case key.Matches(msg, k.Double):
		m.setLoad("]", func(n int) int { return max(2*n, 1) })
	case key.Matches(msg, k.Halve):
		m.setLoad("[", func(n int) int { return max(n/2, min(n, 1)) })
	case key.Matches(msg, k.Ramp):
		if m.ramp.on {
			m.ramp.on = false
			m.say(false, "auto-ramp stopped (r): holding %s", users(m.eps[m.focus].ctl.Concurrency()))
		} else {
			m.startRamp()
		}
	case key.Matches(msg, k.Pause), key.Matches(msg, k.Resume):
		m.togglePause()
	case key.Matches(msg, k.Next):
		m.focus = (m.focus + 1) % len(m.eps)
		m.onFocus()
	case key.Matches(msg, k.Prev):
		m.focus = (m.focus + len(m.eps) - 1) % len(m.eps)
		m.onFocus()
	case key.Matches(msg, k.All):
		m.all = !m.all
		if m.all {
			m.say(false, "load keys act on all %d endpoints", len(m.eps))
		} else {
			m.say(false, "load keys act on %s only", m.eps[m.focus].info.Name)
		}
	case key.Matches(msg, k.Clear):
		for _, e := range m.eps {
			e.tr.Reset(m.now)
		}
		m.bucketDirty, m.dataDirty = true, true
		m.say(false, "levels, curve and errors cleared")
	case key.Matches(msg, k.Theme):
		m.themeIdx = (m.themeIdx + 1) % len(themes.Names())
		m.applyTheme()
		m.say(false, "theme: %s", m.st.Theme)
	case key.Matches(msg, k.Snapshot):
		r := m.report(false)
		m.say(false, "saving snapshot…")
		return snapshotCmd(m.snapDir, r, m.now)
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.relayout()
	}
	return nil
}

// setLoad applies f to the target concurrency of the load targets; a manual change
// stops the auto-ramp.
func (m *root) setLoad(keyName string, f func(int) int) {
	if m.ramp.on {
		m.ramp.on = false
		defer m.say(false, "auto-ramp stopped: manual change (%s)", keyName)
	}
	for _, i := range m.loadTargets() {
		c := m.eps[i].ctl
		c.SetConcurrency(min(max(f(c.Concurrency()), 0), maxUsers))
	}
}

func (m *root) togglePause() {
	targets := m.loadTargets()
	pause := false
	for _, i := range targets {
		if !m.eps[i].ctl.Paused() {
			pause = true
		}
	}
	for _, i := range targets {
		if pause {
			m.eps[i].ctl.Pause()
		} else {
			m.eps[i].ctl.Resume()
		}
	}
	what := ""
	if len(m.eps) > 1 {
		what = " " + m.eps[targets[0]].info.Name
		if len(targets) > 1 {
			what = fmt.Sprintf(" all %d endpoints", len(targets))
		}
	}
	switch {
	case pause && m.ramp.on && m.ramp.drives(targets):
		// a paused pool sends nothing: the ramp would walk through its levels unloaded
		m.ramp.on = false
		m.say(false, "paused%s, auto-ramp stopped: in-flight requests finish, no new ones (p resumes)", what)
	case pause:
		m.say(false, "paused%s: in-flight requests finish, no new ones (p resumes)", what)
	default:
		m.say(false, "resumed%s", what)
	}
}

func (m *root) onFocus() {
	m.bucketDirty, m.dataDirty = true, true
	if !m.all {
		m.say(false, "load keys act on %s", m.eps[m.focus].info.Name)
	}
}

func (m *root) applyTheme() {
	name := themes.Names()[m.themeIdx]
	t, _ := themes.Get(name, m.dark)
	m.st = newStyles(t)
	m.help.Styles = m.st.Help
	m.header.SetStyles(m.st)
	m.series.SetStyles(m.st)
	m.curve.SetStyles(m.st)
	m.table.SetStyles(m.st)
	m.status.SetStyles(m.st)
	m.frameDirty = true
}

func (m *root) relayout() {
	helpH := 1
	if m.help.ShowAll {
		helpH = fullHelpHeight(m.keys)
	}
	m.lay = computeLayout(m.w, m.h, helpH)
	l := m.lay
	m.header.SetSize(l.Width, l.Header)
	m.series.SetSize(l.Width, l.Series)
	m.curve.SetSize(l.CurveW, l.Curve)
	m.table.SetSize(l.TableW, l.Table)
	m.status.SetSize(l.Width, l.Status)
	m.help.SetWidth(l.Width)
	m.bucketDirty, m.dataDirty = true, true
	m.refresh(true)
}

// fullHelpHeight is the number of lines of the longest FullHelp column.
func fullHelpHeight(k KeyMap) int {
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
	e := m.eps[m.focus]
	if paused := e.ctl.Paused(); paused != m.keys.Resume.Enabled() {
		m.keys.setPaused(paused)
		m.frameDirty = true
	}
	m.header.SetData(headerData{
		Name: e.info.Name, Model: e.info.Model, Host: e.host, Simulated: e.info.Simulated,
		Index: m.focus, Count: len(m.eps), TokenSource: e.tr.TokenSource(),
		Target: e.ctl.Concurrency(), Active: e.ctl.Active(), Paused: e.ctl.Paused(),
		AllEndpoints: m.all, Ramp: m.rampText(),
		Elapsed: m.now.Sub(m.started).Truncate(time.Second),
	})
	if m.bucketDirty || force {
		m.series.SetData(e.tr.Buckets(m.series.History()), e.tr.Live(), m.slo.UserTPSMin)
		curves := make([]curveSeries, len(m.eps))
		for i, ep := range m.eps {
			curves[i] = curveSeries{Name: ep.info.Name, Levels: ep.tr.Levels(), Capacity: ep.tr.Capacity()}
		}
		m.curve.SetData(curves, m.slo.UserTPSMin)
		m.table.SetData(e.info.Name, curves[m.focus].Levels, curves[m.focus].Capacity, m.slo.UserTPSMin)
		m.bucketDirty = false
		m.dataDirty = true
	} else if m.dataDirty && m.lay.Table > 0 {
		m.table.SetData(e.info.Name, e.tr.Levels(), e.tr.Capacity(), m.slo.UserTPSMin)
	}
	msg := m.msg
	if m.lay.Status < 3 && m.now.Sub(m.msgAt) > messageTTL {
		msg = "" // let the last error show again
	}
	if m.dataDirty || force || msg != m.shownMsg {
		m.shownMsg = msg
		req, ok, errs := e.tr.Totals()
		last, _ := e.tr.LastError()
		m.status.SetData(statusData{
			Active: e.ctl.Active(), Requests: req, Succeeded: ok, Errors: errs,
			LastError: last, Message: msg, Bad: m.msgBad,
		})
		m.dataDirty = false
	}
	if m.header.dirty || m.series.dirty || m.curve.dirty || m.table.dirty || m.status.dirty {
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
	l := m.lay
	if m.quitting {
		return ""
	}
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
	add(m.header.View(), l.Header)
	gap()
	add(m.series.View(), l.Series)
	gap()
	switch {
	case l.Beside && (l.Curve > 0 || l.Table > 0):
		add(sideBySide(2, []int{l.CurveW, l.TableW}, padLines(m.curve.View(), l.Curve), m.table.View()), max(l.Curve, l.Table))
	default:
		add(m.curve.View(), l.Curve)
		add(m.table.View(), l.Table)
	}
	gap()
	add(m.status.View(), l.Status)
	add(fitBlock(m.help.View(m.keys), l.Width, l.Help), l.Help)
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

// hostOf is the host[:port] of a base URL, for the header.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "?" // cmd refuses such URLs; never echo one (it may hold a secret)
	}
	return u.Host
}
