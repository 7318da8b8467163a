package model

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MergeFile is one report to merge, with the name errors call it by (its file name).
type MergeFile struct {
	Name   string
	Report *Report
}

// Merge combines the reports of several runs of one workload: the shards of one run
// (settings.shard 0/N to N-1/N, every one of them, each once), or whole runs (no shard).
// It refuses, naming the files and the setting, reports whose schema, tool version,
// settings (ramp, hold, max hold, API, max_tokens, prompt size, ignore_eos, extra body
// keys, timeout, criteria, shard count) or endpoints (count, name, URL except the
// built-in simulator's, model, API, simulated) differ, a mix of shards and whole runs,
// a shard missing or given twice, and a level without histograms (a report written
// before they were added).
//
// Per endpoint (by position) and level (by users: a shard's levels are keyed by the
// whole level's users), the merged level has:
//   - requests, steady requests, successes, errors by kind, output tokens and steady
//     tokens: the sums; short: true when any report's level was short;
//   - every distribution read from the merged histograms (the percentiles of one
//     process that had recorded every request; see Hist.Merge);
//   - its steady windows: the union of the reports' windows (overlapping or touching
//     windows become one); duration: the union's length;
//   - aggregate tok/s and request rate: for the shards of one run, which send at the
//     same time, the sum of the shards' own rates (each shard's steady tokens and
//     requests over its own windows); for whole runs, the summed steady tokens and
//     requests over the union's length (runs whose windows do not overlap give the
//     time-weighted mean). Shards' windows do not coincide: a shard turns steady once
//     its own earlier requests ended, a shard whose share of the previous level was
//     smaller sooner; summing over the union would read low by the share of the
//     union that not every shard covered (10-15% in tests), the sum of rates does not;
//   - lengths and chunk gaps from their merged histograms (exact), or none when a
//     report's level carries no such histograms (an older tpsmon; MergeNotes says so):
//     figures over some of the requests would read as the whole level's;
//   - the server's view when every report names the same metrics URL (see mergeServer;
//     MergeNotes says when it is left out), never summed;
//   - the client wait of open-loop levels, and a trace run's windows (mergetrace.go).
//
// Capacity and saturation are recomputed from the merged levels with the reports'
// criteria; the run counts as interrupted when any of them was. The merged report has
// no shard, started_at the earliest start, finished_at the latest end, and merged_from
// the number of runs it combines (a merged report counts for the runs it merged).
func Merge(files []MergeFile) (*Report, error) {
	if len(files) == 0 {
		return nil, errors.New("nothing to merge")
	}
	if err := checkMergeable(files); err != nil {
		return nil, err
	}
	if err := checkDistinct(files); err != nil {
		return nil, err
	}
	first := files[0].Report
	out := &Report{
		Schema:      Schema,
		ToolVersion: first.ToolVersion,
		Settings:    first.Settings,
		Endpoints:   make([]ReportEndpoint, len(first.Endpoints)),
	}
	out.Settings.Shard = nil
	out.Settings.Ramp = slices.Clone(first.Settings.Ramp)
	out.Settings.ExtraBodyKeys = slices.Clone(first.Settings.ExtraBodyKeys)
	var starts, ends []string
	for _, f := range files {
		out.Interrupted = out.Interrupted || f.Report.Interrupted
		out.MergedFrom += max(f.Report.MergedFrom, 1)
		starts, ends = append(starts, f.Report.StartedAt), append(ends, f.Report.FinishedAt)
	}
	out.StartedAt, out.FinishedAt = extremeTime(starts, -1), extremeTime(ends, 1)
	shards := first.Settings.Shard != nil // checkMergeable: all shards, or no shard
	for i := range out.Endpoints {
		e, err := mergeEndpoint(files, i, &out.Settings, out.Interrupted, shards)
		if err != nil {
			return nil, err
		}
		out.Endpoints[i] = e
	}
	mergeTraceSettings(&out.Settings, files)
	return out, nil
}

