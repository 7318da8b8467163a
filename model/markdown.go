package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Markdown renders a report for people (stdout and the snapshot summary): the run's
// settings and whether it was interrupted, then for each endpoint a table of its
// levels followed by its capacity and saturation lines. A value that was not measured
// (no successful request, no steady window, or a distribution nothing was recorded
// into, such as per-user tok/s of one-token answers) shows as "-".
func Markdown(r *Report) string {
	var b strings.Builder
	writeSettings(&b, r)
	slo := r.Settings.SLO.SLO()
	for i := range r.Endpoints {
		b.WriteString("\n")
		writeEndpoint(&b, &r.Endpoints[i], slo, r.Interrupted)
	}
	return b.String()
}

// writeSettings writes the heading, one line per group of settings (a group nobody set
// is left out) and, when the run was interrupted, a line that says so.
func writeSettings(b *strings.Builder, r *Report) {
	s := &r.Settings
	b.WriteString("## tpsmon results\n\n")
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
		b.WriteString("- shard: " + shardWords(sh) + " (this run sent its share of each level's users; merge the shards' results.json)\n")
	}
	line(b, "model", endpointValues(r, func(e *ReportEndpoint) string { return e.Model }, ""))
	line(b, "API", endpointValues(r, func(e *ReportEndpoint) string { return e.API }, s.API))
	var work []string
	if s.MaxTokens > 0 {
		work = append(work, "max_tokens "+strconv.Itoa(s.MaxTokens))
	}
	if s.PromptTokens > 0 {
		work = append(work, "prompt "+strconv.Itoa(s.PromptTokens)+" tokens")
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
		traceSettingsLines(b, s.Trace)
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
func endpointValues(r *Report, f func(*ReportEndpoint) string, def string) []string {
	var out []string
	for i := range r.Endpoints {
		if v := f(&r.Endpoints[i]); v != "" && !contains(out, v) {
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

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// rampWords describes the ramp and the hold, e.g. "1, 8, 16 users · hold 15 s (up to
// 60 s, until max(20, 2 x users) steady requests)".
func rampWords(s *ReportSettings) []string {
	var out []string
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
	case s.HoldS > 0 && s.MaxHoldS > 0:
		out = append(out, "hold "+seconds(s.HoldS)+" and until max(20, 2 x users) steady requests, up to "+seconds(s.MaxHoldS))
	case s.HoldS > 0:
		out = append(out, "hold "+seconds(s.HoldS))
	case s.MaxHoldS > 0:
		out = append(out, "max hold "+seconds(s.MaxHoldS))
	}
	return out
}

// seconds is "15 s", "2.5 s".
func seconds(v float64) string { return fmtNum(v, 2) + " s" }

// tokenSourceWords says where an endpoint's token counts come from.
func tokenSourceWords(src string) string {
	switch src {
	case SourceUsage:
		return "tokens: server usage"
	case SourceChunks:
		return "tokens: estimated from chunks (no usage reported)"
	case SourceMixed:
		return "tokens: mixed, partly estimated from chunks (usage reported by some requests)"
	}
	return "tokens: none received"
}

// mdHeader is the header of a level table.
const mdHeader = "| users | requests | steady | errors | per-user tok/s p50 | p10 | aggregate tok/s | TTFT p50 ms | TTFT p95 ms | TPOT p50 ms | E2E p50 ms | stall p95 ms | stall max ms |\n" +
	"|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"

// writeEndpoint writes one endpoint's heading, level table, capacity and saturation.
func writeEndpoint(b *strings.Builder, e *ReportEndpoint, slo SLO, interrupted bool) {
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
	hdr := mdHeader
	if e.rateMode() {
		hdr = strings.Replace(hdr, "| users |", "| rate req/s |", 1)
	}
	if e.traceMode() {
		hdr = strings.Replace(hdr, "| users |", "| window |", 1)
	}
	b.WriteString(hdr)
	short := false
	for i := range e.Levels {
		b.WriteString(levelRow(&e.Levels[i]))
		short = short || e.Levels[i].Short
	}
	b.WriteString("\n")
	writeTraffic(b, e)
	switch {
	case short && e.traceMode():
		b.WriteString("short: the window ended before it had 20 steady requests; its figures rest on fewer requests.\n")
	case short:
		b.WriteString("short: the level reached its maximum hold before it had max(20, 2 x users) steady requests; its figures rest on fewer requests.\n")
	}
	writeTurns(b, e)
	writeServer(b, e)
	writePrefixCache(b, e)
	if e.traceMode() {
		writeTraceVerdict(b, e, slo)
		return
	}
	writeCapacity(b, e, slo, interrupted)
	writeSaturation(b, e)
	writeRampEnd(b, e)
}

// levelRow is one row of the level table.
func levelRow(l *ReportLevel) string {
	ok := l.Succeeded > 0
	user := ok && l.UserTPS != (RateJSON{})
	ttft := ok && l.TTFTMs != (LatencyJSON{})
	stall := ok && l.StallMs != (LatencyJSON{})
	agg := "-"
	if l.DurationS > 0 {
		agg = strconv.FormatFloat(l.AggregateTPS, 'f', 1, 64)
	}
	steady := strconv.Itoa(l.Steady)
	if l.Short {
		steady += " (short)"
	}
	return fmt.Sprintf("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		l.Concurrency, l.Requests, steady, errorsCell(l),
		cell(user, l.UserTPS.P50), cell(user, l.UserTPS.P10), agg,
		cell(ttft, l.TTFTMs.P50), cell(ttft, l.TTFTMs.P95),
		cell(ok && l.TPOTMs != (LatencyJSON{}), l.TPOTMs.P50), cell(ok && l.E2EMs != (LatencyJSON{}), l.E2EMs.P50),
		cell(stall, l.StallMs.P95), cell(stall, l.StallMs.Max))
}

// errorsCell is "0", or the failures with the charged rate and the kinds, e.g.
// "3 (1.25%: http_500 1, client 2 not charged)".
func errorsCell(l *ReportLevel) string {
	n := l.Requests - l.Succeeded
	s := strconv.Itoa(n)
	if n <= 0 {
		return s
	}
	var kinds []string
	for _, k := range sortedKinds(l.Errors) {
		if c := l.Errors[k]; c > 0 {
			kind := k + " " + strconv.Itoa(c)
			if !ErrorKind(k).Charged() {
				kind += " not charged"
			}
			kinds = append(kinds, kind)
		}
	}
	if len(kinds) == 0 {
		return s + " (" + FormatPercent(l.ErrorRate) + ")"
	}
	return s + " (" + FormatPercent(l.ErrorRate) + ": " + strings.Join(kinds, ", ") + ")"
}

// writeCapacity writes the capacity line; when no level meets the criteria, one line
// per level naming the criteria it failed.
func writeCapacity(b *strings.Builder, e *ReportEndpoint, slo SLO, interrupted bool) {
	name := levelName(e)
	c := e.Capacity
	stopped := ""
	if interrupted {
		stopped = "the run was interrupted"
	}
	if !AnyMeasured(e.Levels) {
		fmt.Fprintf(b, "Capacity: not measured (no level got past its warm-up: no steady request delivered a token and none failed)\n")
		return
	}
	fmt.Fprintf(b, "Capacity: %s\n", capacityWords(c, &slo, stopped, name))
	if c.Users == 0 {
		for i := range e.Levels {
			l := &e.Levels[i]
			why := slo.failures(judgeReport(l))
			if len(why) == 0 {
				why = []string{"meets them once its figures are rounded (the unrounded figures do not)"}
			}
			fmt.Fprintf(b, "- %s: %s\n", name(l.Concurrency), strings.Join(why, "; "))
		}
	}
}

// writeSaturation writes the saturation line.
func writeSaturation(b *strings.Builder, e *ReportEndpoint) {
	name := levelName(e)
	switch {
	case e.SaturationUsers != nil:
		fmt.Fprintf(b, "Saturation: %s (doubling %s from there raises aggregate tok/s by less than 10%%)\n", name(*e.SaturationUsers), e.LoadWords())
	case doubled(e.Levels):
		fmt.Fprintf(b, "Saturation: not reached (no doubling of %s raised aggregate tok/s by less than 10%%)\n", e.LoadWords())
	default:
		fmt.Fprintf(b, "Saturation: not measured (no level was followed by one with at least twice its %s)\n", strings.TrimPrefix(e.LoadWords(), "the "))
	}
}

// doubled reports whether the saturation rule compared anything: some level with a
// steady window has a later one, also with a steady window, of at least twice its users.
func doubled(levels []ReportLevel) bool {
	for _, l := range levels {
		for _, m := range levels {
			if l.Concurrency > 0 && l.DurationS > 0 && m.DurationS > 0 && m.Concurrency >= 2*l.Concurrency {
				return true
			}
		}
	}
	return false
}

// users is "1 user" or "N users".
func users(n int) string {
	if n == 1 {
		return "1 user"
	}
	return strconv.Itoa(n) + " users"
}

func cell(ok bool, v float64) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
