package selfwatch

import (
	"runtime/metrics"
	"testing"
	"time"
)

func TestReadCPUInCores(t *testing.T) {
	cpu := time.Duration(0)
	w := New()
	w.cpu = func() (time.Duration, bool) { return cpu, true }
	t0 := time.Unix(1000, 0)
	if u := w.Read(t0); u.Known || u.Busy() {
		t.Fatalf("first reading %+v: want unknown, not busy", u)
	}
	cpu = 1900 * time.Millisecond // 1.9 s of CPU in 1 s: 190%
	u := w.Read(t0.Add(time.Second))
	if !u.Known || u.CPU < 1.89 || u.CPU > 1.91 {
		t.Fatalf("reading %+v: want 1.9 cores", u)
	}
	u.Cores = 2
	if !u.Busy() {
		t.Errorf("%+v: 1.9 of 2 cores is busy", u)
	}
	u.Cores = 4
	if u.Busy() {
		t.Errorf("%+v: 1.9 of 4 cores is not busy", u)
	}
}

func TestReadUnknownCPUTurnsTheRuleOff(t *testing.T) {
	w := New()
	w.cpu = func() (time.Duration, bool) { return 0, false }
	t0 := time.Unix(1000, 0)
	w.Read(t0)
	if u := w.Read(t0.Add(time.Second)); u.Cores != 0 || u.Busy() {
		t.Errorf("%+v: want no cores (rule off), not busy", u)
	}
}

func TestBusyOnLateScheduling(t *testing.T) {
	u := Use{Known: true, Cores: 8, CPU: 0.1, Sched: 25 * time.Millisecond}
	if !u.Busy() {
		t.Errorf("%+v: readers waiting 25 ms to run is busy", u)
	}
	u.Sched = time.Millisecond
	if u.Busy() {
		t.Errorf("%+v: not busy", u)
	}
}

func TestP99Delta(t *testing.T) {
	b := []float64{0, 0.001, 0.01, 0.1}
	a := &metrics.Float64Histogram{Counts: []uint64{10, 0, 0}, Buckets: b}
	c := &metrics.Float64Histogram{Counts: []uint64{10 + 98, 1, 1}, Buckets: b}
	if got := p99Delta(a, c); got != 10*time.Millisecond {
		t.Errorf("p99 %v, want 10ms (the bucket of the 99th of 100)", got)
	}
	if got := p99Delta(a, a); got != 0 {
		t.Errorf("p99 of nothing %v, want 0", got)
	}
}
