package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// shardResults writes the results.json of shard i of n to dir: a Tracker fed with a
// level of 4 users (ttft ms per request, 2 s of decode) over a steady window that
// starts lag after 10 s. It returns the file name.
func shardResults(t *testing.T, dir string, i, n int, ttft []int, lag time.Duration, edit func(*model.Report)) string {
	t.Helper()
	base := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	tr := model.NewTracker(model.TrackerOptions{})
	tr.UpdateSegment(model.Segment{ID: 1, Concurrency: 4, Start: base, SteadyAt: base.Add(10*time.Second + lag),
		End: base.Add(40*time.Second + lag), SteadyChunks: 3000})
	for k, ms := range ttft {
		send := base.Add(10*time.Second + lag + time.Duration(k)*time.Second)
		first := send.Add(time.Duration(ms) * time.Millisecond)
		last := first.Add(2 * time.Second)
		tr.AddSample(&model.Sample{Concurrency: 4, Send: send, Headers: first, First: first, FirstAnswer: first,
			Last: last, End: last, Tokens: 101, Chunks: 101, Usage: true, Finish: "stop"})
	}
	r := &model.Report{Schema: model.Schema, ToolVersion: "v0.9.0", StartedAt: base.Format(time.RFC3339), FinishedAt: base.Add(time.Minute).Format(time.RFC3339),
		Settings: model.ReportSettings{Ramp: []int{4}, HoldS: 30, API: "chat", MaxTokens: 100, SLO: model.DefaultSLO.Report(),
			Shard: &model.ReportShard{Index: i, Count: n}},
		Endpoints: []model.ReportEndpoint{tr.ReportEndpoint(model.EndpointInfo{Name: "sim", URL: "http://127.0.0.1:8080/v1", Model: "m", API: "chat"})}}
	if edit != nil {
		edit(r)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "shard-"+string(rune('0'+i))+".json")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	a := shardResults(t, dir, 0, 2, []int{100, 120, 140, 160, 180, 200, 220, 240, 260, 280}, 0, nil)
	b := shardResults(t, dir, 1, 2, []int{300, 320, 340, 360, 380, 400, 420, 440, 460, 480}, 500*time.Millisecond, nil)
	out, csv := filepath.Join(dir, "merged.json"), filepath.Join(dir, "merged.csv")
	r := cli(t, nil, nil, nil, "merge", a, b, "-o", out, "--csv", csv)
	checkClean(t, r)
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "- merged: 2 results") || !strings.Contains(r.stdout, "| 4 | 20 | 20 | 0 |") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "wrote "+out) || !strings.Contains(r.stderr, "wrote "+csv) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got model.Report
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	l := got.Endpoints[0].Levels[0]
	// 20 TTFTs from 100 to 480 ms: the nearest-rank p50 is the 10th, 280 ms (read at
	// most 0.1% high); the shards' windows [10 s, 40 s] and [10.5 s, 40.5 s] make a
	// 30.5 s union; the shards' aggregate is the sum of their own rates, 3000 tokens
	// over 30 s each.
	if l.Requests != 20 || l.TTFTMs.P50 < 280 || l.TTFTMs.P50 > 280*1.001 || l.TTFTMs.Max != 480 || l.DurationS != 30.5 ||
		l.AggregateTPS != 200 || got.MergedFrom != 2 || got.Settings.Shard != nil {
		t.Errorf("merged level %+v (merged_from %d)", l, got.MergedFrom)
	}
	if c, err := os.ReadFile(csv); err != nil || !strings.HasPrefix(string(c), "endpoint,") {
		t.Errorf("csv %q, %v", c, err)
	}
}

