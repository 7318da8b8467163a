package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// Thresholds say how much worse NEW may be than BASE before it is a regression.
type Thresholds struct {
	// MaxRegression is the largest relative loss allowed on per-user tok/s p50 and
	// aggregate tok/s, and the largest relative rise of TTFT p95 (0.05 = 5%).
	MaxRegression float64
	// MaxErrorIncrease is the largest rise of a level's error rate allowed, in
	// percentage points as a fraction (0.01 = one point: 0.5% to 1.5%).
	MaxErrorIncrease float64
}

// DefaultThresholds are 5% and one percentage point of errors.
var DefaultThresholds = Thresholds{MaxRegression: 0.05, MaxErrorIncrease: 0.01}

// Comparison is NEW against BASE.
type Comparison struct {
	Markdown string
	// Regressions are each way NEW is worse: a change beyond the thresholds decided at
	// 95% (Decided of them) or judged on points for want of intervals (OnPoints), or a
	// level or a figure BASE measured and NEW did not (the rest).
	Regressions       []string
	Decided, OnPoints int
	// Undecided are the changes beyond the thresholds that the 95% intervals do not
	// decide: said, not called regressions ("within what 42 and 38 requests can tell").
	Undecided  []string
	Mismatches []string // why the two runs cannot be compared; when any, nothing else is judged
	Notes      []string // differences that do not stop the comparison
}