// mergeLevel accumulates one level of one endpoint over the reports.
type mergeLevel struct {
	l      *level
	tokens float64
	spans  []span
	// The sums of each report's own rates: steady tokens and steady requests over the
	// length of its windows (the shards' aggregate and request rate).
	tokenRate, requestRate float64
	noTraffic              bool           // a report's level carried no lengths or chunk gaps histograms
	servers                []*ServerLevel // the reports' server's views of the level
	stopped                bool           // a stop rule ended the level in some report
	ci                     mergeCI        // what the intervals need beyond the histograms
	open                   mergeOpen      // the arrivals' client-side wait, a trace's window
}

// mergeEndpoint merges endpoint i of every report.
func mergeEndpoint(files []MergeFile, i int, settings *ReportSettings, interrupted, shards bool) (ReportEndpoint, error) {
	e := files[0].Report.Endpoints[i]
	e.Levels = nil
	acc := map[int]*mergeLevel{}
	var sources []string
	for _, f := range files {
		fe := &f.Report.Endpoints[i]
		if fe.TokenSource != "" && !slices.Contains(sources, fe.TokenSource) {
			sources = append(sources, fe.TokenSource)
		}
		for j := range fe.Levels {
			rl := &fe.Levels[j]
			m := acc[rl.Concurrency]
			if m == nil {
				b := newBook(false)
				m = &mergeLevel{l: b.level(rl.Concurrency)}
				acc[rl.Concurrency] = m
			}
			if err := m.add(rl); err != nil {
				return ReportEndpoint{}, fmt.Errorf("%s: endpoint %q, level %s: %w", f.Name, fe.Name, Users(rl.Concurrency), err)
			}
		}
	}
	e.TokenSource = ""
	switch len(sources) {
	case 0:
	case 1:
		e.TokenSource = sources[0]
	default:
		e.TokenSource = SourceMixed
	}
	url, server := sameServer(files, i)
	e.ServerMetrics = url
	e.Diagnosis, e.Diagnosed = mergeDiagnosis(files, i)
	for _, c := range slices.Sorted(maps.Keys(acc)) {
		m := acc[c]
		spans, d := union(m.spans)
		ls := m.l.summary(d, m.tokens, false)
		if shards && d > 0 {
			ls.AggregateTPS, ls.RequestRate = m.tokenRate, m.requestRate
		}
		m.finishCI(&ls, settings.SLO.SLO())
		rl := ls.Report()
		rl.Stopped = m.stopped
		rl.Hist = m.l.hists()
		rl.Windows = reportWindows(spans, WallClock{})
		if m.noTraffic {
			forgetTraffic(&rl)
		}
		if server {
			rl.Server = mergeServer(m.servers, shards)
		}
		m.finishOpen(&rl, settings)
		e.Levels = append(e.Levels, rl)
	}
	e.SetClaims(settings, interrupted)
	return e, nil
}

// add adds one report's level: its counts, histograms, steady tokens and windows.
func (m *mergeLevel) add(rl *ReportLevel) error {
	if rl.Hist == nil {
		return errors.New("no histograms (the file was written by a tpsmon that did not record them): " +
			"merge needs results.json files that carry them")
	}
	hs := rl.Hist
	for _, p := range []struct {
		name string
		into *Hist
		j    HistJSON
	}{{"ttft", m.l.ttft, hs.TTFT}, {"ttfo", m.l.ttfo, hs.TTFO}, {"tpot", m.l.tpot, hs.TPOT},
		{"e2e", m.l.e2e, hs.E2E}, {"stall", m.l.stall, hs.Stall}, {"user_tps", m.l.user, hs.UserTPS}} {
		h, err := HistFromJSON(p.j)
		if err == nil {
			err = p.into.Merge(h)
		}
		if err != nil {
			return fmt.Errorf("hist.%s: %w", p.name, err)
		}
	}
	if err := m.addTraffic(hs); errors.Is(err, errNoTraffic) {
		m.noTraffic = true // see forgetTraffic
	} else if err != nil {
		return err
	}
	if rl.Server != nil {
		m.servers = append(m.servers, rl.Server)
	}
	if err := m.addOpen(rl); err != nil {
		return err
	}
	m.stopped = m.stopped || rl.Stopped
	m.addCI(rl)
	spans, err := parseWindows(rl.Windows)
	if err != nil {
		return err
	}
	l := m.l
	l.requests += rl.Requests
	l.success += rl.Succeeded
	l.steady += rl.Steady
	l.cooldown, l.coolWarm = l.cooldown+rl.Cooldown, l.coolWarm+rl.CoolWarmup
	for k, n := range rl.CoolErrors {
		l.coolErrors[ErrorKind(k)] += n
	}
	l.short = l.short || rl.Short
	l.bursts += rl.UserTPSBursts
	for k, n := range rl.Errors {
		l.errors[ErrorKind(k)] += n
	}
	l.outputTokens += rl.OutputTokens
	// Goodput counts add up; the time in flight is the shard's mean times its window.
	l.traffic.Goodput.judged += rl.Goodput.Judged
	l.traffic.Goodput.met += rl.Goodput.Met
	l.busy += time.Duration(rl.InFlightMean * rl.DurationS * float64(time.Second))
	m.tokens += rl.SteadyTokens
	m.spans = append(m.spans, spans...)
	if _, d := union(spans); d > 0 {
		m.tokenRate += rl.SteadyTokens / d.Seconds()
		m.requestRate += float64(rl.Steady) / d.Seconds()
	}
	return nil
}

