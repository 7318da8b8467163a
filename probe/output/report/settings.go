package report

import (
	"strconv"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// Setting is one setting of a run, named and worded for people.
type Setting struct{ Name, Value string }

// Settings lists what a run measured with: the endpoints' models, the workload, the
// hold, when, which tpsmon, and whether the numbers come from the simulator.
func (r *Run) Settings() []Setting {
	st := r.Report.Settings
	var out []Setting
	add := func(name, value string) {
		if value != "" {
			out = append(out, Setting{name, value})
		}
	}
	var models, sim []string
	for _, e := range r.Report.Endpoints {
		m := e.Name
		if e.Model != "" {
			m += ": " + e.Model
		}
		models = append(models, m)
		if e.Simulated {
			sim = append(sim, e.Name)
		}
	}
	add("model", strings.Join(models, "; "))
	add("API", st.API)
	maxTokens, prompt := st.LengthWords()
	add("max_tokens", maxTokens)
	add("prompt", prompt)
	add("workload", st.Workload)
	if x := r.extra.Settings.IgnoreEOS; x != nil {
		add("ignore_eos", map[bool]string{true: "on", false: "off"}[*x])
	}
	add("conversations", strings.Join(conversationWords(&st), " · "))
	switch {
	case st.TraceRun(): // its windows, each held exactly its span: no ramp, no hold of its own
		if st.Trace != nil {
			add("trace", strings.TrimPrefix(st.Trace.Words(), "trace "))
		}
		add("windows", strconv.Itoa(len(st.Ramp))+", each held exactly its span of the trace (no ramp)")
	default:
		add("ramp", model.LevelNames(st.Mode == "rate", st.Ramp))
		if st.HoldS > 0 {
			add("hold", seconds(st.HoldS))
		}
		if x := r.extra.Settings.MaxHoldS; x != nil && *x > 0 {
			add("max hold", seconds(*x))
		}
	}
	if st.MinRequests > 0 {
		add("level rule", "until decided at 95%, at least "+model.Plural(st.MinRequests, "steady request")+" a level")
	}
	if x := r.extra.Settings.TimeoutS; x != nil && *x > 0 {
		add("timeout", seconds(*x))
	}
	add("criteria", st.SLO.SLO().String())
	add("date", date(r.Report.StartedAt))
	add("tpsmon", r.Report.ToolVersion)
	switch {
	case len(sim) == len(r.Report.Endpoints) && len(sim) > 0:
		add("simulated", "yes: tpsmon's simulator, not a real server")
	case len(sim) > 0:
		add("simulated", strings.Join(sim, ", ")+" (tpsmon's simulator)")
	default:
		add("simulated", "no")
	}
	if r.Report.Interrupted {
		add("interrupted", "yes: the run was cut short; it covers what was measured until then")
	}
	return out
}

// SettingsLine is Settings on one line, "name value · name value ...".
func (r *Run) SettingsLine() string {
	var parts []string
	for _, s := range r.Settings() {
		switch {
		case s.Name == "criteria":
			continue // the verdict states them
		case s.Name == "simulated" && s.Value == "no":
			parts = append(parts, "real endpoint")
		case s.Name == "simulated":
			parts = append(parts, "SIMULATED: "+strings.TrimPrefix(s.Value, "yes: "))
		default:
			parts = append(parts, s.Name+" "+s.Value)
		}
	}
	return strings.Join(parts, " · ")
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// date is an RFC 3339 time as "2026-11-23 14:26 UTC", or as given when it does not parse.
func date(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
