package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// Summary is a run's results as Markdown, for people: what bench prints, the live
// screen writes when it quits and with each snapshot, and merge prints. The run's
// settings and whether it was interrupted, then for each endpoint its level tables,
// the server's view and its judgement (model.Judge: the verdict, the failing levels, the
// notes, the diagnosis). A value that was not measured (no successful request, no
// steady window, or a distribution nothing was recorded into, such as per-user tok/s of
// one-token answers) shows as "-".
func Summary(r *model.Report) string { return summary(r, "tpsmon results") }

// summary is Summary under the heading title.
func summary(r *model.Report, title string) string {
	var b strings.Builder
	writeSettings(&b, r, title)
	j := model.Judge(r)
	for i := range r.Endpoints {
		b.WriteString("\n")
		writeEndpoint(&b, &r.Endpoints[i], &j.Endpoints[i], r.Settings.SLO.SLO())
	}
	return b.String()
}

// writeSettings writes the heading, one line per group of settings (a group nobody set
// is left out) and, when the run was interrupted, a line that says so.
func writeSettings(b *strings.Builder, r *model.Report, title string) {
	s := &r.Settings
	b.WriteString("## " + title + "\n\n")
	var when []string
	if r.StartedAt != "" {
		when = append(when, "started "+r.StartedAt)
	}
	if r.FinishedAt != "" {
		when = append(when, "finished "+r.FinishedAt)
	}
	if r.ToolVersion != "" {
		when = append(when, "tpsmon "+r.ToolVersion)
	}
	line(b, "run", when)
	if r.MergedFrom > 0 {
		b.WriteString("- merged: " + strconv.Itoa(r.MergedFrom) + " results (shards or whole runs: histograms merged, counters summed)\n")
	}
	if sh := s.Shard; sh != nil {
		b.WriteString("- shard: " + strconv.Itoa(sh.Index) + "/" + strconv.Itoa(sh.Count) + " (this run sent its share of each level's users; merge the shards' results.json)\n")
	}
	line(b, "model", endpointValues(r, func(e *model.ReportEndpoint) string { return e.Model }, ""))
	line(b, "API", endpointValues(r, func(e *model.ReportEndpoint) string { return e.API }, s.API))
	var work []string
	maxTokens, prompt := s.LengthWords()
	if maxTokens != "" {
		work = append(work, "max_tokens "+maxTokens)
	}
	if prompt != "" {
		work = append(work, "prompt "+prompt)
	}
	work = append(work, "ignore_eos "+map[bool]string{true: "on", false: "off"}[s.IgnoreEOS])
	if s.Workload != "" {
		work = append(work, s.Workload)
	}
	if len(s.ExtraBodyKeys) > 0 {
		work = append(work, "extra_body keys "+strings.Join(s.ExtraBodyKeys, ", "))
	}
	if s.TimeoutS > 0 {
		work = append(work, "timeout "+seconds(s.TimeoutS))
	}
	if s.Seed != 0 {
		work = append(work, "prompt seed "+strconv.FormatUint(s.Seed, 10))
	}
	line(b, "workload", work)
	line(b, "conversations", conversationWords(s))
	if s.Trace != nil {
		b.WriteString("- trace: " + s.Trace.Words() + "; each level is a window of the trace, held exactly its span\n")
	} else {
		line(b, "ramp", rampWords(s))
	}
	b.WriteString("- criteria: " + s.SLO.SLO().String() + "\n")
	if r.Interrupted {
		b.WriteString("\n**Interrupted**: the run was stopped before its end: levels it did not reach were not measured, " +
			"the last level may be incomplete, and a capacity found is a lower bound.\n")
	}
}

// line writes "- name: a · b" unless parts is empty.
func line(b *strings.Builder, name string, parts []string) {
	if len(parts) > 0 {
		b.WriteString("- " + name + ": " + strings.Join(parts, " · ") + "\n")
	}
}

