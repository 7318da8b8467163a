package ui

import (
	"fmt"

	"github.com/tpsmon/tpsmon/model"
)

// watchEndpoints keeps each endpoint's error window (the status line's errors of the
// last minute). Once per refresh, O(endpoints). Whether an endpoint is down or back is
// the diagnosis's to say (onNotices): only after an outage, never after one error.
func (m *root) watchEndpoints() {
	for i := range m.eng.Len() {
		_, _, errs := m.eng.Book(i).Totals()
		m.errWin[i].Add(m.now, errs)
	}
}

// judge judges every endpoint from the levels the charts just took, as a file of them
// read back would be (model.JudgeEndpoint on their report entries): the capacity each
// curve marks and the verdict the status shows. Once per bucket.
func (m *root) judge(curves []curveSeries) {
	settings := m.eng.Settings()
	m.verds = make([]verdict, 0, len(curves))
	m.caps = make([]int, len(curves))
	m.marks = make([]map[int]string, len(curves))
	for i := range curves {
		c := &curves[i]
		e := model.ReportEndpoint{Name: c.Name, Levels: model.ReportLevels(c.Levels)}
		m.eng.MarkStopped(i, m.eng.RateMode(), e.Levels) // as the report marks them
		j := model.JudgeEndpoint(&settings, &e, false, m.eng.Walking(i))
		c.Capacity = j.Capacity.Report().Users
		m.caps[i] = c.Capacity
		m.marks[i] = levelMarks(&j)
		m.verds = append(m.verds, verdictOf(&j, len(curves) > 1))
	}
}

// capacity is endpoint i's judged capacity as of the latest bucket (0: none yet).
func (m *root) capacity(i int) int {
	if i < len(m.caps) {
		return m.caps[i]
	}
	return 0
}

// verdictOf is an endpoint's verdict line as the status shows it: the judgement's
// sentence (its short form on a narrow screen), named when there are several
// endpoints; empty before a level was measured.
func verdictOf(j *model.EndpointJudgement, named bool) verdict {
	if !j.Judged() {
		return verdict{}
	}
	v := verdict{Full: j.Verdict.Text, Medium: j.Verdict.MediumText(), Short: j.Verdict.ShortText(), Severity: j.Verdict.Severity}
	if named {
		v.Full, v.Medium, v.Short = j.Name+": "+v.Full, j.Name+": "+v.Medium, j.Name+": "+v.Short
	}
	return v
}

// refreshStatus hands the status panel its data when samples arrived or the message
// changed. On a screen too small for both, the message gives way after messageTTL to
// what needs attention (silent streams, the last error), but only when there is such.
func (m *root) refreshStatus(force bool) {
	i := m.focus
	ctl, book := m.eng.Control(i), m.eng.Book(i)
	last, _ := book.LastError()
	live := book.Live()
	msg, short := m.msg, m.msgShort
	if m.lay.Status < 4 && m.now.Sub(m.msgAt) > messageTTL && (last != "" || live.Silent > 0) {
		msg, short = "", nil // let the last error show again
	}
	if !m.dataDirty && !force && msg == m.shownMsg {
		return
	}
	m.shownMsg = msg
	req, ok, errs := book.Totals()
	load := ""
	if m.eng.RateMode() {
		load = fmt.Sprintf("rate %d req/s", ctl.Concurrency())
	}
	m.status.SetData(statusData{
		Load: load, Active: ctl.Active(), Requests: req, Succeeded: ok, Errors: errs, Recent: m.errWin[i].Recent(errs),
		LastError: last, Silent: live.Silent, SilentFor: live.SilentFor,
		Verdicts: m.verds, Focus: i,
		Message: msg, Shorter: short, Bad: m.msgBad,
	})
	m.dataDirty = false
}
