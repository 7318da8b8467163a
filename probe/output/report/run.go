// Package report turns results.json files (schema tpsmon.bench/v1) into reports people
// read: HTML with the chart inline, SVG and PNG pictures of the degradation curve, and
// Markdown; and compares two runs for CI. It reads data only: it never measures.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// Run is one results.json file.
type Run struct {
	Name   string // the file as the user named it
	Report model.Report
	extra  extraReport
}

// extraReport holds the keys newer versions of results.json may carry beyond
// model.Report; each is read when present and left at its zero value when absent.
type extraReport struct {
	Settings struct {
		IgnoreEOS *bool    `json:"ignore_eos"`
		TimeoutS  *float64 `json:"timeout_s"`
		MaxHoldS  *float64 `json:"max_hold_s"`
	} `json:"settings"`
	Endpoints []extraEndpoint `json:"endpoints"`
}

type extraEndpoint struct {
	API    string       `json:"api"`
	Levels []extraLevel `json:"levels"`
}

type extraLevel struct {
	SteadyRequests *int               `json:"steady_requests"`
	StallMs        *model.LatencyJSON `json:"stall_ms"`
}

// Decode reads one results.json. name labels the run in reports and errors.
func Decode(name string, data []byte) (*Run, error) {
	r := &Run{Name: name}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r.Report); err != nil {
		return nil, fmt.Errorf("%s: not a tpsmon results file: %v", name, err)
	}
	if r.Report.Schema != model.Schema {
		return nil, fmt.Errorf("%s: schema %q, want %q (a results file written by tpsmon bench --out)", name, r.Report.Schema, model.Schema)
	}
	// The newer keys are optional: one of an unexpected type is left out, never fatal
	// (Unmarshal still fills every key it can read).
	_ = json.Unmarshal(data, &r.extra)
	for i := range r.Report.Endpoints {
		// Steady-request counts and stalls are level keys of newer files: copy the stall
		// into the level so that every reader finds it in one place.
		if i < len(r.extra.Endpoints) {
			ex := r.extra.Endpoints[i]
			for j := range r.Report.Endpoints[i].Levels {
				if j < len(ex.Levels) && ex.Levels[j].StallMs != nil {
					r.Report.Endpoints[i].Levels[j].StallMs = *ex.Levels[j].StallMs
				}
			}
		}
	}
	return r, nil
}

// NewRun is the Run of a report still in memory (bench --report, the live screen's
// snapshot), read back as its results.json would be.
func NewRun(name string, rep *model.Report) (*Run, error) {
	data, err := json.Marshal(rep)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return Decode(name, data)
}

// Series is one endpoint of one run: one curve on the charts, one table in the text,
// and its judgement (model.JudgeEndpoint: what every report says of it).
type Series struct {
	Label     string
	Run       *Run
	Endpoint  model.ReportEndpoint
	Judgement model.EndpointJudgement
	extra     extraEndpoint
}

// API is the endpoint's API (chat or completions): its own when the file records it,
// else the run's.
func (s *Series) API() string {
	if s.extra.API != "" {
		return s.extra.API
	}
	return s.Run.Report.Settings.API
}

// SteadyRequests is level i's steady request count; ok is false when the file has none.
func (s *Series) SteadyRequests(i int) (n int, ok bool) {
	if i < len(s.extra.Levels) && s.extra.Levels[i].SteadyRequests != nil {
		return *s.extra.Levels[i].SteadyRequests, true
	}
	return 0, false
}

// SLO is the criteria the series was measured against, with defaults filled in.
func (s *Series) SLO() model.SLO { return s.Run.Report.Settings.SLO.SLO() }

// SeriesOf lists every endpoint of every run, labelled so that each label is unique:
// the endpoint's name for one run; the file's name (without .json) for several runs,
// followed by the endpoint's name when a run has several endpoints.
func SeriesOf(runs []*Run) []Series {
	var out []Series
	names := runLabels(runs)
	for i, r := range runs {
		for j, e := range r.Report.Endpoints {
			label := e.Name
			if len(runs) > 1 {
				label = names[i]
				if len(r.Report.Endpoints) > 1 {
					label += " · " + e.Name
				}
			}
			s := Series{Label: label, Run: r, Endpoint: e}
			if j < len(r.extra.Endpoints) {
				s.extra = r.extra.Endpoints[j]
			}
			s.Judgement = model.JudgeEndpoint(&r.Report.Settings, &s.Endpoint, r.Report.Interrupted, false)
			s.Judgement.Name = label
			out = append(out, s)
		}
	}
	seen := map[string]int{}
	for i := range out {
		seen[out[i].Label]++
		if n := seen[out[i].Label]; n > 1 {
			out[i].Label += fmt.Sprintf(" (%d)", n)
			out[i].Judgement.Name = out[i].Label
		}
	}
	return out
}

// runLabels names each run by its file name without directory and .json, or by the
// whole path when two runs share a base name.
func runLabels(runs []*Run) []string {
	base := make([]string, len(runs))
	count := map[string]int{}
	for i, r := range runs {
		base[i] = strings.TrimSuffix(filepath.Base(r.Name), ".json")
		count[base[i]]++
	}
	for i, r := range runs {
		if count[base[i]] > 1 {
			base[i] = strings.TrimSuffix(r.Name, ".json")
		}
	}
	return base
}
