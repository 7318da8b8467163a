// Package promexport serves tpsmon's own metrics for Prometheus (--metrics-addr): the
// histograms of TTFT, TPOT and per-user tokens/s, the counters of requests by outcome
// and error kind and of output tokens, and the gauges of active streams and target
// users, each labelled with the endpoint and the model. Names start with tpsmon_. The
// metrics live in their own registry (never Prometheus' global one).
package promexport

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// Metric names, for dashboards and tests.
const (
	TTFT         = "tpsmon_ttft_seconds"
	TPOT         = "tpsmon_tpot_seconds"
	UserTPS      = "tpsmon_user_tokens_per_second"
	Requests     = "tpsmon_requests_total"
	Errors       = "tpsmon_request_errors_total"
	OutputTokens = "tpsmon_output_tokens_total"
	Active       = "tpsmon_active_streams"
	TargetUsers  = "tpsmon_target_users"
)

// Outcomes of tpsmon_requests_total.
const (
	OutcomeSuccess  = "success"
	OutcomeError    = "error"    // a failure; its kind is in tpsmon_request_errors_total
	OutcomeCanceled = "canceled" // cut by tpsmon itself (Ctrl-C, quit, the end of a drain)
)

// Classic buckets, beside the native ones (Prometheus servers without native
// histograms read these).
var (
	ttftBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 60}
	tpotBuckets = []float64{0.002, 0.005, 0.01, 0.015, 0.02, 0.025, 0.033, 0.05, 0.075, 0.1, 0.2, 0.5, 1}
	userBuckets = []float64{1, 2, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 300, 500, 1000}
)

// labels of every metric.
var labels = []string{"endpoint", "model"}

// Exporter is a engine.Observer that keeps tpsmon's metrics: per finished request (a
// Sample) it observes the histograms and counts the outcome and the tokens; per live
// tick it sets the gauges. It is cheap (a few atomic operations per request) and its
// registry can be scraped from any goroutine while the engine's goroutine feeds it.
type Exporter struct {
	reg                 *prometheus.Registry
	ttft, tpot, userTPS *prometheus.HistogramVec
	requests, errors    *prometheus.CounterVec
	tokens              *prometheus.CounterVec
	active, target      *prometheus.GaugeVec
	eps                 map[int]*endpoint
}

// endpoint holds one endpoint's metrics, resolved once.
type endpoint struct {
	name, model          string
	ttft, tpot, userTPS  prometheus.Observer
	ok, failed, canceled prometheus.Counter
	tokens               prometheus.Counter
	active, target       prometheus.Gauge
}

var _ engine.Observer = (*Exporter)(nil)

// New registers tpsmon's metrics in a new registry.
func New() *Exporter {
	hist := func(name, help string, buckets []float64) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: name, Help: help, Buckets: buckets,
			// Native buckets, 10% apart, beside the classic ones.
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  160,
			NativeHistogramMinResetDuration: time.Hour,
		}, labels)
	}
	x := &Exporter{
		reg:     prometheus.NewRegistry(),
		ttft:    hist(TTFT, "Time to first token of each successful request (t_first - t_send), seconds.", ttftBuckets),
		tpot:    hist(TPOT, "Time per output token after the first of each successful request ((t_last - t_first) / (tokens - 1)), seconds.", tpotBuckets),
		userTPS: hist(UserTPS, "Decode rate a user saw on each successful request ((tokens - 1) / (t_last - t_first)), tokens per second.", userBuckets),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: Requests,
			Help: "Requests that ended, by outcome: success, error (kind in tpsmon_request_errors_total) or canceled (cut by tpsmon)."}, append(labels[:2:2], "outcome")),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: Errors,
			Help: "Failed requests by kind (http_429, timeout, truncated, connect, stream_error, protocol, client)."}, append(labels[:2:2], "kind")),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: OutputTokens,
			Help: "Output tokens received, counted when each request ends (usage.completion_tokens, else token-bearing events)."}, labels),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: Active, Help: "Streams in flight, at the latest live tick."}, labels),
		target: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: TargetUsers, Help: "Users (concurrent streams) asked for, at the latest live tick."}, labels),
		eps:    map[int]*endpoint{},
	}
	x.reg.MustRegister(x.ttft, x.tpot, x.userTPS, x.requests, x.errors, x.tokens, x.active, x.target)
	return x
}

// Registry is the exporter's own registry (serve it with Serve, or gather it).
func (x *Exporter) Registry() *prometheus.Registry { return x.reg }

// Observe records a finished request or a live tick of one endpoint.
func (x *Exporter) Observe(e *engine.Engine, ev *probe.Event) {
	switch {
	case ev.Sample != nil:
		x.sample(x.endpoint(e, ev.Endpoint), ev.Sample)
	case ev.Tick != nil:
		m := x.endpoint(e, ev.Endpoint)
		m.active.Set(float64(ev.Tick.Active))
		m.target.Set(float64(ev.Tick.Target))
	}
}

func (x *Exporter) sample(m *endpoint, s *model.Sample) {
	if s.Tokens > 0 {
		m.tokens.Add(float64(s.Tokens))
	}
	switch {
	case s.Err == model.ErrCanceled:
		m.canceled.Inc()
		return
	case !s.OK():
		m.failed.Inc()
		x.errors.WithLabelValues(m.name, m.model, string(s.Err)).Inc()
		return
	}
	m.ok.Inc()
	if d, ok := s.TTFT(); ok {
		m.ttft.Observe(d.Seconds())
	}
	if d, ok := s.TPOT(); ok {
		m.tpot.Observe(d.Seconds())
	}
	if v, ok := s.UserTPS(); ok {
		m.userTPS.Observe(v)
	}
}

// endpoint is endpoint i's metrics, resolved on first use.
func (x *Exporter) endpoint(e *engine.Engine, i int) *endpoint {
	if m := x.eps[i]; m != nil {
		return m
	}
	info := e.Info(i)
	name, mdl := info.Name, info.Model
	m := &endpoint{
		name: name, model: mdl,
		ttft: x.ttft.WithLabelValues(name, mdl), tpot: x.tpot.WithLabelValues(name, mdl),
		userTPS:  x.userTPS.WithLabelValues(name, mdl),
		ok:       x.requests.WithLabelValues(name, mdl, OutcomeSuccess),
		failed:   x.requests.WithLabelValues(name, mdl, OutcomeError),
		canceled: x.requests.WithLabelValues(name, mdl, OutcomeCanceled),
		tokens:   x.tokens.WithLabelValues(name, mdl),
		active:   x.active.WithLabelValues(name, mdl), target: x.target.WithLabelValues(name, mdl),
	}
	x.eps[i] = m
	return m
}