// Compare compares NEW with BASE, endpoint by endpoint (by name; two single-endpoint
// runs are paired whatever their names) and level by level (by users).
func Compare(base, next *Run, th Thresholds) Comparison {
	var c Comparison
	c.Mismatches, c.Notes = settingsDiff(base, next)
	pairs, notes := pairEndpoints(base, next)
	c.Notes = append(c.Notes, notes...)
	for _, p := range pairs {
		c.Mismatches = append(c.Mismatches, p.mismatches()...)
	}
	if len(pairs) == 0 {
		c.Mismatches = append(c.Mismatches, fmt.Sprintf("no endpoint in common: BASE has %s, NEW has %s",
			endpointNames(base), endpointNames(next)))
	}
	var b strings.Builder
	names := runLabels([]*Run{base, next})
	fmt.Fprintf(&b, "# tpsmon compare: NEW %s vs BASE %s\n\n", mdEscape(names[1]), mdEscape(names[0]))
	fmt.Fprintf(&b, "BASE: %s · NEW: %s\n", runWords(base), runWords(next))
	if len(c.Mismatches) == 0 {
		var all calls
		var baseOld, nextOld bool // a run without intervals, whose changes were judged on points
		for _, p := range pairs {
			pc, note := comparePair(&b, p, th)
			all.merge(pc)
			if pc.onPoints {
				baseOld = baseOld || !p.base.Judgement.Intervals
				nextOld = nextOld || !p.next.Judgement.Intervals
			}
			if note != "" {
				c.Notes = append(c.Notes, note)
			}
		}
		c.Regressions, c.Undecided = all.regs, all.undecided
		c.Decided, c.OnPoints = all.decided, all.points
		if n := noIntervals("BASE", "NEW", baseOld, nextOld); n != "" {
			c.Notes = append(c.Notes, n)
		}
	}
	b.WriteString("\n")
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	switch {
	case len(c.Mismatches) > 0:
		b.WriteString("\n**Result: the runs cannot be compared.**\n\n")
		for _, m := range c.Mismatches {
			fmt.Fprintf(&b, "- %s\n", m)
		}
	case len(c.Regressions) > 0:
		fmt.Fprintf(&b, "\n**Result: %s** (thresholds: %s).\n\n", resultWords("NEW", "BASE", calls{regs: c.Regressions}), th)
		for _, r := range c.Regressions {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	default:
		fmt.Fprintf(&b, "\n**Result: %s** (thresholds: %s).\n", resultWords("NEW", "BASE", calls{}), th)
	}
	if len(c.Mismatches) == 0 && len(c.Undecided) > 0 {
		b.WriteString("\nBeyond the thresholds, but not decided by the 95% intervals of BASE and NEW:\n\n")
		for _, u := range c.Undecided {
			fmt.Fprintf(&b, "- %s\n", u)
		}
	}
	c.Markdown = b.String()
	return c
}

// Worse is why compare exits 1, in a line: "NEW is worse than BASE: 2 regressions
// decided at 95%", "NEW is worse than BASE: 1 regression decided at 95%, 1 on the
// figures alone (no intervals) and 1 level or figure NEW did not measure"; "" when
// there is no regression.
func (c Comparison) Worse() string {
	if len(c.Regressions) == 0 {
		return ""
	}
	var parts []string
	if c.Decided > 0 {
		parts = append(parts, model.Plural(c.Decided, "regression")+" decided at 95%")
	}
	if c.OnPoints > 0 {
		what := model.Plural(c.OnPoints, "regression")
		if len(parts) > 0 {
			what = strconv.Itoa(c.OnPoints)
		}
		parts = append(parts, what+" on the figures alone (no intervals)")
	}
	if n := len(c.Regressions) - c.Decided - c.OnPoints; n > 0 {
		what := "1 level or figure"
		if n > 1 {
			what = strconv.Itoa(n) + " levels or figures"
		}
		parts = append(parts, what+" NEW did not measure")
	}
	return "NEW is worse than BASE: " + model.And(parts)
}

// String words the thresholds.
func (th Thresholds) String() string {
	pts := strings.TrimSuffix(model.FormatPercent(th.MaxErrorIncrease), "%") + " points"
	if pts == "1 points" {
		pts = "1 point"
	}
	return fmt.Sprintf("tok/s and TTFT p95 within %s, error rate up by at most %s", model.FormatPercent(th.MaxRegression), pts)
}

func runWords(r *Run) string {
	s := r.Name + " (" + date(r.Report.StartedAt) + ", tpsmon " + r.Report.ToolVersion
	if r.Report.Interrupted {
		s += ", interrupted"
	}
	return s + ")"
}

// settingsDiff lists the settings that make two runs incomparable (the workload, the
// ramp, the criteria), and those worth a note (how long levels were held).
func settingsDiff(base, next *Run) (mismatch, notes []string) {
	a, b := base.Report.Settings, next.Report.Settings
	diff := func(name, x, y string) {
		if x != y {
			mismatch = append(mismatch, fmt.Sprintf("%s differs: BASE %s, NEW %s", name, x, y))
		}
	}
	if x, y := runMode(base), runMode(next); x != y {
		axes := []string{x, y}
		slices.Sort(axes) // rate, trace, users
		unit := map[string]string{"rate": "requests/s", "trace": "a trace's windows", "users": "users"}
		mismatch = append(mismatch, fmt.Sprintf("the load differs: BASE %s %s, NEW %s %s: %s and %s are not the same axis",
			base.Name, modeWords(x), next.Name, modeWords(y), unit[axes[0]], unit[axes[1]]))
	}
	traces := a.Trace != nil && b.Trace != nil // their windows and spans are the replay's
	if traces {
		replay := func(t model.ReportTrace) string { // the same trace may lie in two places: its file is not compared
			t.File = ""
			return strings.TrimPrefix(t.Words(), "trace : ")
		}
		diff("the trace's replay", replay(*a.Trace), replay(*b.Trace))
	}
	if !traces {
		diff("the ramp", joinInts(a.Ramp), joinInts(b.Ramp))
	}
	diff("the API", a.API, b.API)
	diff("max_tokens", strconv.Itoa(a.MaxTokens), strconv.Itoa(b.MaxTokens))
	fixed := a.Workload == "" && b.Workload == "" // no dataset, no drawn lengths: max_tokens is a flag's N
	if fixed && a.MaxTokens > 0 && b.MaxTokens > 0 && a.MaxTokens != b.MaxTokens && len(mismatch) > 0 {
		hint := fmt.Sprintf(" (run NEW again with --max-tokens %d)", a.MaxTokens)
		if a.MaxTokens == 256 && b.MaxTokens == 128 { // a baseline made at the old default
			hint = " (run NEW again with --max-tokens 256: tpsmon's default was 256 until 2026-11-26, and is 128 since)"
		}
		mismatch[len(mismatch)-1] += hint
	}
	diff("the prompt size", strconv.Itoa(a.PromptTokens)+" tokens", strconv.Itoa(b.PromptTokens)+" tokens")
	diff("the criteria", a.SLO.SLO().String(), b.SLO.SLO().String())
	if x, y := base.extra.Settings.IgnoreEOS, next.extra.Settings.IgnoreEOS; x != nil && y != nil {
		diff("ignore_eos", strconv.FormatBool(*x), strconv.FormatBool(*y))
	}
	if a.HoldS != b.HoldS && !traces {
		notes = append(notes, fmt.Sprintf("the hold differs (BASE %s, NEW %s): levels rest on different numbers of requests", seconds(a.HoldS), seconds(b.HoldS)))
	}
	if next.Report.Interrupted {
		notes = append(notes, "NEW was interrupted: it covers what was measured until then")
	}
	return mismatch, notes
}

type endpointPair struct {
	name       string
	base, next Series
}

// rate reports whether the pair's levels are arrival rates (BASE is a rate-mode run;
// a pair of runs of different modes is never compared).
func (p *endpointPair) rate() bool { return p.base.Run != nil && rateRun(p.base.Run) }

// trace reports whether the pair's levels are windows of a trace.
func (p *endpointPair) trace() bool { return p.base.Judgement.Trace != nil }

// unit is the pair's levels' unit: "users", "requests/s" in rate mode, or "windows".
func (p *endpointPair) unit() string {
	switch {
	case p.trace():
		return "windows"
	case p.rate():
		return "requests/s"
	}
	return "users"
}

// level names a level of the pair as BASE's judgement does: "8 users", "8
// requests/s", "window 2 (60-120 s of the trace)".
func (p *endpointPair) level(n int) string { return p.base.Judgement.LevelName(n) }

// rateRun reports whether r is a rate-mode run (its levels are arrival rates).
func rateRun(r *Run) bool { return r.Report.Settings.Mode == "rate" }

// runMode is what r's levels are: "users", "rate" or "trace".
func runMode(r *Run) string {
	switch {
	case r.Report.Settings.TraceRun():
		return "trace"
	case rateRun(r):
		return "rate"
	}
	return "users"
}

func modeWords(mode string) string {
	switch mode {
	case "trace":
		return "is a trace run (levels are windows of the trace)"
	case "rate":
		return "is a rate-mode run (levels in requests/s)"
	}
	return "is a users-mode run (levels in users)"
}

// pairEndpoints pairs the endpoints of base and next by name, or the two endpoints of
// two single-endpoint runs whatever their names. Each pair is named as a report of both
// files names its series (SeriesOf: the file, and the endpoint when the run has
// several): "NEW vs BASE".
func pairEndpoints(base, next *Run) ([]endpointPair, []string) {
	all := SeriesOf([]*Run{base, next})
	bs, ns := all[:len(base.Report.Endpoints)], all[len(base.Report.Endpoints):]
	name := func(b, n Series) string { return n.Label + " vs " + b.Label }
	if len(bs) == 1 && len(ns) == 1 {
		var notes []string
		if bs[0].Endpoint.Name != ns[0].Endpoint.Name {
			notes = append(notes, fmt.Sprintf("the endpoints have different names (BASE %s, NEW %s): compared as one", bs[0].Endpoint.Name, ns[0].Endpoint.Name))
		}
		return []endpointPair{{name(bs[0], ns[0]), bs[0], ns[0]}}, notes
	}
	var pairs []endpointPair
	var notes []string
	for _, b := range bs {
		i := slices.IndexFunc(ns, func(n Series) bool { return n.Endpoint.Name == b.Endpoint.Name })
		if i < 0 {
			notes = append(notes, "endpoint "+b.Endpoint.Name+" is only in BASE")
			continue
		}
		pairs = append(pairs, endpointPair{name(b, ns[i]), b, ns[i]})
	}
	for _, n := range ns {
		if !slices.ContainsFunc(bs, func(b Series) bool { return b.Endpoint.Name == n.Endpoint.Name }) {
			notes = append(notes, "endpoint "+n.Endpoint.Name+" is only in NEW")
		}
	}
	return pairs, notes
}

// mismatches are why the pair cannot be compared, though their runs' settings can: NEW
// was interrupted before levels BASE measured, or the endpoints' APIs differ.
func (p *endpointPair) mismatches() []string {
	var out []string
	if missing := missingLevels(*p); len(missing) > 0 && p.next.Run.Report.Interrupted {
		out = append(out, fmt.Sprintf("%s: NEW was interrupted before %s %s, which BASE measured", p.name, strings.Join(missing, ", "), p.unit()))
	}
	if x, y := p.base.extra.API, p.next.extra.API; x != "" && y != "" && x != y {
		out = append(out, fmt.Sprintf("%s: the API differs: BASE %s, NEW %s", p.name, x, y))
	}
	return out
}

// missingLevels lists the users (or rates) of BASE's levels that NEW did not measure.
func missingLevels(p endpointPair) []string {
	var out []string
	for _, l := range p.base.Endpoint.Levels {
		if _, ok := levelAt(p.next.Endpoint.Levels, l.Concurrency); !ok {
			out = append(out, strconv.Itoa(l.Concurrency))
		}
	}
	return out
}

func endpointNames(r *Run) string {
	var names []string
	for _, e := range r.Report.Endpoints {
		names = append(names, e.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
