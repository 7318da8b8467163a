package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// statusData is the focused endpoint's request counts and errors, and the status message.
type statusData struct {
	Active    int
	Requests  int // ended since start or `c`
	Succeeded int
	Errors    map[model.ErrorKind]int
	LastError string // plain words; "" once requests succeed again
	Message   string // the latest action's outcome (ramp stopped, snapshot saved, ...)
	Bad       bool   // Message reports a failure
}

// statusPanel shows active streams, requests, errors by kind, the last error of the
// focused endpoint, and the status message of the latest action.
type statusPanel struct {
	panel
	data statusData
}

// SetData replaces the counts and the message.
func (p *statusPanel) SetData(d statusData) {
	p.data, p.dirty = d, true
}

// View returns the status lines, redrawn only after SetData, SetSize or SetStyles.
func (p *statusPanel) View() string { return p.view(p.render) }

// errorKinds returns "kind n" pairs, most frequent first (ties by name).
func errorKinds(errs map[model.ErrorKind]int) []string {
	kinds := make([]model.ErrorKind, 0, len(errs))
	for k, n := range errs {
		if n > 0 && k != model.ErrCanceled {
			kinds = append(kinds, k)
		}
	}
	sort.Slice(kinds, func(i, j int) bool {
		if errs[kinds[i]] != errs[kinds[j]] {
			return errs[kinds[i]] > errs[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = fmt.Sprintf("%s %d", k, errs[k])
	}
	return out
}

func (p *statusPanel) render() string {
	d, st := p.data, p.st
	sep := st.Faint.Render(" · ")
	counts := st.Faint.Render("active ") + st.Value.Render(fmt.Sprint(d.Active)) + sep +
		st.Faint.Render("requests ") + st.Value.Render(fmt.Sprint(d.Requests)) + sep +
		st.Faint.Render("ok ") + st.Value.Render(fmt.Sprint(d.Succeeded)) + sep +
		st.Faint.Render("errors ")
	if kinds := errorKinds(d.Errors); len(kinds) > 0 {
		counts += st.Bad.Render(strings.Join(kinds, ", "))
	} else {
		counts += st.Good.Render("none")
	}
	lastErr := ""
	if d.LastError != "" {
		lastErr = st.Faint.Render("last error: ") + st.Bad.Render(d.LastError)
	}
	msg := ""
	if d.Message != "" {
		if d.Bad {
			msg = st.Bad.Render(d.Message)
		} else {
			msg = st.Text.Render(d.Message)
		}
	}
	lines := []string{counts}
	switch {
	case p.h >= 3:
		lines = append(lines, lastErr, msg)
	case p.h == 2 && msg != "":
		lines = append(lines, msg)
	case p.h == 2:
		lines = append(lines, lastErr)
	}
	for len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return fitBlock(strings.Join(lines, "\n"), p.w, p.h)
}
