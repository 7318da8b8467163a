package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
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