// extremeTime is the earliest (sign -1) or latest (sign 1) of RFC 3339 times, written
// as given; the first one when any does not parse.
func extremeTime(ts []string, sign int) string {
	best, bestT := "", time.Time{}
	for i, s := range ts {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return ts[0]
		}
		if i == 0 || t.Compare(bestT) == sign {
			best, bestT = s, t
		}
	}
	return best
}

// mergeSettings are the settings that must be the same in every merged report.
var mergeSettings = []struct {
	name string
	get  func(*Report) string
}{
	{"schema", func(r *Report) string { return r.Schema }},
	{"tool_version", func(r *Report) string { return r.ToolVersion }},
	{"settings.ramp", func(r *Report) string { return fmt.Sprint(r.Settings.Ramp) }},
	{"settings.hold_s", func(r *Report) string { return fmtFloat(r.Settings.HoldS) }},
	{"settings.max_hold_s", func(r *Report) string { return fmtFloat(r.Settings.MaxHoldS) }},
	{"settings.api", func(r *Report) string { return r.Settings.API }},
	{"settings.max_tokens", func(r *Report) string { return strconv.Itoa(r.Settings.MaxTokens) }},
	{"settings.prompt_tokens", func(r *Report) string { return strconv.Itoa(r.Settings.PromptTokens) }},
	{"settings.ignore_eos", func(r *Report) string { return strconv.FormatBool(r.Settings.IgnoreEOS) }},
	{"settings.extra_body_keys", func(r *Report) string { return fmt.Sprint(r.Settings.ExtraBodyKeys) }},
	{"settings.timeout_s", func(r *Report) string { return fmtFloat(r.Settings.TimeoutS) }},
	{"settings.slo", func(r *Report) string { return r.Settings.SLO.SLO().String() }},
	{"endpoints", func(r *Report) string { return strconv.Itoa(len(r.Endpoints)) + " endpoints" }},
}

// endpointSettings are the fields that must be the same in each endpoint of every
// report (the URL of the built-in simulator excepted).
var endpointSettings = []struct {
	name string
	get  func(*ReportEndpoint) string
}{
	{"name", func(e *ReportEndpoint) string { return e.Name }},
	{"url", func(e *ReportEndpoint) string {
		if e.Simulated {
			return "" // the built-in simulator listens on a new port each run
		}
		return e.URL
	}},
	{"model", func(e *ReportEndpoint) string { return e.Model }},
	{"api", func(e *ReportEndpoint) string { return e.API }},
	{"simulated", func(e *ReportEndpoint) string { return strconv.FormatBool(e.Simulated) }},
}

