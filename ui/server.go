package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// serverData is what the server panel shows: the server's own view of the focused
// endpoint (its /metrics), tpsmon's own load, and the diagnosis.
type serverData struct {
	Status   engine.ServerStatus
	Self     engine.SelfUse
	Findings []model.Finding
	Requests int // ended since the start or the clear: a diagnosis without findings is healthy only once some did
	Failed   int // failed over the last minute: without findings, they are said as failures with no cause named, never "nothing wrong"
	// Unrecorded is set in replay of a recording made before the diagnosis was recorded.
	Unrecorded bool
	// Told is, in replay at the end of the recording, the run's diagnosis as its
	// judgement said it (the End line): said instead of the last second's findings.
	Told []model.Statement
}

// serverPanel sits under the client's series: the server's running and waiting
// requests, KV-cache use, generated tok/s and preemptions, tpsmon's own CPU and
// scheduling delay, and the diagnosis in words. With 3 lines each has its own; with 2
// the server and tpsmon share the first; with 1 the diagnosis, when there is one, takes
// the server's place.
type serverPanel struct {
	panel
	data serverData
}

var _ component = (*serverPanel)(nil)

// SetData takes the latest view; the panel redraws only when what it shows changed.
func (p *serverPanel) SetData(d serverData) {
	if !sameServerData(d, p.data) {
		p.data, p.dirty = d, true
	}
}

func sameServerData(a, b serverData) bool {
	if a.Status != b.Status || a.Self != b.Self || len(a.Findings) != len(b.Findings) || a.Requests != b.Requests || a.Failed != b.Failed || // "nothing wrong seen (N requests)" counts them
		a.Unrecorded != b.Unrecorded {
		return false
	}
	for i := range a.Findings {
		if !a.Findings[i].Same(b.Findings[i]) {
			return false
		}
	}
	return true
}

// View returns the panel, redrawn only after a change.
func (p *serverPanel) View() string { return p.view(p.render) }

func (p *serverPanel) render() string {
	diag := p.diagnosis()
	var lines []string
	switch {
	case p.h >= 3:
		row := p.serverRow(false)
		if ansi.StringWidth(row) > p.w {
			row = p.serverRow(true)
		}
		lines = []string{row, p.selfRow(false), diag}
	case p.h == 2:
		row := p.serverRow(false)
		if ansi.StringWidth(row)+2+ansi.StringWidth(p.selfRow(true)) > p.w {
			row = p.serverRow(true)
		}
		lines = []string{joinSpread(row, p.selfRow(true), p.w), diag}
	default:
		lines = []string{joinSpread(p.serverRow(true), p.selfRow(true), p.w)}
		if len(p.data.Findings) > 0 {
			lines[0] = diag
		}
	}
	return fitBlock(strings.Join(lines, "\n"), p.w, p.h)
}

// serverRow is the server's view: "server vLLM  running 32 · waiting 14 · KV 97% ·
// 762 tok/s generated · 0 preempted", compact "vLLM run 32 wait 14 KV 97% 762 tok/s".
func (p *serverPanel) serverRow(compact bool) string {
	st, s := p.st, p.data.Status
	head := st.Title.Render("server")
	if compact {
		head = st.Title.Render("srv")
	}
	switch s.State {
	case engine.ServerOff:
		return head + st.Faint.Render(" metrics off")
	case engine.ServerWaiting:
		return head + st.Faint.Render(" metrics: asking "+s.URL)
	case engine.ServerUnavailable:
		return head + st.Faint.Render(" metrics not available at "+s.URL+": "+s.Reason)
	case engine.ServerDown:
		return head + " " + st.Bad.Render("down") + st.Faint.Render(": "+s.URL+": "+s.Reason)
	}
	parts := []string{head + " " + st.Faint.Render(s.Kind)}
	if !s.HasLast {
		return parts[0]
	}
	pt := s.Last
	add := func(name, short, value string, warn bool) {
		if compact {
			name = short
		}
		vs := st.Value
		if warn {
			vs = st.Warn
		}
		parts = append(parts, st.Faint.Render(name+" ")+vs.Render(value))
	}
	if pt.Has.Has(model.SigRunning) {
		add("running", "run", fmtCount(pt.Running), false)
	}
	if pt.Has.Has(model.SigWaiting) {
		add("waiting", "wait", fmtCount(pt.Waiting), pt.Waiting >= 1)
	}
	if pt.Has.Has(model.SigKV) {
		add("KV", "KV", strconv.FormatFloat(100*pt.KV, 'f', 0, 64)+"%", pt.KV >= 0.9)
	}
	if pt.Rate {
		unit := " tok/s generated"
		if compact {
			unit = " tok/s"
		}
		parts = append(parts, st.Value.Render(fmtRate(pt.GenTPS))+st.Faint.Render(unit))
	}
	if pt.Has.Has(model.SigPreemptions) && pt.Rate {
		// Per second over the last scrapes, and the total: one scrape's count says little.
		v := strconv.FormatFloat(s.PreemptPerS, 'f', 1, 64) + "/s"
		if !compact {
			v += " (" + fmtCount(s.Preempted) + " in all)"
		}
		add("preempted", "preempt", v, s.PreemptPerS > 0)
	}
	sep := st.Faint.Render(" · ")
	if compact {
		sep = " "
	}
	return strings.Join(parts, sep)
}