func TestMergeCommandRefuses(t *testing.T) {
	dir := t.TempDir()
	ttft := []int{100, 200}
	a := shardResults(t, dir, 0, 2, ttft, 0, nil)
	b := shardResults(t, dir, 1, 2, ttft, 0, nil)
	other := shardResults(t, dir, 2, 3, ttft, 0, func(r *model.Report) { r.Settings.Shard.Index = 1; r.Settings.MaxTokens = 512 })
	noHist := shardResults(t, dir, 3, 4, ttft, 0, func(r *model.Report) { r.Settings.Shard.Index = 1; r.Endpoints[0].Levels[0].Hist = nil })
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"one file", []string{a}, "at least two results.json files"},
		{"setting differs", []string{a, other}, `cannot merge: settings.max_tokens differs: ` + other + ` has "512", ` + a + ` has "100"`},
		{"no histograms", []string{a, noHist}, noHist + `: endpoint "sim", level 4 users, has no histograms`},
		{"missing file", []string{a, filepath.Join(dir, "nope.json")}, "nope.json: cannot read it: no such file or directory"},
		{"not json", []string{a, junk}, "junk.json: not a tpsmon results.json"},
		{"output over an input", []string{a, b, "-o", b}, "--out " + b + " is one of the files to merge"},
		{"same shard twice", []string{a, a}, "are both shard 0/2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := cli(t, nil, nil, nil, append([]string{"merge"}, tc.args...)...)
			checkClean(t, r)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
	// Nothing was written over the inputs.
	if data, err := os.ReadFile(b); err != nil || !json.Valid(data) || !reflect.DeepEqual(data[:1], []byte("{")) {
		t.Errorf("%s changed: %v", b, err)
	}
}

// TestMergeTwoBenchRuns: what bench writes can be merged: two runs on the built-in
// simulator, one after the other, merge into one report whose requests add up.
func TestMergeTwoBenchRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var runs []*model.Report
	var names []string
	for _, name := range []string{"a.json", "b.json"} {
		out := filepath.Join(dir, name)
		r := cli(t, nil, secretEnv, nil, "bench", "--ramp", "1,2", "--hold", "1s", "--max-tokens", "16", "--out", out)
		if r.code != exitOK {
			t.Fatalf("bench: exit %d; stderr:\n%s", r.code, r.stderr)
		}
		rep, err := readResults(out)
		if err != nil {
			t.Fatal(err)
		}
		runs, names = append(runs, rep), append(names, out)
	}
	merged := filepath.Join(dir, "merged.json")
	r := cli(t, nil, nil, nil, "merge", names[0], names[1], "-o", merged)
	checkClean(t, r)
	if r.code != exitOK {
		t.Fatalf("merge: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	got, err := readResults(merged)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]int{}
	for _, rep := range runs {
		for _, l := range rep.Endpoints[0].Levels {
			want[l.Concurrency] += l.Requests
		}
	}
	for _, l := range got.Endpoints[0].Levels {
		if l.Requests != want[l.Concurrency] || l.Requests == 0 || l.Hist == nil || len(l.Windows) != 2 {
			t.Errorf("level %d: %d requests (runs: %d), %d windows", l.Concurrency, l.Requests, want[l.Concurrency], len(l.Windows))
		}
	}
	if len(got.Endpoints[0].Levels) != len(want) || got.MergedFrom != 2 {
		t.Errorf("%d levels, merged_from %d", len(got.Endpoints[0].Levels), got.MergedFrom)
	}
}

// TestMergeCommandOlderFile: a file without the lengths and chunk gaps histograms
// (an older tpsmon) merges; merge says which file and that the merged levels show
// neither, and the Markdown shows them as not measured.
func TestMergeCommandOlderFile(t *testing.T) {
	dir := t.TempDir()
	ttft := []int{100, 200, 300}
	a := shardResults(t, dir, 0, 2, ttft, 0, nil)
	old := shardResults(t, dir, 1, 2, ttft, 0, func(r *model.Report) {
		h := r.Endpoints[0].Levels[0].Hist
		h.InputTokens, h.OutputTokens, h.ChunkGaps = nil, nil, nil
	})
	r := cli(t, nil, nil, nil, "merge", a, old)
	checkClean(t, r)
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, old+`: endpoint "sim" carries no lengths or chunk gaps histograms (written by an older tpsmon): the merged levels show no lengths nor chunk gaps`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "| - | - | - | - | - | - | - | - | - |\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	// Both files whole: nothing to say.
	b := shardResults(t, dir, 1, 2, ttft, 0, nil)
	if r := cli(t, nil, nil, nil, "merge", a, b); r.code != exitOK || strings.Contains(r.stderr, "histograms") {
		t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
}
