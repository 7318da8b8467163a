package ui

import (
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

// setVerdicts puts every endpoint's verdict in words (model.Verdict) from the levels the
// charts just took, named when there are several endpoints. Once per bucket.
func (m *root) setVerdicts(curves []curveSeries) {
	slo := m.eng.SLO()
	m.verds = make([]verdict, 0, len(curves))
	for i, c := range curves {
		v := verdict{Full: model.Verdict(c.Levels, slo, m.eng.Walking(i), false),
			Short: model.Verdict(c.Levels, slo, m.eng.Walking(i), true)}
		if v.Full != "" && len(curves) > 1 {
			v.Full, v.Short = c.Name+": "+v.Full, c.Name+": "+v.Short
		}
		m.verds = append(m.verds, v)
	}
}

// refreshStatus hands the status panel its data when samples arrived or the message
// changed. On a screen too small for both, the message gives way after messageTTL to
// what needs attention (silent streams, the last error), but only when there is such.
func (m *root) refreshStatus(force bool) {
	i := m.focus
	ctl, book := m.eng.Control(i), m.eng.Book(i)
	last, _ := book.LastError()
	live := book.Live()
	msg := m.msg
	if m.lay.Status < 4 && m.now.Sub(m.msgAt) > messageTTL && (last != "" || live.Silent > 0) {
		msg = "" // let the last error show again
	}
	if !m.dataDirty && !force && msg == m.shownMsg {
		return
	}
	m.shownMsg = msg
	req, ok, errs := book.Totals()
	m.status.SetData(statusData{
		Active: ctl.Active(), Requests: req, Succeeded: ok, Errors: errs, Recent: m.errWin[i].Recent(errs),
		LastError: last, Silent: live.Silent, SilentFor: live.SilentFor,
		Verdicts: m.verds, Focus: i,
		Message: msg, Bad: m.msgBad,
	})
	m.dataDirty = false
}