// selfRow is tpsmon's own load: "tpsmon CPU 45% of 2 cores · readers wait 0.4 ms",
// compact "tpsmon 45% CPU"; in the warning style when tpsmon may be the limit.
func (p *serverPanel) selfRow(compact bool) string {
	st, u := p.st, p.data.Self
	who := "tpsmon"
	if u.WithSim {
		who = "tpsmon+sim"
	}
	if !u.Known {
		return st.Faint.Render(who + " CPU —")
	}
	busy := u.Busy()
	if u.WithSim { // its CPU holds the simulator's: only the readers' delay says tpsmon is short
		busy = u.Sched >= schedLate
	}
	vs := st.Value
	if busy {
		vs = st.Warn
	}
	cpu := strconv.FormatFloat(100*u.CPU, 'f', 0, 64) + "%"
	if compact {
		return st.Faint.Render(who+" ") + vs.Render(cpu) + st.Faint.Render(" CPU")
	}
	line := st.Title.Render(who) + st.Faint.Render(" CPU ") + vs.Render(cpu)
	if u.Cores > 0 {
		line += st.Faint.Render(" of " + model.Plural(u.Cores, "core"))
	}
	line += st.Faint.Render(" · readers wait ") + vs.Render(fmtSched(u.Sched)) + st.Faint.Render(" to run (p99)")
	if busy {
		line += " " + st.Warn.Render("tpsmon may be the limit")
	}
	return line
}

// schedLate is the readers' delay the panel flags (selfwatch.SchedLate).
const schedLate = 20 * time.Millisecond

// diagnosis is the diagnosis line: the judgement's first statement of the diagnosis
// (model.DiagnosisStatements: the most telling finding, or that nothing wrong was seen
// once requests ended) in its severity's colour, and how many more findings there are
// (d shows them all).
func (p *serverPanel) diagnosis() string {
	st := p.st
	ds := p.data.Told
	switch {
	case ds != nil:
	case p.data.Unrecorded:
		return st.Faint.Render("diagnosis: not recorded (an older tpsmon)")
	default:
		ds = model.DiagnosisStatements(p.data.Findings, p.data.Requests, p.data.Failed, true)
	}
	if len(ds) == 0 {
		return st.Faint.Render("diagnosis: no answer yet")
	}
	if ds[0].Kind == model.SayHealthy {
		return st.Faint.Render("diagnosis: " + ds[0].Text)
	}
	style := findingStyle(st, ds[0].Severity)
	more := ""
	if len(ds) > 1 {
		more = fmt.Sprintf(" (+%d more: d)", len(ds)-1)
	}
	line := ds[0].Text
	if ansi.StringWidth("diagnosis: "+line+more) <= p.w {
		return st.Faint.Render("diagnosis: ") + style.Render(line) + st.Faint.Render(more)
	}
	if more != "" {
		return ansi.Truncate(style.Render(line), max(p.w-ansi.StringWidth(more), 1), "…") + st.Faint.Render(more)
	}
	return style.Render(line)
}

// fmtSched is a scheduling delay: "0.4 ms" under a millisecond, else as fmtDur.
func fmtSched(d time.Duration) string {
	if d > 0 && d < time.Millisecond {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
	}
	return fmtDur(d)
}

