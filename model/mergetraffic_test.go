package model

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// trafficShards are two shards' Trackers of one level of 4 users and the Tracker that
// saw all their samples: prompt and output lengths across the exact and the 0.1%
// ranges, chunk gaps from 3 us (exact buckets) to 2 s; the shards' samples differ.
func trafficShards() (a, b, whole *Tracker) {
	a, b, whole = NewTracker(TrackerOptions{}), NewTracker(TrackerOptions{}), NewTracker(TrackerOptions{})
	for k, tr := range []*Tracker{a, b, whole} {
		tr.UpdateSegment(seg(1, 4, 0, sec, 31*sec, 3000+int64(k), false))
	}
	for k := range 60 {
		s := ok(4, time.Duration(1000+400*k)*msec, 100*msec, sec, 10+k*k)
		s.PromptTokens = 100 + 61*k // 100 to 3,699: above 2,048 within 0.1%
		s.Gaps = &GapSketch{}
		for g := range 5 + k%4 {
			s.Gaps.Add(time.Duration(3+k*k*g*g*40) * time.Microsecond)
		}
		if k < 20 { // shard a holds the short ones: its figures differ from the whole's
			a.AddSample(s)
		} else {
			b.AddSample(s)
		}
		whole.AddSample(s)
	}
	return a, b, whole
}

// TestMergeLengthsAndChunkGaps: two shards' lengths and chunk gaps, merged, are those
// of the one Tracker that held every sample: figures and histograms equal.
func TestMergeLengthsAndChunkGaps(t *testing.T) {
	ta, tb, tw := trafficShards()
	a := shardReport(t, ta, &ReportShard{Index: 0, Count: 2})
	b := shardReport(t, tb, &ReportShard{Index: 1, Count: 2})
	got, err := Merge([]MergeFile{{"a.json", a}, {"b.json", b}})
	if err != nil {
		t.Fatal(err)
	}
	g, w := got.Endpoints[0].Levels[0], shardReport(t, tw, nil).Endpoints[0].Levels[0]
	if g.Lengths != w.Lengths || g.ChunkGaps != w.ChunkGaps {
		t.Errorf("merged lengths %+v chunk gaps %+v\nwant %+v %+v", g.Lengths, g.ChunkGaps, w.Lengths, w.ChunkGaps)
	}
	if !reflect.DeepEqual(g.Hist.InputTokens, w.Hist.InputTokens) || !reflect.DeepEqual(g.Hist.OutputTokens, w.Hist.OutputTokens) ||
		!reflect.DeepEqual(g.Hist.ChunkGaps, w.Hist.ChunkGaps) {
		gj, _ := json.Marshal(g.Hist)
		wj, _ := json.Marshal(w.Hist)
		t.Errorf("merged histograms\n%s\nwant\n%s", gj, wj)
	}
	// The test means something: every sample and gap counted (5 to 8 a sample), and neither shard alone reads
	// the whole's figures.
	if w.Lengths.Input.Count != 60 || w.Lengths.Output.Count != 60 || w.ChunkGaps.Count != 390 {
		t.Errorf("whole: lengths %+v chunk gaps %+v", w.Lengths, w.ChunkGaps)
	}
	for _, r := range []*Report{a, b} {
		s := r.Endpoints[0].Levels[0]
		if s.Lengths.Output.P50 == w.Lengths.Output.P50 || s.ChunkGaps.P90 == w.ChunkGaps.P90 || s.Lengths.Input.P90 == w.Lengths.Input.P90 {
			t.Errorf("shard %d reads the whole's figures: %+v %+v", r.Settings.Shard.Index, s.Lengths, s.ChunkGaps)
		}
	}
	if notes := MergeNotes([]MergeFile{{"a.json", a}, {"b.json", b}}); len(notes) != 0 {
		t.Errorf("notes %q", notes)
	}
}

// TestMergeOlderFileWithoutTrafficHists: a file without the lengths and chunk gaps
// histograms (an older tpsmon) still merges; the merged level then shows no lengths
// nor chunk gaps (not the other file's alone as the whole level's), and the notes name
// the file.
func TestMergeOlderFileWithoutTrafficHists(t *testing.T) {
	ta, tb, _ := trafficShards()
	a := shardReport(t, ta, &ReportShard{Index: 0, Count: 2})
	b := shardReport(t, tb, &ReportShard{Index: 1, Count: 2})
	// b as an older tpsmon wrote it: no input_tokens, output_tokens nor chunk_gap keys.
	bj, _ := json.Marshal(b)
	old := strings.NewReplacer(`"input_tokens":{"unit"`, `"x_in":{"unit"`, `"output_tokens":{"unit"`, `"x_out":{"unit"`,
		`"chunk_gap":{`, `"x_gap":{`).Replace(string(bj))
	var ob Report
	if err := json.Unmarshal([]byte(old), &ob); err != nil {
		t.Fatal(err)
	}
	if h := ob.Endpoints[0].Levels[0].Hist; h == nil || h.InputTokens != nil || h.OutputTokens != nil || h.ChunkGaps != nil {
		t.Fatalf("the older file still has the histograms: %+v", h)
	}
	files := []MergeFile{{"a.json", a}, {"old.json", &ob}}
	got, err := Merge(files)
	if err != nil {
		t.Fatal(err)
	}
	l := got.Endpoints[0].Levels[0]
	if l.Lengths != (LengthStats{}) || l.ChunkGaps != (GapStats{}) || l.Hist.InputTokens != nil || l.Hist.OutputTokens != nil || l.Hist.ChunkGaps != nil {
		t.Errorf("merged level says lengths %+v chunk gaps %+v hist %v %v %v", l.Lengths, l.ChunkGaps,
			l.Hist.InputTokens, l.Hist.OutputTokens, l.Hist.ChunkGaps)
	}
	if l.Requests != 60 || l.Hist.TTFT.Count != 60 {
		t.Errorf("the rest is not merged: %d requests, %d TTFTs", l.Requests, l.Hist.TTFT.Count)
	}
	notes := MergeNotes(files)
	if len(notes) != 1 || !strings.Contains(notes[0], `old.json: endpoint "sim" carries no lengths or chunk gaps histograms`) {
		t.Errorf("notes %q", notes)
	}
	// The Markdown's traffic row of these figures ("| 4 | 91.67% (55/60) | 1.83 | - | ...",
	// no lengths nor chunk gaps): probe/output/report's TestSummaryTrafficRow.
	if g := l.Goodput; g.Met != 55 || g.Judged != 60 || g.Share != 0.9167 || g.Rate != 1.833 {
		t.Errorf("merged goodput %+v, want 55 of 60 (91.67%%), 1.833 requests/s", g)
	}
}
