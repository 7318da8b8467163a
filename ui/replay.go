package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/probe/output/timeseries"
	"github.com/tpsmon/tpsmon/themes"
)

// ReplayOptions is what tpsmon replay needs.
type ReplayOptions struct {
	Series *timeseries.Series // the recording (at least one line)
	Name   string             // the file, for the status line
	Theme  string             // theme name; "" means default (mono under NO_COLOR)
	Speed  int                // a power of two from 1 to MaxReplaySpeed; 0 means 1

	// ProgramOptions are added to the Bubble Tea program (tests).
	ProgramOptions []tea.ProgramOption
}

// Replay plays a recorded time series on the live screen's panels until the user quits
// or ctx ends.
func Replay(ctx context.Context, opt ReplayOptions) error {
	m, err := newReplay(opt, os.Getenv("NO_COLOR") != "")
	if err != nil {
		return err
	}
	err = runUntil(ctx, tea.NewProgram(m, opt.ProgramOptions...))
	if err != nil && !errors.Is(err, tea.ErrInterrupted) {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

// replayRoot plays the recorded lines in their time, at a speed, on the live screen's
// panels (header, series, curve, table, status).
type replayRoot struct {
	name   string
	lines  []timeseries.Line
	next   int     // the next line to show
	pos    float64 // playback position: seconds of the recording (a line's elapsed_s)
	speed  int
	last   time.Time // wall clock of the previous tick
	eps    []*replayEndpoint
	focus  int
	starts [][]float64 // per endpoint: when each of its levels started (seconds of the recording)

	// said is what the live screen's status line said last (the recording's said), or
	// the replay's own opening words; saidBad that it was a warning.
	said      string
	saidBad   bool
	saidShort []string // said's shorter forms, for a narrow status line
	opening   string   // the first message: the file, and what an older recording lacks

	recorded map[string]bool // the keys the recording says it records (an older one lacks some)

	paused, done bool
	showDiag     bool // every finding in place of the curve and the table (d)

	keys     ReplayKeyMap
	help     help.Model
	themeIdx int
	dark     bool
	st       Styles

	w, h int
	lay  layout

	panels             // header, series, curve, table, status
	server serverPanel // the recorded server view and diagnosis, under the series

	frame      string
	frameDirty bool
	quitting   bool
}

func newReplay(opt ReplayOptions, noColor bool) (*replayRoot, error) {
	if opt.Series == nil || len(opt.Series.Lines) == 0 {
		return nil, fmt.Errorf("replay: the recording holds no line")
	}
	theme := opt.Theme
	if theme == "" && noColor {
		theme = "mono"
	}
	t, err := themes.Get(theme, true)
	if err != nil {
		return nil, err
	}
	m := &replayRoot{name: opt.Name, lines: opt.Series.Lines, speed: max(opt.Speed, 1),
		keys: DefaultReplayKeyMap(), help: help.New(), dark: true, frameDirty: true}
	for i, n := range themes.Names() {
		if n == t.Name {
			m.themeIdx = i
		}
	}
	n := 0
	for i := range m.lines {
		n = max(n, m.lines[i].Index+1)
	}
	m.eps = make([]*replayEndpoint, n)
	m.newEndpoints()
	multi := n > 1
	m.keys.Next.SetEnabled(multi)
	m.keys.Prev.SetEnabled(multi)
	m.keys.setSpeed(m.speed)
	m.starts = levelStarts(m.lines, n)
	m.recorded = recordedKeys(m.lines)
	m.opening = "replay of " + opt.Name + lacking(m.lines, m.recorded)
	m.said = m.opening
	m.applyTheme()
	return m, nil
}

// Init starts the render tick and asks for the background colour.
func (m *replayRoot) Init() tea.Cmd { return tea.Batch(tickCmd(), tea.RequestBackgroundColor) }

// Update handles one message.
func (m *replayRoot) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tickMsg:
		m.advance(time.Time(msg))
		return m, tickCmd()
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.relayout()
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		m.applyTheme()
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	}
	return m, nil
}

func (m *replayRoot) applyTheme() {
	t, _ := themes.Get(themes.Names()[m.themeIdx], m.dark)
	m.st = newStyles(t)
	m.help.Styles = m.st.Help
	m.setStyles(m.st)
	m.server.SetStyles(m.st)
	m.frameDirty = true
}

