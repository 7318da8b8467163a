package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// BenchmarkView measures View() at 200x60 with an hour of history on two endpoints:
// "cached" is what every message costs (events arrive often), "tick" a render tick
// that only moves the clock, "new_bucket" the once-a-second redraw of every chart.
func BenchmarkView(b *testing.B) {
	setup := func(b *testing.B) *root {
		m, _, _ := newTestRoot(b, 2)
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
		m.View()
		return m
	}
	b.Run("cached", func(b *testing.B) {
		m := setup(b)
		b.ReportAllocs()
		for b.Loop() {
			_ = m.View()
		}
	})
	b.Run("tick", func(b *testing.B) {
		m := setup(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			m.Update(tickMsg(t0.Add(time.Duration(i) * tickEvery)))
			_ = m.View()
		}
	})
	b.Run("new_bucket", func(b *testing.B) {
		m := setup(b)
		b.ReportAllocs()
		for b.Loop() {
			m.bucketDirty = true
			m.refresh(false)
			_ = m.View()
		}
	})
}

// realTracker is a model.Tracker fed an hour of a ramp 1..64 (7 levels, then the
// last level held): what the screen reads after a long run.
func realTracker(b *testing.B) *model.Tracker {
	tr := model.NewTracker(model.TrackerOptions{})
	t := t0
	id := 0
	level := func(c int, secs int, open bool) {
		id++
		seg := model.Segment{ID: id, Concurrency: c, Start: t, SteadyAt: t.Add(time.Second), Open: true}
		for s := range secs {
			start := t.Add(time.Duration(s) * time.Second)
			tk := &model.Tick{Start: start, End: start.Add(time.Second), Target: c, Active: c,
				Chunks: int64(40 * c), Started: 1, Finished: 1}
			for range c {
				tk.UserChunks = append(tk.UserChunks, int32(60-c/2))
			}
			tk.FirstTokens = []time.Duration{time.Duration(80+10*c) * time.Millisecond}
			tr.AddTick(tk)
			send := start.Add(-4 * time.Second)
			tr.AddSample(&model.Sample{Segment: id, Concurrency: c, Send: send,
				First: send.Add(100 * time.Millisecond), FirstAnswer: send.Add(100 * time.Millisecond),
				Last: start, End: start, Tokens: 200, Chunks: 200, Usage: true, Finish: "stop", Status: 200})
			seg.End, seg.SteadyChunks = start.Add(time.Second), int64(40*c*(s+1))
			tr.UpdateSegment(seg)
		}
		t = t.Add(time.Duration(secs) * time.Second)
		if !open {
			seg.Open = false
			tr.UpdateSegment(seg)
		}
	}
	for _, c := range []int{1, 2, 4, 8, 16, 32} {
		level(c, 10, false)
	}
	level(64, 3540, true)
	return tr
}

// BenchmarkViewRealTrackers is BenchmarkView/new_bucket over real trackers (after merge).
func BenchmarkViewRealTrackers(b *testing.B) {
	m, _ := newTestRootOver(b, []engine.Book{realTracker(b), realTracker(b)})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	b.ReportAllocs()
	for b.Loop() {
		m.bucketDirty = true
		m.refresh(false)
		_ = m.View()
	}
}
