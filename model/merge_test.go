package model

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shardSample is a random sample of level c sent at send: mostly successes (usage
// reported, two tokens per chunk), some failures of several kinds, some warm-up.
func shardSample(r *rand.Rand, c int, send time.Duration) *Sample {
	if r.IntN(20) == 0 {
		kinds := []ErrorKind{HTTPError(500), ErrTimeout, ErrClient, ErrTruncated}
		return failed(c, send+time.Duration(1+r.IntN(3000))*msec, kinds[r.IntN(len(kinds))], "boom")
	}
	// TTFT grows with the users, and with a long tail.
	ttft := time.Duration(float64(c)*40*(1+r.ExpFloat64())) * msec
	decode := time.Duration(500+r.IntN(3000)) * msec
	s := ok(c, send, ttft, decode, 20+r.IntN(200))
	s.Tokens *= 2
	s.MaxGap = time.Duration(10+r.IntN(300)) * msec
	// Lengths and chunk gaps from what was drawn (drawing more would change the run).
	s.PromptTokens = 50 + 7*(s.Tokens%40)
	s.Gaps = &GapSketch{}
	for k := 1; k < s.Chunks; k++ {
		s.Gaps.Add(decode/time.Duration(s.Chunks) + time.Duration(k%7)*msec)
	}
	if r.IntN(10) == 0 {
		s.Warmup = true
	}
	s.Turn = 1 + s.Chunks%3 // conversations: first and later turns, merged from their histograms
	return s
}

// shardLevel is one level's schedule in the test: the whole level's users, when it
// began and ended, when shard 0 turned steady (shard k does k x 300 ms later, and its
// clock is k x 250 ms behind: the windows overlap but do not coincide), and the chunks
// shard 0 delivered in its steady window (shard k: 100 x k more).
type shardLevel struct {
	c                  int
	start, end, steady time.Duration
	chunks             int64
	samplesPerSec      int
}

var shardLevels = []shardLevel{
	{c: 2, start: 0, end: 30 * sec, steady: 1 * sec, chunks: 2900, samplesPerSec: 1},
	{c: 4, start: 30 * sec, end: 60 * sec, steady: 31 * sec, chunks: 5600, samplesPerSec: 2},
	{c: 8, start: 60 * sec, end: 90 * sec, steady: 62 * sec, chunks: 5800, samplesPerSec: 4},
	{c: 16, start: 90 * sec, end: 120 * sec, steady: 93 * sec, chunks: 6000, samplesPerSec: 8},
}

const (
	shardLag    = 250 * msec // shard k's clock is k x shardLag behind
	shardSteady = 300 * msec // shard k turns steady k x shardSteady after shard 0
)

// feedShards feeds n shard Trackers, and one Tracker that sees every shard's samples
// and whose segment of each level spans the shards' steady windows with all their
// chunks: the one process that held the whole load.
func feedShards(seed uint64, n int) (shards []*Tracker, whole *Tracker, nsamples int) {
	r := rand.New(rand.NewPCG(seed, 7))
	whole = NewTracker(TrackerOptions{})
	for range n {
		shards = append(shards, NewTracker(TrackerOptions{}))
	}
	for i, lv := range shardLevels {
		var chunks int64
		for k := range n {
			lag := time.Duration(k) * shardLag
			steady := lv.steady + time.Duration(k)*shardSteady
			ch := lv.chunks + 100*int64(k)
			shards[k].UpdateSegment(seg(i+1, lv.c, lv.start+lag, steady+lag, lv.end+lag, ch, false))
			chunks += ch
		}
		whole.UpdateSegment(seg(i+1, lv.c, lv.start, lv.steady, lv.end+time.Duration(n-1)*shardLag, chunks, false))
		for ms := lv.start; ms < lv.end; ms += sec / time.Duration(lv.samplesPerSec) {
			s := shardSample(r, lv.c, ms+time.Duration(r.IntN(1000))*msec)
			shards[r.IntN(n)].AddSample(s)
			whole.AddSample(s)
			nsamples++
		}
	}
	return shards, whole, nsamples
}

// shardReportLevel is shard k's level of c users among files.
func shardReportLevel(files []MergeFile, k, c int) ReportLevel {
	for _, f := range files {
		if f.Report.Settings.Shard.Index == k {
			for _, l := range f.Report.Endpoints[0].Levels {
				if l.Concurrency == c {
					return l
				}
			}
		}
	}
	return ReportLevel{}
}

// shardReport is the results.json of one shard (or of the whole run when shard is nil),
// written to JSON and read back as merge reads it.
func shardReport(t *testing.T, tr *Tracker, shard *ReportShard) *Report {
	t.Helper()
	r := &Report{Schema: Schema, ToolVersion: "v0.9.0", StartedAt: "1970-01-01T00:00:00Z", FinishedAt: "1970-01-01T00:02:01Z",
		Settings: ReportSettings{Ramp: []int{2, 4, 8, 16}, HoldS: 25, MaxHoldS: 30, API: "chat", MaxTokens: 256,
			SLO: DefaultSLO.Report(), Shard: shard},
		Endpoints: []ReportEndpoint{tr.ReportEndpoint(EndpointInfo{Name: "sim", URL: "http://127.0.0.1:8080/v1", Model: "m", API: "chat"})}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestMergeShardsEqualsOneTracker: n shards' reports, merged, are the report of one
// Tracker fed with every shard's samples over the union of their windows: every count
// exact, every percentile, the histograms, windows, capacity and saturation; the
// aggregate and request rate are the sums of the shards' own rates.
func TestMergeShardsEqualsOneTracker(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(strconv.Itoa(n)+" shards", func(t *testing.T) { testMergeShards(t, n) })
	}
}

func testMergeShards(t *testing.T, n int) {
	shards, whole, sent := feedShards(11, n)
	var files []MergeFile
	for k := n - 1; k >= 0; k-- { // any order
		files = append(files, MergeFile{Name: "shard-" + strconv.Itoa(k) + ".json", Report: shardReport(t, shards[k], &ReportShard{Index: k, Count: n})})
	}
	got, err := Merge(files)
	if err != nil {
		t.Fatal(err)
	}
	want := shardReport(t, whole, nil)
	if got.MergedFrom != n || got.Settings.Shard != nil || !reflect.DeepEqual(got.Settings, want.Settings) {
		t.Errorf("merged_from %d, settings %+v", got.MergedFrom, got.Settings)
	}
	ge, we := got.Endpoints[0], want.Endpoints[0]
	if len(ge.Levels) != len(shardLevels) {
		t.Fatalf("%d levels, want %d", len(ge.Levels), len(shardLevels))
	}
	requests := 0
	for i := range ge.Levels {
		g, w := ge.Levels[i], we.Levels[i]
		// The mean in flight is merged from rounded means: close, not exact. Lengths
		// and chunk gaps are merged from their histograms: exact (compared below).
		if math.Abs(g.InFlightMean-w.InFlightMean) > 0.05*w.InFlightMean+0.02 {
			t.Errorf("level %d: in flight %v merged, want %v", g.Concurrency, g.InFlightMean, w.InFlightMean)
		}
		g.InFlightMean, w.InFlightMean = 0, 0
		if w.Lengths.Input.Count == 0 || w.Lengths.Output.Count == 0 || w.ChunkGaps.Count == 0 || w.Turns == nil || w.Turns.Later.Count == 0 {
			t.Errorf("level %d: lengths %+v chunk gaps %+v: feed samples with both", w.Concurrency, w.Lengths, w.ChunkGaps)
		}
		// The aggregate and request rate of shards: the sum of the shards' own rates
		// (each over its own window, from its steady moment to its end); the rest is
		// what the one Tracker over the union of the windows reads.
		lv := shardLevels[i]
		var agg, rate float64
		for k := range n {
			win := (lv.end - lv.steady - time.Duration(k)*shardSteady).Seconds()
			agg += 2 * float64(lv.chunks+100*int64(k)) / win
			rate += float64(shardReportLevel(files, k, lv.c).Steady) / win
		}
		sameAggregateCI(t, g, &w)
		w.AggregateTPS, w.RequestRate = round(agg, 2), round(rate, 3)
		ge.Levels[i], we.Levels[i] = g, w
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			t.Errorf("level %d merged\n%s\nwant\n%s", g.Concurrency, gj, wj)
		}
		requests += g.Requests
		sum := 0
		for _, f := range files {
			sum += f.Report.Endpoints[0].Levels[i].Requests
		}
		if g.Requests != sum || g.Hist.TTFT.Count == 0 {
			t.Errorf("level %d: %d requests, shards have %d", g.Concurrency, g.Requests, sum)
		}
		// The union of the windows, from shard 0's steady moment to the last shard's end.
		d := lv.end + time.Duration(n-1)*shardLag - lv.steady
		if g.DurationS != round(d.Seconds(), 2) || len(g.Windows) != 1 {
			t.Errorf("level %d: duration %v windows %v, want %v s", g.Concurrency, g.DurationS, g.Windows, d.Seconds())
		}
		// The test means something: the union would read lower.
		tokens := 2 * float64(int64(n)*lv.chunks+100*int64(n*(n-1)/2))
		if union := tokens / d.Seconds(); n > 1 && agg < union*1.01 {
			t.Errorf("level %d: the sum of the shards' rates %.1f is not above the union's %.1f", g.Concurrency, agg, union)
		}
	}
	if requests != sent {
		t.Errorf("%d requests merged, %d sent", requests, sent)
	}
	if !reflect.DeepEqual(ge, we) {
		t.Errorf("endpoint: capacity %+v saturation %v source %q, want %+v %v %q",
			ge.Capacity, ge.SaturationUsers, ge.TokenSource, we.Capacity, we.SaturationUsers, we.TokenSource)
	}
	// The test means something: the merged run finds a capacity and a saturation.
	if ge.Capacity.Users == 0 || ge.SaturationUsers == nil {
		t.Errorf("capacity %+v, saturation %v: pick levels that find both", ge.Capacity, ge.SaturationUsers)
	}
}

// TestMergeWholeRuns: two whole runs, one after the other, merge like one run that held
// each level twice: the aggregate is the time-weighted mean, both windows are kept, the
// run is interrupted when one was, and the times span both.
func TestMergeWholeRuns(t *testing.T) {
	one := func(start time.Duration, chunks int64) *Tracker {
		tr := NewTracker(TrackerOptions{})
		tr.UpdateSegment(seg(1, 4, start, start+sec, start+11*sec, chunks, false))
		tr.AddSample(ok(4, start+2*sec, 100*msec, sec, 41))
		return tr
	}
	a := shardReport(t, one(0, 1000), nil)
	b := shardReport(t, one(100*sec, 3000), nil)
	b.StartedAt, b.FinishedAt, b.Interrupted = "1970-01-01T00:01:40Z", "1970-01-01T00:03:00Z", true
	got, err := Merge([]MergeFile{{"a.json", a}, {"b.json", b}})
	if err != nil {
		t.Fatal(err)
	}
	l := got.Endpoints[0].Levels[0]
	if l.AggregateTPS != 200 || l.DurationS != 20 || len(l.Windows) != 2 || l.Requests != 2 || l.UserTPS.P50 != 40 {
		t.Errorf("level %+v", l)
	}
	if !got.Interrupted || got.StartedAt != a.StartedAt || got.FinishedAt != b.FinishedAt || got.MergedFrom != 2 {
		t.Errorf("interrupted %v, %s to %s, merged_from %d", got.Interrupted, got.StartedAt, got.FinishedAt, got.MergedFrom)
	}
	// Two steady requests are too few to judge the level (20 are needed): its
	// capacity is not measured, merged or not.
	if c := got.Endpoints[0].Capacity; c != (ReportCap{}) {
		t.Errorf("capacity %+v, want none claimed from 2 steady requests", c)
	}
	// A merged report merges again, counting the runs it holds.
	again, err := Merge([]MergeFile{{"merged.json", got}, {"a.json", a}})
	if err != nil || again.MergedFrom != 3 || again.Endpoints[0].Levels[0].Requests != 3 {
		t.Errorf("merge of a merged report: %v, merged_from %d", err, again.MergedFrom)
	}
}

func TestMergeRefuses(t *testing.T) {
	shards, _, _ := feedShards(3, 2)
	sh := func(i, n int) *ReportShard { return &ReportShard{Index: i, Count: n} }
	tests := []struct {
		name string
		edit func(a, b *Report)
		want string
	}{
		{"max_tokens", func(a, b *Report) { b.Settings.MaxTokens = 512 },
			`settings.max_tokens differs: b.json has "512", a.json has "256"`},
		{"ramp", func(a, b *Report) { b.Settings.Ramp = []int{2, 4} }, "settings.ramp differs"},
		{"criteria", func(a, b *Report) { b.Settings.SLO.UserTPSMin = 10 }, "settings.slo differs"},
		{"tool version", func(a, b *Report) { b.ToolVersion = "v1.0.0" }, "tool_version differs"},
		{"schema", func(a, b *Report) { a.Schema, b.Schema = "tpsmon.bench/v0", "tpsmon.bench/v0" }, `a.json: schema "tpsmon.bench/v0" is not tpsmon.bench/v1`},
		{"endpoint url", func(a, b *Report) { b.Endpoints[0].URL = "http://127.0.0.1:9/v1" }, "endpoint 1's url differs"},
		{"no histograms", func(a, b *Report) { b.Endpoints[0].Levels[2].Hist = nil },
			`b.json: endpoint "sim", level 8 users, has no histograms`},
		{"bad histogram", func(a, b *Report) { b.Endpoints[0].Levels[0].Hist.E2E.HDR = "eA==" },
			`b.json: endpoint "sim", level 2 users: hist.e2e: the us histogram does not decode`},
		{"bad chunk gaps", func(a, b *Report) { b.Endpoints[0].Levels[0].Hist.ChunkGaps.Count++ },
			`b.json: endpoint "sim", level 2 users: hist.chunk_gap: the chunk gap buckets hold`},
		{"bad length", func(a, b *Report) { b.Endpoints[0].Levels[1].Hist.OutputTokens.Unit = "us" },
			`b.json: endpoint "sim", level 4 users: hist.output_tokens: unit "us", want "tokens"`},
		{"bad window", func(a, b *Report) { b.Endpoints[0].Levels[0].Windows[0].End = "yesterday" }, `window end "yesterday"`},
		{"shard count", func(a, b *Report) { b.Settings.Shard = sh(1, 3) }, "settings.shard.count differs"},
		{"same shard twice", func(a, b *Report) { b.Settings.Shard = sh(0, 2) }, "a.json and b.json are both shard 0/2"},
		{"shard missing", func(a, b *Report) { a.Settings.Shard, b.Settings.Shard = sh(0, 3), sh(2, 3) }, "shard 1/3 missing"},
		{"shard out of range", func(a, b *Report) { b.Settings.Shard = sh(2, 2) }, "shard 2/2 does not exist"},
		{"shard and whole run", func(a, b *Report) { b.Settings.Shard = nil }, "a.json is shard 0/2 but b.json sent the whole load"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := shardReport(t, shards[0], sh(0, 2))
			b := shardReport(t, shards[1], sh(1, 2))
			tc.edit(a, b)
			_, err := Merge([]MergeFile{{"a.json", a}, {"b.json", b}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestMergeReadsOlderReports: a results.json written before histograms were added
// still reads (its keys are a subset), and merge refuses it saying why.
func TestMergeReadsOlderReports(t *testing.T) {
	old := `{"schema":"tpsmon.bench/v1","tool_version":"v0.8.0","settings":{"ramp":[1]},"endpoints":[{"name":"sim",
	"levels":[{"concurrency":1,"requests":3,"succeeded":3,"ttft_ms":{"p50":100}}]}]}`
	var r Report
	if err := json.Unmarshal([]byte(old), &r); err != nil {
		t.Fatal(err)
	}
	if r.Endpoints[0].Levels[0].TTFTMs.P50 != 100 {
		t.Fatalf("older report read as %+v", r)
	}
	_, err := Merge([]MergeFile{{"old.json", &r}, {"old2.json", &r}})
	if err == nil || !strings.Contains(err.Error(), "old.json: endpoint \"sim\", level 1 user, has no histograms") {
		t.Errorf("err = %v", err)
	}
}

// TestMergeSimulatorURL: the built-in simulator listens on a new port each run: its URL
// is not compared; a real endpoint's is.
func TestMergeSimulatorURL(t *testing.T) {
	shards, _, _ := feedShards(5, 2)
	a := shardReport(t, shards[0], &ReportShard{Index: 0, Count: 2})
	b := shardReport(t, shards[1], &ReportShard{Index: 1, Count: 2})
	b.Endpoints[0].URL = "http://127.0.0.1:9/v1"
	if _, err := Merge([]MergeFile{{"a.json", a}, {"b.json", b}}); err == nil {
		t.Error("endpoints of different URLs merged")
	}
	a.Endpoints[0].Simulated, b.Endpoints[0].Simulated = true, true
	got, err := Merge([]MergeFile{{"a.json", a}, {"b.json", b}})
	if err != nil || got.Endpoints[0].URL != a.Endpoints[0].URL {
		t.Errorf("simulated endpoints: %v, url %q", err, got.Endpoints[0].URL)
	}
}

// TestMergeRefusesTheSameRunTwice: a file given twice (or a copy of it) would double
// every count; merge says so instead.
func TestMergeRefusesTheSameRunTwice(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(seg(1, 4, 0, sec, 11*sec, 1000, false))
	tr.AddSample(ok(4, 2*sec, 100*msec, sec, 41))
	r := shardReport(t, tr, nil)
	copyOf := *r
	_, err := Merge([]MergeFile{{"r.json", r}, {"copy.json", &copyOf}})
	if err == nil || !strings.Contains(err.Error(), "r.json and copy.json hold the same run") {
		t.Fatalf("err %v", err)
	}
}

// sameAggregateCI checks that a merged level's aggregate sums are one tracker's (up to
// the order of the float additions) and its aggregate interval has the same relative
// width around its own aggregate (the shards' sum of rates), then makes want's the same.
func sameAggregateCI(t *testing.T, g ReportLevel, w *ReportLevel) {
	t.Helper()
	ga, wa := g.Hist.Aggregate, w.Hist.Aggregate
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
	if ga == nil || wa == nil || ga.N != wa.N || ga.N == 0 || !close(ga.X, wa.X) || !close(ga.Y, wa.Y) ||
		!close(ga.XX, wa.XX) || !close(ga.YY, wa.YY) || !close(ga.XY, wa.XY) {
		t.Errorf("level %d: aggregate sums %+v merged, want %+v", g.Concurrency, ga, wa)
		return
	}
	gi, wi := g.CI95.AggregateTPS, w.CI95.AggregateTPS
	if gi == nil || wi == nil {
		t.Errorf("level %d: aggregate interval %v merged, want %v", g.Concurrency, gi, wi)
		return
	}
	rel := func(iv *Interval, v float64) float64 { return (iv.Hi - iv.Lo) / 2 / v }
	if math.Abs(rel(gi, g.AggregateTPS)-rel(wi, w.AggregateTPS)) > 1e-3 {
		t.Errorf("level %d: aggregate interval %v around %v merged, want the width of %v around %v", g.Concurrency, *gi, g.AggregateTPS, *wi, w.AggregateTPS)
	}
	w.Hist.Aggregate, w.CI95.AggregateTPS = ga, gi
}
