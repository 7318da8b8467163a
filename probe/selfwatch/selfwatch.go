// Package selfwatch measures tpsmon's own load: the CPU the process uses (getrusage
// deltas over wall time, in cores) and how long its goroutines wait to run once they
// are runnable (runtime/metrics /sched/latencies:seconds). When tpsmon is short of CPU
// its stream readers fall behind: tokens are read late, and TTFT and per-user speed
// are then tpsmon's, not the server's.
package selfwatch

import (
	"math"
	"runtime"
	"runtime/metrics"
	"time"
)

// schedMetric is the runtime's histogram of the time goroutines spend runnable before
// they run.
const schedMetric = "/sched/latencies:seconds"

// Thresholds above which tpsmon may be the limit.
const (
	// BusyShare is the share of the usable cores above which the CPU is short.
	BusyShare = 0.8
	// SchedLate is the p99 scheduling delay above which readers run late.
	SchedLate = 20 * time.Millisecond
)

// Use is tpsmon's own load over one interval.
type Use struct {
	CPU   float64       // cores in use on average (1.9 = 190% of one core)
	Cores int           // cores tpsmon may use (GOMAXPROCS)
	Sched time.Duration // p99 of the time goroutines waited to run (0: none ran, or unknown)
	Known bool          // false before the second reading
}

// Busy reports whether tpsmon may be the limit: its CPU use is at least BusyShare of
// its cores, or its goroutines wait SchedLate or more to run.
func (u Use) Busy() bool {
	return u.Known && (u.Cores > 0 && u.CPU >= BusyShare*float64(u.Cores) || u.Sched >= SchedLate)
}

// Watcher takes readings of the process. Not safe for concurrent use.
type Watcher struct {
	cpu     func() (time.Duration, bool) // the process's CPU time so far (user + system)
	at      time.Time
	lastCPU time.Duration
	hist    *metrics.Float64Histogram
	sample  []metrics.Sample
	started bool
}

// New returns a watcher of this process.
func New() *Watcher {
	return &Watcher{cpu: processCPU, sample: []metrics.Sample{{Name: schedMetric}}}
}

// Read takes a reading at now and returns the use since the previous one.
func (w *Watcher) Read(now time.Time) Use {
	cpu, okCPU := w.cpu()
	metrics.Read(w.sample)
	var h *metrics.Float64Histogram
	if w.sample[0].Value.Kind() == metrics.KindFloat64Histogram {
		h = w.sample[0].Value.Float64Histogram()
	}
	u := Use{Cores: runtime.GOMAXPROCS(0)}
	if w.started && now.After(w.at) {
		if okCPU {
			u.CPU = float64(cpu-w.lastCPU) / float64(now.Sub(w.at))
		} else {
			u.Cores = 0 // unknown: the CPU rule is off
		}
		u.Sched = p99Delta(w.hist, h)
		u.Known = true
	}
	w.at, w.lastCPU, w.started = now, cpu, true
	if h != nil {
		w.hist = copyHist(h)
	}
	return u
}

// copyHist copies h (the runtime reuses its slices at the next Read).
func copyHist(h *metrics.Float64Histogram) *metrics.Float64Histogram {
	return &metrics.Float64Histogram{
		Counts:  append([]uint64(nil), h.Counts...),
		Buckets: append([]float64(nil), h.Buckets...),
	}
}

// p99Delta is the 99th percentile of what was added to the histogram between a and b
// (the upper bound of its bucket), 0 when nothing was.
func p99Delta(a, b *metrics.Float64Histogram) time.Duration {
	if a == nil || b == nil || len(a.Counts) != len(b.Counts) {
		return 0
	}
	var total uint64
	for i := range b.Counts {
		total += b.Counts[i] - a.Counts[i]
	}
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(0.99 * float64(total)))
	var seen uint64
	for i := range b.Counts {
		seen += b.Counts[i] - a.Counts[i]
		if seen >= want {
			hi := b.Buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = b.Buckets[i]
			}
			return time.Duration(hi * float64(time.Second))
		}
	}
	return 0
}