// recordsServer reports whether some line of the recording holds the server's view.
func (m *replayRoot) recordsServer() bool {
	for i := range m.lines {
		if m.lines[i].Server != nil {
			return true
		}
	}
	return false
}

func (m *replayRoot) relayout() {
	helpH := 1
	if m.help.ShowAll {
		helpH = fullHelpHeight(m.keys)
	}
	m.lay = withServer(computeLayout(m.w, m.h, helpH, len(m.eps)), m.recordsServer())
	l := m.lay
	m.setSizes(l)
	m.server.SetSize(l.Width, l.Server)
	m.help.SetWidth(l.Width)
	m.refresh()
}

// refresh hands the focused endpoint's recorded state to the panels.
func (m *replayRoot) refresh() {
	m.frameDirty = true
	if m.w == 0 || m.h == 0 {
		return
	}
	ep := m.eps[m.focus]
	m.header.SetData(headerData{
		Name: ep.name, Model: ep.model, API: ep.api, Host: ep.host, Simulated: ep.simulated, Index: m.focus, Count: len(m.eps), Trace: ep.trace != nil,
		TokenSource: ep.tokenSource, Target: ep.target, Active: ep.active, Paused: ep.paused, Rate: ep.rate,
		Ramp: ep.rampText(), Elapsed: ep.elapsed.Truncate(time.Second), Replay: m.playback(),
	})
	ttftMax, errMax := time.Duration(0), 0.0
	if ep.slo != nil { // the recording's criteria, as the live screen judged against them
		ttftMax, errMax = msDur(ep.slo.TTFTP95MaxMs), ep.slo.ErrorRateMax
	}
	m.series.SetTTFTTarget(ttftMax)
	m.series.SetData(ep.newest(m.series.History()), ep.live(), ep.targetUserTPS)
	curves := make([]curveSeries, len(m.eps))
	verds := make([]verdict, len(m.eps))
	var marks map[int]string
	for j, e := range m.eps {
		jd := e.judge() // the verdict the live screen said, from the recorded levels
		curves[j] = curveSeries{Name: e.name, Levels: e.levelList(), Capacity: jd.Capacity.Report().Users}
		verds[j] = verdictOf(&jd, len(m.eps) > 1)
		if j == m.focus {
			marks = levelMarks(&jd)
		}
	}
	m.curve.SetData(curves, ep.targetUserTPS)
	m.curve.SetTrace(ep.trace != nil)
	m.table.SetTrace(ep.trace)
	m.table.SetTargets(ttftMax, ep.reasoning)
	m.table.SetErrorLimit(errMax)
	m.table.SetData(ep.name, curves[m.focus].Levels, curves[m.focus].Capacity, ep.targetUserTPS)
	m.table.SetMarks(marks)
	m.table.SetProgress(ep.progress())
	m.status.SetData(statusData{
		Active: ep.active, Requests: ep.requests, Succeeded: ep.ok, Errors: ep.errors, Recent: ep.errWin.Recent(ep.errors),
		LastError: ep.lastErr, Verdicts: verds, Focus: m.focus, Message: m.said, Shorter: m.saidShort, Bad: m.saidBad,
	})
	m.server.SetData(ep.serverData(m.recorded["diagnosis"]))
}

// View returns the frame.
func (m *replayRoot) View() tea.View {
	if m.frameDirty {
		m.frame = ""
		if !m.quitting {
			l, series := m.lay, m.series.View()
			if l.Server > 0 { // as on the live screen: the server's view right under the series
				series = padLines(series, l.Series) + "\n" + padLines(m.server.View(), l.Server)
				l.Series += l.Server
			}
			curve, table := m.curve.View(), m.table.View()
			if m.showDiag { // as on the live screen: the findings take the curve's and the table's place
				l, curve = inPlaceOfBody(l, m.findingsView)
				table = ""
			}
			m.frame = stack(l, m.header.View(), series, curve, table, m.status.View(), m.help.View(m.keys))
		}
		m.frameDirty = false
	}
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.WindowTitle = "tpsmon replay " + m.name
	return v
}

// findingsView is the focused endpoint's recorded findings (d): those of the line shown,
// and those earlier lines held.
func (m *replayRoot) findingsView(w, h int) string {
	ep := m.eps[m.focus]
	if ep.told != nil {
		return toldView(m.st, ep.name, ep.told, w, h)
	}
	return findingsView(m.st, ep.name, ep.findings, ep.seen, ep.requests, sumKinds(ep.errWin.Recent(ep.errors)), w, h)
}
