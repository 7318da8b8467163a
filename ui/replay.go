package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/probe/output/timeseries"
	"github.com/tpsmon/tpsmon/themes"
)

// ReplayOptions is what tpsmon replay needs.
type ReplayOptions struct {
	Series *timeseries.Series // the recording (at least one line)
	Name   string             // the file, for the status line
	Theme  string             // theme name; "" means default (mono under NO_COLOR)
	Speed  int                // 1, 2 or 4; 0 means 1

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
	name  string
	lines []timeseries.Line
	next  int     // the next line to show
	pos   float64 // playback position: seconds of the recording (a line's elapsed_s)
	speed int
	last  time.Time // wall clock of the previous tick
	eps   []*replayEndpoint
	focus int

	paused, done bool

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
	for range n {
		m.eps = append(m.eps, newReplayEndpoint())
	}
	multi := n > 1
	m.keys.Next.SetEnabled(multi)
	m.keys.Prev.SetEnabled(multi)
	m.applyTheme()
	return m, nil
}

// reset goes back to the start of the recording.
func (m *replayRoot) reset() {
	m.next, m.pos, m.done = 0, 0, false
	for i := range m.eps {
		m.eps[i] = newReplayEndpoint()
	}
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

// advance moves the playback on to now and shows the lines it passed.
func (m *replayRoot) advance(now time.Time) {
	if !m.last.IsZero() && !m.paused && !m.done {
		m.pos += now.Sub(m.last).Seconds() * float64(m.speed)
	}
	m.last = now
	changed := false
	for m.next < len(m.lines) && m.lines[m.next].ElapsedS <= m.pos {
		l := &m.lines[m.next]
		m.eps[l.Index].apply(l)
		changed = changed || l.Index == m.focus
		m.next++
	}
	if m.next == len(m.lines) && !m.done {
		m.done = true
		changed = true
	}
	if changed {
		m.refresh()
	}
}

func (m *replayRoot) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Quit):
		m.quitting, m.frameDirty = true, true
		return tea.Quit
	case key.Matches(msg, k.Pause), key.Matches(msg, k.Play):
		m.paused = !m.paused
		k.setPaused(m.paused)
	case key.Matches(msg, k.Speed1):
		m.speed = 1
	case key.Matches(msg, k.Speed2):
		m.speed = 2
	case key.Matches(msg, k.Speed4):
		m.speed = 4
	case key.Matches(msg, k.Restart):
		m.reset()
	case key.Matches(msg, k.Next):
		m.focus = (m.focus + 1) % len(m.eps)
	case key.Matches(msg, k.Prev):
		m.focus = (m.focus + len(m.eps) - 1) % len(m.eps)
	case key.Matches(msg, k.Theme):
		m.themeIdx = (m.themeIdx + 1) % len(themes.Names())
		m.applyTheme()
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.relayout()
		return nil
	default:
		return nil
	}
	m.refresh()
	return nil
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
		Name: ep.name, Model: ep.model, Simulated: ep.simulated, Index: m.focus, Count: len(m.eps),
		TokenSource: ep.tokenSource, Target: ep.target, Active: ep.active, Paused: ep.paused, Rate: ep.rate,
		Ramp: ep.rampText(), Elapsed: ep.elapsed.Truncate(time.Second),
	})
	m.series.SetData(ep.newest(m.series.History()), ep.live(), ep.targetUserTPS)
	curves := make([]curveSeries, len(m.eps))
	verds := make([]verdict, len(m.eps))
	for j, e := range m.eps {
		jd := e.judge() // the verdict the live screen said, from the recorded levels
		curves[j] = curveSeries{Name: e.name, Levels: e.levelList(), Capacity: jd.Capacity.Report().Users}
		verds[j] = verdictOf(&jd, len(m.eps) > 1)
	}
	m.curve.SetData(curves, ep.targetUserTPS)
	ttftMax := time.Duration(0)
	if ep.slo != nil {
		ttftMax = time.Duration(ep.slo.TTFTP95MaxMs * float64(time.Millisecond))
	}
	m.table.SetTargets(ttftMax, ep.reasoning)
	m.table.SetData(ep.name, curves[m.focus].Levels, curves[m.focus].Capacity, ep.targetUserTPS)
	m.table.SetProgress(ep.progress())
	m.status.SetData(statusData{
		Active: ep.active, Requests: ep.requests, Succeeded: ep.ok, Errors: ep.errors,
		LastError: ep.lastErr, Verdicts: verds, Focus: m.focus, Message: m.playback(),
	})
	m.server.SetData(ep.serverData())
}

// playback is the status line's word on the replay: the file, the position, the speed.
func (m *replayRoot) playback() string {
	end := m.lines[len(m.lines)-1].ElapsedS
	at := min(m.pos, end)
	s := fmt.Sprintf("replay of %s: %s of %s", m.name, fmtClock(secs(at)), fmtClock(secs(end)))
	switch {
	case m.done:
		return s + ", the end (r plays it again, q quits)"
	case m.paused:
		return s + ", paused (space plays)"
	case m.speed > 1:
		return s + fmt.Sprintf(", speed ×%d", m.speed)
	}
	return s + ", real time"
}

func secs(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Truncate(time.Second)
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
			m.frame = stack(l, m.header.View(), series, m.curve.View(), m.table.View(),
				m.status.View(), m.help.View(m.keys))
		}
		m.frameDirty = false
	}
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.WindowTitle = "tpsmon replay"
	return v
}