// fmtCount is a gauge or count: whole numbers as such, others with one decimal.
func fmtCount(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// withServer gives the server panel its lines (3 from 34 lines high, 2 from 20, 1 from
// 12, none below; one less, at least 1, when no endpoint's metrics are scraped), taken
// from the curve and the table. When some endpoint's metrics are scraped (on) and the
// table sits beside a curve that stays at least curveMinW wide, the table widens for
// its server columns.
func withServer(l layout, on bool) layout {
	if on && l.Beside && l.CurveW-serverColsW >= curveMinW {
		l.TableW += serverColsW
		l.CurveW -= serverColsW
	}
	want := 0
	switch {
	case l.Height >= 34:
		want = 3
	case l.Height >= 20:
		want = 2
	case l.Height >= 12:
		want = 1
	}
	if !on && want > 1 {
		want-- // no server row: tpsmon's own load and the diagnosis share less room
	}
	body := max(l.Curve, l.Table)
	if l.Beside || l.Table == 0 {
		n := min(want, max(body-4, 0))
		l.Server = n
		l.Curve = max(l.Curve-n, 0)
		if l.Beside {
			l.Table = max(l.Table-n, 0)
		}
		return l
	}
	n := min(want, max(l.Curve-4, 0))
	l.Server, l.Curve = n, l.Curve-n
	return l
}

// curveMinW is the narrowest curve the table's server columns may leave beside it.
const curveMinW = 50

// serverCols are the table's server columns: mean waiting requests and mean KV-cache
// use over the level's steady time, from the server's /metrics.
var serverCols = []struct {
	name string
	w    int
}{{"wait", 5}, {"KV", 4}}

// serverColsW is the width the server columns add (a space before each).
var serverColsW = func() int {
	w := 0
	for _, c := range serverCols {
		w += c.w + 1
	}
	return w
}()

// SetServer takes the server's view per level (nil or empty: no server columns).
func (p *tablePanel) SetServer(levels map[int]model.ServerLevel) {
	if len(levels) == 0 && len(p.server) == 0 {
		return
	}
	p.server, p.dirty = levels, true
}

// serverShown reports whether the server columns are drawn: some level has a server
// view and they fit.
func (p *tablePanel) serverShown() bool {
	return len(p.server) > 0 && p.w >= tableWidth()+serverColsW
}

func (p *tablePanel) serverHead() string {
	if !p.serverShown() {
		return ""
	}
	var b strings.Builder
	for _, c := range serverCols {
		fmt.Fprintf(&b, " %*s", c.w, c.name)
	}
	return b.String()
}

// serverCells are a level's server cells: " 14.2  97%", dashes when unknown.
func (p *tablePanel) serverCells(users int) string {
	if !p.serverShown() {
		return ""
	}
	st := p.st
	sv, ok := p.server[users]
	wait, kv := "—", "—"
	waitStyle, kvStyle := st.Faint, st.Faint
	if ok && sv.WaitingMean != nil {
		wait, waitStyle = fmtCount(roundTo(*sv.WaitingMean, 1)), st.Text
		if *sv.WaitingMean >= 1 {
			waitStyle = st.Warn
		}
	}
	if ok && sv.KVMeanPct != nil {
		kv, kvStyle = strconv.FormatFloat(*sv.KVMeanPct, 'f', 0, 64)+"%", st.Text
		if *sv.KVMeanPct >= 90 {
			kvStyle = st.Warn
		}
	}
	return " " + waitStyle.Render(fmt.Sprintf("%*s", serverCols[0].w, wait)) +
		" " + kvStyle.Render(fmt.Sprintf("%*s", serverCols[1].w, kv))
}

// roundTo rounds v to prec decimals.
func roundTo(v float64, prec int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', prec, 64), 64)
	return f
}

// serverLevels is the server's view of endpoint i per level of levels.
func serverLevels(eng *engine.Engine, i int, levels []model.LevelStats) map[int]model.ServerLevel {
	var out map[int]model.ServerLevel
	for _, l := range levels {
		if sv, ok := eng.ServerLevel(i, l.Concurrency); ok {
			if out == nil {
				out = map[int]model.ServerLevel{}
			}
			out[l.Concurrency] = sv
		}
	}
	return out
}

// serverOn reports whether some endpoint's metrics are scraped.
func (m *root) serverOn() bool {
	for i := range m.eng.Len() {
		if m.eng.Server(i).State != engine.ServerOff {
			return true
		}
	}
	return false
}
