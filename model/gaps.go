package model

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Chunk gaps are the times between two token-bearing events of one request. They are
// never called inter-token latency: one chunk may carry several tokens. A level pools
// the gaps of its requests (p50/p90/p99 across requests); each request carries its own
// gaps as a GapSketch, filled by the stream reader at each chunk and merged once, when
// the request ends, into the level's ChunkGaps.

// Gap sketch layout: log-linear buckets over whole microseconds. Values below gapSub
// have a bucket each (exact); above, each power of two is split into gapSub buckets,
// so a bucket spans at most 1/gapSub of its lower bound.
const (
	gapSubBits = 4
	gapSub     = 1 << gapSubBits // buckets per power of two
	gapOctaves = 28              // 16 us .. 2^32 us (about 71 minutes)
	gapBuckets = gapSub + gapOctaves*gapSub
)

// GapMax is the longest gap a GapSketch tells apart; longer ones count as GapMax.
var GapMax = time.Duration(bucketLow(gapBuckets-1)+bucketWidth(gapBuckets-1)-1) * time.Microsecond

// GapSketch is one request's chunk gaps as a fixed histogram: about 0.9 KB, no
// allocation after it is made, Add a few instructions. A reader makes one per request
// (Sample.Gaps) and calls Add for each gap; nothing reads it until the request ended.
type GapSketch struct {
	counts [gapBuckets]uint16 // a bucket saturates at 65,535 gaps
	n      uint32
}

// Add records one gap. Negative gaps count as 0, gaps above GapMax as GapMax.
func (g *GapSketch) Add(d time.Duration) {
	i := gapBucket(d)
	if g.counts[i] < math.MaxUint16 {
		g.counts[i]++
		g.n++
	}
}

// Count is the number of gaps recorded (saturated buckets stop counting).
func (g *GapSketch) Count() int {
	if g == nil {
		return 0
	}
	return int(g.n)
}

// Median is the request's median chunk gap (its bucket's middle: within about 3%);
// 0 when it has no gap.
func (g *GapSketch) Median() time.Duration {
	if g == nil || g.n == 0 {
		return 0
	}
	k := max((g.n+1)/2, 1)
	var seen uint32
	for i, n := range g.counts {
		seen += uint32(n)
		if seen >= k {
			return time.Duration(float64(bucketLow(i))+float64(bucketWidth(i)-1)/2) * time.Microsecond
		}
	}
	return 0
}

// gapBucket is the bucket of d: exact below gapSub us, then gapSub buckets per octave.
func gapBucket(d time.Duration) int {
	us := uint64(max(d, 0) / time.Microsecond)
	if us < gapSub {
		return int(us)
	}
	e := bits.Len64(us) - gapSubBits - 1 // us >> e is in [gapSub, 2*gapSub)
	i := gapSub + e*gapSub + int(us>>e) - gapSub
	return min(i, gapBuckets-1)
}

// bucketLow is the lowest value (us) of bucket i.
func bucketLow(i int) uint64 {
	if i < gapSub {
		return uint64(i)
	}
	e := (i - gapSub) / gapSub
	m := gapSub + (i-gapSub)%gapSub
	return uint64(m) << e
}

// bucketWidth is how many microseconds bucket i spans.
func bucketWidth(i int) uint64 {
	if i < gapSub {
		return 1
	}
	return 1 << ((i - gapSub) / gapSub)
}

// ChunkGaps pools the chunk gaps of a level's requests. Add merges one request's
// sketch (a few hundred additions, once per request); Stats reads the percentiles.
type ChunkGaps struct {
	counts [gapBuckets]uint64
	n      uint64
}

// Add merges a request's gaps; a nil sketch (the reader kept none) adds nothing.
func (c *ChunkGaps) Add(g *GapSketch) {
	if g == nil || g.n == 0 {
		return
	}
	for i, k := range g.counts {
		c.counts[i] += uint64(k)
	}
	c.n += uint64(g.n)
}

// GapStats is a level's chunk gaps across its requests, in milliseconds. Each
// percentile is the nearest-rank gap's bucket middle: exact below 16 us, else within
// 1/32 (about 3%) of the true gap. Count is the number of gaps, 0 when none.
type GapStats struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
}

// Stats returns the pooled p50/p90/p99.
func (c *ChunkGaps) Stats() GapStats {
	if c.n == 0 {
		return GapStats{}
	}
	return GapStats{Count: int(c.n), P50: c.quantile(50), P90: c.quantile(90), P99: c.quantile(99)}
}

// quantile is the nearest-rank value (k = round(p/100 * n), at least 1) as its
// bucket's middle, in milliseconds.
func (c *ChunkGaps) quantile(p float64) float64 {
	k := max(uint64(math.Round(p/100*float64(c.n))), 1)
	var seen uint64
	for i, n := range c.counts {
		seen += n
		if seen >= k {
			mid := float64(bucketLow(i)) + float64(bucketWidth(i)-1)/2
			return mid / 1000
		}
	}
	return 0
}

// JSON encodes the pooled gaps for results.json.
func (c *ChunkGaps) JSON() GapsJSON {
	j := GapsJSON{Unit: UnitMicros, SubBuckets: gapSub, Count: c.n, Buckets: [][2]uint64{}}
	for i, n := range c.counts {
		if n > 0 {
			j.Buckets = append(j.Buckets, [2]uint64{uint64(i), n})
		}
	}
	return j
}

// MergeJSON adds the gaps of a GapsJSON to c. It refuses another layout, a bucket out
// of range or out of order, and a count other than the buckets' total; c is unchanged
// then.
func (c *ChunkGaps) MergeJSON(j GapsJSON) error {
	if j.Unit != UnitMicros || j.SubBuckets != gapSub {
		return fmt.Errorf("chunk gaps in %q with %d buckets per power of two, not %q with %d", j.Unit, j.SubBuckets, UnitMicros, gapSub)
	}
	var total uint64
	for k, b := range j.Buckets {
		if b[0] >= gapBuckets || (k > 0 && b[0] <= j.Buckets[k-1][0]) {
			return fmt.Errorf("chunk gap bucket %d is out of range or out of order", b[0])
		}
		total += b[1]
	}
	if total != j.Count {
		return fmt.Errorf("the chunk gap buckets hold %d gaps but say count %d", total, j.Count)
	}
	for _, b := range j.Buckets {
		c.counts[b[0]] += b[1]
	}
	c.n += j.Count
	return nil
}
