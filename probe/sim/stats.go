package sim

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Stats is the simulator's own view of its traffic since start or the last reset, served
// as JSON at GET /sim/stats. It is the reference a load run's client-side numbers are
// checked against.
type Stats struct {
	Profile    string           `json:"profile"`
	Model      string           `json:"model"`
	Since      time.Time        `json:"since"`
	Requests   int64            `json:"requests"`    // POSTs to the completion endpoints
	Completed  int64            `json:"completed"`   // streams ended with finish_reason and [DONE]
	TokensSent int64            `json:"tokens_sent"` // output tokens written to clients
	Queue      int              `json:"queue"`       // requests waiting for a slot now
	Active     int              `json:"active"`      // sequences holding a slot now
	Errors     map[string]int64 `json:"errors"`      // http_400, http_401, http_403, http_404, http_429, http_500, http_503, http_other, stream_error, dropped, canceled
	// TTFT is measured from the request's arrival to the flush of its first
	// token-bearing event (an HDR histogram of microseconds, 3 significant digits).
	TTFT Latency `json:"ttft_ms"`
}

// Latency summarises a latency distribution in milliseconds.
type Latency struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// errKind indexes the error counters.
type errKind int

const (
	errHTTP400 errKind = iota
	errHTTP404
	errHTTP429
	errHTTP500
	errDropped
	errCanceled
	errHTTP401
	errHTTP403
	errHTTP503
	errHTTPOther // another status of Config.Refuse
	errStream    // an in-band error event (Config.StreamErrorRate)
	numErrKinds
)

var errKindNames = [numErrKinds]string{"http_400", "http_404", "http_429", "http_500", "dropped", "canceled",
	"http_401", "http_403", "http_503", "http_other", "stream_error"}

// counters are updated once per request or per handler wake, never under a shared lock;
// only the TTFT histogram takes the mutex, once per request.
type counters struct {
	requests, completed, tokens atomic.Int64
	errs                        [numErrKinds]atomic.Int64

	mu    sync.Mutex
	since time.Time
	ttft  *hdrhistogram.Histogram // microseconds
}

func newCounters(now time.Time) *counters {
	return &counters{since: now, ttft: hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)}
}

func (c *counters) recordTTFT(d time.Duration) {
	c.mu.Lock()
	_ = c.ttft.RecordValue(max(d.Microseconds(), 1)) // values above an hour are dropped
	c.mu.Unlock()
}

func (c *counters) reset(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.since = now
	c.ttft.Reset()
	c.requests.Store(0)
	c.completed.Store(0)
	c.tokens.Store(0)
	for i := range c.errs {
		c.errs[i].Store(0)
	}
}

func (c *counters) snapshot() Stats {
	st := Stats{
		Requests:   c.requests.Load(),
		Completed:  c.completed.Load(),
		TokensSent: c.tokens.Load(),
		Errors:     make(map[string]int64, numErrKinds),
	}
	for i, name := range errKindNames {
		st.Errors[name] = c.errs[i].Load()
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	c.mu.Lock()
	defer c.mu.Unlock()
	st.Since = c.since
	st.TTFT = Latency{
		Count: c.ttft.TotalCount(),
		Mean:  c.ttft.Mean() / 1000,
		P50:   ms(c.ttft.ValueAtPercentile(50)),
		P95:   ms(c.ttft.ValueAtPercentile(95)),
		P99:   ms(c.ttft.ValueAtPercentile(99)),
		Max:   ms(c.ttft.Max()),
	}
	return st
}