// endpointValues is the distinct non-empty values of f over the endpoints, in order and
// joined by commas (nil when there is none); def when no endpoint has one.
func endpointValues(r *model.Report, f func(*model.ReportEndpoint) string, def string) []string {
	var out []string
	for i := range r.Endpoints {
		if v := f(&r.Endpoints[i]); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 && def != "" {
		out = append(out, def)
	}
	if len(out) == 0 {
		return nil
	}
	return []string{strings.Join(out, ", ")}
}

// rampWords describes the ramp and the hold, e.g. "1, 8, 16 users · hold 5 s and until
// decided at 95% (at least 8 steady requests), up to 120 s" (a file written before the
// sequential level rule: "until max(20, 2 x users) steady requests").
func rampWords(s *model.ReportSettings) []string {
	var out []string
	if len(s.Ramp) == 0 && s.HoldS == 0 && s.MaxHoldS == 0 && s.StartAt == "" {
		return byHandWords(s) // the live screen, whose levels were all set by keys
	}
	if len(s.Ramp) > 0 {
		n := make([]string, len(s.Ramp))
		for i, c := range s.Ramp {
			n[i] = strconv.Itoa(c)
		}
		if s.Mode == "rate" {
			r := strings.Join(n, ", ") + " requests/s (" + s.Arrival + " arrivals"
			if s.MaxConcurrency > 0 {
				r += ", at most " + strconv.Itoa(s.MaxConcurrency) + " in flight"
			}
			out = append(out, r+")")
		} else {
			out = append(out, strings.Join(n, ", ")+" users")
		}
	}
	switch {
	case s.StartAt != "" && s.HoldS > 0:
		out = append(out, "fixed schedule from "+s.StartAt+": each level held exactly "+seconds(s.HoldS)+", no early stop")
	case s.HoldS > 0 && s.MaxHoldS > 0 && s.MinRequests > 0:
		out = append(out, "hold "+seconds(s.HoldS)+" and until decided at 95% (at least "+model.Plural(s.MinRequests, "steady request")+
			"), up to "+seconds(s.MaxHoldS))
	case s.HoldS > 0 && s.MaxHoldS > 0:
		out = append(out, "hold "+seconds(s.HoldS)+" and until max(20, 2 x users) steady requests, up to "+seconds(s.MaxHoldS))
	case s.HoldS > 0:
		out = append(out, "hold "+seconds(s.HoldS))
	case s.MaxHoldS > 0:
		out = append(out, "max hold "+seconds(s.MaxHoldS))
	}
	return out
}

// tokenSourceWords says where an endpoint's token counts come from.
func tokenSourceWords(src string) string {
	switch src {
	case model.SourceUsage:
		return "tokens: server usage"
	case model.SourceChunks:
		return "tokens: estimated from chunks (no usage reported)"
	case model.SourceMixed:
		return "tokens: mixed, partly estimated from chunks (usage reported by some requests)"
	}
	return "tokens: none received"
}

// mdColumns are the level table's columns; the TTFO ones only when TTFO is worth
// showing (ShowsTTFO).
var mdColumns = []string{"users", "requests", "steady", "errors", "per-user tok/s p50", "p10", "aggregate tok/s",
	"TTFT p50 ms", "TTFT p95 ms", "TTFO p50 ms", "TTFO p95 ms", "TPOT p50 ms", "E2E p50 ms", "stall p95 ms", "stall max ms"}

// mdTTFO is the index of "TTFO p50 ms" in mdColumns.
const mdTTFO = 9

// writeEndpoint writes one endpoint's heading, level tables, server's view and its
// judgement: the verdict, the failing levels, the notes and the diagnosis.
func writeEndpoint(b *strings.Builder, e *model.ReportEndpoint, j *model.EndpointJudgement, slo model.SLO) {
	head := []string{e.Name}
	if e.Model != "" {
		head = append(head, e.Model)
	}
	if e.API != "" {
		head = append(head, "API "+e.API)
	}
	if e.URL != "" {
		head = append(head, e.URL)
	}
	if e.Simulated {
		head = append(head, "SIMULATED")
	}
	head = append(head, tokenSourceWords(e.TokenSource))
	fmt.Fprintf(b, "### %s\n\n", strings.Join(head, " · "))
	cols := slices.Clone(mdColumns)
	if !j.TTFO {
		cols = slices.Delete(cols, mdTTFO, mdTTFO+2)
	}
	cols[0] = j.LevelColumn()
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat("---:|", len(cols)) + "\n")
	pm := false // some cell shows a "±": the legend says what it is
	for i := range e.Levels {
		row := levelRow(&e.Levels[i], j.Levels[i], slo, j.TTFO)
		pm = pm || strings.Contains(row, "±")
		b.WriteString(row)
	}
	b.WriteString("\n")
	if pm {
		b.WriteString(model.IntervalLegend + "\n\n")
	}
	writeTraffic(b, e, j)
	writeTurns(b, e, j)
	writeServer(b, e, j)
	writePrefixCache(b, e, j)
	writeJudgement(b, j)
}

// writeJudgement writes an endpoint's judgement as Markdown: the verdict sentence, the
// levels that fail the criteria, the notes, and the diagnosis.
func writeJudgement(b *strings.Builder, j *model.EndpointJudgement) {
	b.WriteString("**Verdict**: " + j.Verdict.Text + "\n")
	for _, f := range j.Failing() {
		b.WriteString("- " + f + "\n")
	}
	for _, n := range j.Notes {
		b.WriteString("- " + n.Text + "\n")
	}
	if len(j.Diagnosis) > 0 {
		b.WriteString("\nDiagnosis:\n")
		writeDiagnosis(b, j.Diagnosis, "", func(s string) string { return s })
	}
}