// checkMergeable refuses reports that differ in a setting or an endpoint, a level
// without histograms, and a bad set of shards.
func checkMergeable(files []MergeFile) error {
	a := files[0]
	for _, b := range files[1:] {
		for _, s := range append(mergeSettings, mergeTrafficSettings...) {
			if va, vb := s.get(a.Report), s.get(b.Report); va != vb {
				return fmt.Errorf("%s differs: %s has %s, %s has %s; merge only runs of the same workload and the same tpsmon",
					s.name, b.Name, quote(vb), a.Name, quote(va))
			}
		}
		for i := range a.Report.Endpoints {
			for _, s := range endpointSettings {
				if va, vb := s.get(&a.Report.Endpoints[i]), s.get(&b.Report.Endpoints[i]); va != vb {
					return fmt.Errorf("endpoint %d's %s differs: %s has %s, %s has %s; merge only runs against the same endpoints",
						i+1, s.name, b.Name, quote(vb), a.Name, quote(va))
				}
			}
		}
	}
	for _, f := range files {
		if f.Report.Schema != Schema {
			return fmt.Errorf("%s: schema %s is not %s", f.Name, quote(f.Report.Schema), Schema)
		}
		for _, e := range f.Report.Endpoints {
			for _, l := range e.Levels {
				if l.Hist == nil {
					return fmt.Errorf("%s: endpoint %q, level %s, has no histograms (written by a tpsmon that did not record them): "+
						"merge needs results.json files that carry them", f.Name, e.Name, Users(l.Concurrency))
				}
			}
		}
	}
	return checkShards(files)
}

// checkShards accepts whole runs only, or every shard of one run once.
func checkShards(files []MergeFile) error {
	var whole, sharded *MergeFile
	for i := range files {
		if files[i].Report.Settings.Shard == nil {
			whole = &files[i]
		} else if sharded == nil {
			sharded = &files[i]
		}
	}
	switch {
	case sharded == nil:
		return nil
	case whole != nil:
		return fmt.Errorf("%s is shard %s but %s sent the whole load: merge the shards of one run, or whole runs, not both",
			sharded.Name, shardWords(sharded.Report.Settings.Shard), whole.Name)
	}
	n := sharded.Report.Settings.Shard.Count
	seen := map[int]string{}
	for _, f := range files {
		s := f.Report.Settings.Shard
		if s.Count != n {
			return fmt.Errorf("settings.shard.count differs: %s is shard %s, %s is shard %s; merge the shards of one run",
				f.Name, shardWords(s), sharded.Name, shardWords(sharded.Report.Settings.Shard))
		}
		if s.Index < 0 || s.Index >= s.Count {
			return fmt.Errorf("%s: shard %s does not exist (the index runs from 0 to %d)", f.Name, shardWords(s), s.Count-1)
		}
		if st := f.Report.Settings.StartAt; st != sharded.Report.Settings.StartAt {
			return fmt.Errorf("settings.start_at differs: %s started at %s, %s at %s; the shards of one run share one start time",
				f.Name, quote(st), sharded.Name, quote(sharded.Report.Settings.StartAt))
		}
		if other, dup := seen[s.Index]; dup {
			return fmt.Errorf("%s and %s are both shard %s: give each shard once", other, f.Name, shardWords(s))
		}
		seen[s.Index] = f.Name
	}
	var missing []string
	for i := range n {
		if _, ok := seen[i]; !ok {
			missing = append(missing, shardWords(&ReportShard{Index: i, Count: n}))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard %s missing: without it the levels would lack its share of the users", strings.Join(missing, ", "))
	}
	return nil
}

// shardWords is "1/4".
func shardWords(s *ReportShard) string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// quote is s in double quotes, or "nothing" when empty.
func quote(s string) string {
	if s == "" {
		return "nothing"
	}
	return strconv.Quote(s)
}

// checkDistinct refuses the same run given twice (the same file, or a copy of it): its
// counts would be doubled. Two different runs never hold equal reports: their
// histograms and steady windows differ.
func checkDistinct(files []MergeFile) error {
	for i := range files {
		for j := i + 1; j < len(files); j++ {
			if files[i].Report.Settings.Shard != nil {
				continue // checkMergeable names a shard given twice
			}
			if reflect.DeepEqual(files[i].Report, files[j].Report) {
				return fmt.Errorf("%s and %s hold the same run: give each run (or shard) once", files[i].Name, files[j].Name)
			}
		}
	}
	return nil
}
