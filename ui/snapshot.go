package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/model"
)

// report is the bench JSON schema for every endpoint, as of now.
func (m *root) report(interrupted bool) *model.Report {
	s := m.settings
	if len(s.Ramp) == 0 {
		s.Ramp = append([]int(nil), m.rampPlan.Levels...)
		s.HoldS = m.rampPlan.Hold.Seconds()
	}
	if s.SLO == (model.ReportSLO{}) {
		s.SLO = model.ReportSLO{
			UserTPSMin:   m.slo.UserTPSMin,
			TTFTP95MaxMs: float64(m.slo.TTFTP95Max) / float64(time.Millisecond),
			ErrorRateMax: m.slo.ErrorRateMax,
		}
	}
	r := &model.Report{
		Schema:      model.Schema,
		ToolVersion: m.version,
		StartedAt:   m.started.UTC().Format(time.RFC3339),
		FinishedAt:  m.now.UTC().Format(time.RFC3339),
		Interrupted: interrupted,
		Settings:    s,
	}
	for _, e := range m.eps {
		r.Endpoints = append(r.Endpoints, e.tr.ReportEndpoint(e.info))
	}
	return r
}

// snapshotMsg reports where a snapshot was written, or why it was not.
type snapshotMsg struct {
	path string
	err  error
}

// snapshotCmd writes the report as JSON and its Markdown summary to timestamped files in
// dir (off the Update goroutine: the report is a copy that nothing else touches).
func snapshotCmd(dir string, r *model.Report, now time.Time) tea.Cmd {
	return func() tea.Msg {
		path, err := writeSnapshot(dir, r, now)
		return snapshotMsg{path: path, err: err}
	}
}

// writeSnapshot writes tpsmon-YYYYMMDD-HHMMSS.json and .md into dir and returns the JSON path.
func writeSnapshot(dir string, r *model.Report, now time.Time) (string, error) {
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cannot create snapshot directory %s: %w", dir, err)
	}
	base := filepath.Join(dir, "tpsmon-"+now.Format("20060102-150405"))
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(base+".json", append(js, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("cannot write snapshot: %w", err)
	}
	if err := os.WriteFile(base+".md", []byte(model.Markdown(r)), 0o644); err != nil {
		return "", fmt.Errorf("cannot write snapshot summary: %w", err)
	}
	return base + ".json", nil
}
