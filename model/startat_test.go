package model

import (
	"strings"
	"testing"
)

// TestMergeShardsShareStartAt: shards of one run started at one moment; shards with
// another start time are refused, and the merged report keeps the start time.
func TestMergeShardsShareStartAt(t *testing.T) {
	shards, _, _ := feedShards(5, 2)
	a := shardReport(t, shards[0], &ReportShard{Index: 0, Count: 2})
	b := shardReport(t, shards[1], &ReportShard{Index: 1, Count: 2})
	a.Settings.StartAt, b.Settings.StartAt = "2026-11-23T16:00:00.000Z", "2026-11-23T16:05:00.000Z"
	_, err := Merge([]MergeFile{{"a.json", a}, {"b.json", b}})
	want := `settings.start_at differs: b.json started at "2026-11-23T16:05:00.000Z", a.json at "2026-11-23T16:00:00.000Z"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want one containing %q", err, want)
	}
	b.Settings.StartAt = a.Settings.StartAt
	m, err := Merge([]MergeFile{{"a.json", a}, {"b.json", b}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Settings.StartAt != a.Settings.StartAt {
		t.Errorf("merged start_at %q, want %q", m.Settings.StartAt, a.Settings.StartAt)
	}
}
