package model

import (
	"testing"
	"time"
)

// BenchmarkAddSample feeds steady successful samples (with an occasional failure)
// spread over four levels, as the bench loop does at hundreds of requests/s.
func BenchmarkAddSample(b *testing.B) {
	tr := NewTracker(TrackerOptions{})
	samples := make([]Sample, 1024)
	for i := range samples {
		c := 1 << (i % 4)
		send := time.Duration(i) * 10 * time.Millisecond
		s := ok(c, send, time.Duration(80+i%400)*time.Millisecond, time.Duration(2000+i%1500)*time.Millisecond, 100+i%200)
		if i%97 == 0 {
			s = failed(c, send+time.Second, HTTPError(500), "server error")
		}
		samples[i] = *s
	}
	for i := range 50 { // a ring with some buckets, as in a real run
		tr.AddTick(&Tick{Start: at(time.Duration(i) * time.Second), End: at(time.Duration(i+1) * time.Second)})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tr.AddSample(&samples[i%len(samples)])
	}
}

// BenchmarkAddTick appends one bucket with 100 decoding streams and 10 first tokens.
func BenchmarkAddTick(b *testing.B) {
	tr := NewTracker(TrackerOptions{})
	users := make([]int32, 100)
	for i := range users {
		users[i] = int32(20 + i%17)
	}
	firsts := make([]time.Duration, 10)
	for i := range firsts {
		firsts[i] = time.Duration(100+37*i) * time.Millisecond
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Duration(i) * time.Second
		tr.AddTick(&Tick{Start: at(start), End: at(start + time.Second), Chunks: 2500,
			UserChunks: users, FirstTokens: firsts, Active: 100, Target: 100})
	}
}

// BenchmarkLevels is the read side (the TUI calls it at its render rate).
func BenchmarkLevels(b *testing.B) {
	tr := NewTracker(TrackerOptions{})
	for i := range 20000 {
		c := 1 << (i % 6)
		tr.AddSample(ok(c, time.Duration(i)*time.Millisecond, time.Duration(50+i%900)*time.Millisecond, time.Duration(1000+i%3000)*time.Millisecond, 50+i%300))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = tr.Levels()
	}
}

// BenchmarkLevelCall is what the level rule reads at each step (10 times a second in
// bench): the current level, its calls at 99%, and the estimate of the requests it
// still needs for a criterion near its target.
func BenchmarkLevelCall(b *testing.B) {
	tr := NewTracker(TrackerOptions{SLO: SLO{UserTPSMin: 60, TTFTP95Max: 2 * time.Second, ErrorRateMax: 0.01}})
	for i := range 400 {
		tr.AddSample(ok(16, time.Duration(i)*time.Millisecond, time.Duration(50+i%900)*time.Millisecond, time.Duration(1000+i%3000)*time.Millisecond, 50+i%300))
	}
	slo := tr.SLO()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		l, _ := tr.Level(16)
		c := slo.Call(&l)
		_, _ = slo.MoreRequests(&l, Terms(c.Waiting(true)), c.Curve)
	}
}