// writeDiagnosis writes the judgement's diagnosis as a Markdown list, each item
// indented by indent and escaped by esc: a statement's weight, words and when it held,
// its evidence under it.
func writeDiagnosis(b *strings.Builder, ds []model.Statement, indent string, esc func(string) string) {
	for _, d := range ds {
		b.WriteString(indent + "- " + esc(d.HeldLine()) + "\n")
		for _, e := range d.Evidence {
			b.WriteString(indent + "  - " + esc(e) + "\n")
		}
	}
}

// levelRow is one row of the level table. A figure that fails its target is never
// shown rounded onto it (model.Cell).
func levelRow(l *model.ReportLevel, lj model.LevelJudgement, slo model.SLO, ttfo bool) string {
	ok := l.Succeeded > 0
	user := ok && l.UserTPS != (model.RateJSON{})
	ttft := ok && l.TTFTMs != (model.LatencyJSON{})
	stall := ok && l.StallMs != (model.LatencyJSON{})
	agg := "-"
	if l.DurationS > 0 {
		agg = model.PlusMinus(l.AggregateTPS, l.CI95.AggregateTPS, 0, 1, false)
	}
	p50 := "-"
	if user {
		p50 = model.PlusMinus(l.UserTPS.P50, l.CI95.UserTPSP50, slo.UserTPSMin, 1, l.UserTPS.P50 < slo.UserTPSMin)
	}
	steady := strconv.Itoa(l.Steady)
	if m := lj.Mark(); m != "" && l.Requests > 0 {
		steady += " (" + m + ")"
	}
	ttftLim := msOf(slo.TTFTP95Max)
	cells := []string{levelCell(lj), strconv.Itoa(l.Requests), steady, errorsCell(l), p50, cell(user, l.UserTPS.P10), agg,
		cell(ttft, l.TTFTMs.P50), failCell(ttft, l.TTFTMs.P95, ttftLim, l.TTFTMs.P95 > ttftLim)}
	if ttfo {
		has := ok && l.TTFOMs != (model.LatencyJSON{})
		lim := msOf(slo.TTFOP95Max)
		cells = append(cells, cell(has, l.TTFOMs.P50), failCell(has, l.TTFOMs.P95, lim, lim > 0 && l.TTFOMs.P95 > lim))
	}
	cells = append(cells, cell(ok && l.TPOTMs != (model.LatencyJSON{}), l.TPOTMs.P50), cell(ok && l.E2EMs != (model.LatencyJSON{}), l.E2EMs.P50),
		cell(stall, l.StallMs.P95), cell(stall, l.StallMs.Max))
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// levelCell is a level's load as the tables name it, "22 (refined)" when the capacity's
// bisection added it.
func levelCell(lj model.LevelJudgement) string {
	if lj.Refined {
		return strconv.Itoa(lj.Level) + " (refined)"
	}
	return strconv.Itoa(lj.Level)
}

// errorsCell is "0", or the failures with the charged rate and the kinds, e.g.
// "3 (1.25%: http_500 1, client 2 not charged)"; failures of the cool-down, which the
// rate leaves out, are said: "1 (0%: truncated 1 (1 in its cool-down))".
func errorsCell(l *model.ReportLevel) string {
	n := l.Requests - l.Succeeded
	s := strconv.Itoa(n)
	if n <= 0 {
		return s
	}
	var kinds []string
	for _, k := range sortedKinds(l.Errors) {
		if c := l.Errors[k]; c > 0 {
			kind := k + " " + strconv.Itoa(c)
			if !model.ErrorKind(k).Charged() {
				kind += " not charged"
			}
			if cool := l.CoolErrors[k]; cool > 0 { // counted, not in the rate the level was judged on
				kind += " (" + strconv.Itoa(cool) + " in its cool-down)"
			}
			kinds = append(kinds, kind)
		}
	}
	if len(kinds) == 0 {
		return s + " (" + model.FormatPercent(l.ErrorRate) + ")"
	}
	return s + " (" + model.FormatPercent(l.ErrorRate) + ": " + strings.Join(kinds, ", ") + ")"
}

// sortedKinds returns the error kinds of m in name order.
func sortedKinds(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// fmtNum formats v rounded to at most dec decimals, without trailing zeros.
func fmtNum(v float64, dec int) string {
	p := math.Pow10(dec)
	return strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
}

// seconds is "15 s", "2.5 s".
func seconds(v float64) string { return fmtNum(v, 2) + " s" }
