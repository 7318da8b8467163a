package servermetrics

import (
	"io"
	"math"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"github.com/tpsmon/tpsmon/model"
)

// The server kinds, as Sample.Kind says them.
const (
	KindVLLM     = "vLLM"
	KindSGLang   = "SGLang"
	KindTGI      = "TGI"
	KindLlamaCpp = "llama.cpp"
)

// family names one signal's metric families in one server's exposition, first match
// wins (e.g. vLLM's current KV gauge, then its older name).
type family []string

// server is one row of the recognition table: a server kind and the families of each
// signal. A server is recognised by its running or waiting gauge.
type server struct {
	kind                                     string
	running, waiting, kv, generated, preempt family
	prefixHits, prefixQueries, prefixRate    family
}

// servers is the table of issue 7 ("The server's own view"). SGLang renamed its prefix
// from "sglang:" to "sglang_" in v0.5.4; both are read. TGI's generated tokens are the
// sum of its per-request histogram.
var servers = []server{
	{
		kind:      KindVLLM,
		running:   family{"vllm:num_requests_running"},
		waiting:   family{"vllm:num_requests_waiting"},
		kv:        family{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"},
		generated: family{"vllm:generation_tokens_total", "vllm:generation_tokens"},
		preempt:   family{"vllm:num_preemptions_total", "vllm:num_preemptions"},
		// vLLM v1's prefix-cache counters, in prompt tokens.
		prefixHits:    family{"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits"},
		prefixQueries: family{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries"},
	},
	{
		kind:      KindSGLang,
		running:   family{"sglang:num_running_reqs", "sglang_num_running_reqs"},
		waiting:   family{"sglang:num_queue_reqs", "sglang_num_queue_reqs"},
		kv:        family{"sglang:token_usage", "sglang_token_usage"},
		generated: family{"sglang:generation_tokens_total", "sglang_generation_tokens_total"},
		preempt:   family{"sglang:num_retracted_reqs", "sglang_num_retracted_reqs"},
		// SGLang's prefix (radix) cache hit rate, a gauge from 0 to 1.
		prefixRate: family{"sglang:cache_hit_rate", "sglang_cache_hit_rate"},
	},
	{
		kind:      KindTGI,
		running:   family{"tgi_batch_current_size"},
		waiting:   family{"tgi_queue_size"},
		generated: family{"tgi_request_generated_tokens", "tgi_request_generated_tokens_sum"},
	},
	{
		kind:      KindLlamaCpp,
		running:   family{"llamacpp:requests_processing"},
		waiting:   family{"llamacpp:requests_deferred"},
		generated: family{"llamacpp:tokens_predicted_total", "llamacpp:tokens_predicted"},
	},
}

// parse reads Prometheus text and returns the model-level sample of the first server
// kind it recognises. Series are summed over their labels (several engines or ranks),
// except the KV gauge, which is averaged; when some series carry a model_name label
// equal to modelName, only those count. Families ending in _created are skipped.
// ok is false when the text names no known server.
func parse(r io.Reader, modelName string) (s model.ServerSample, ok bool, err error) {
	p := expfmt.NewTextParser(pmodel.LegacyValidation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return s, false, err
	}
	for name := range fams {
		if strings.HasSuffix(name, "_created") {
			delete(fams, name)
		}
	}
	for _, srv := range servers {
		if s, ok = srv.read(fams, modelName); ok {
			return s, true, nil
		}
	}
	return s, false, nil
}

// read fills a sample from fams with srv's names; false when neither the running nor
// the waiting gauge is there.
func (srv server) read(fams map[string]*dto.MetricFamily, modelName string) (model.ServerSample, bool) {
	s := model.ServerSample{Kind: srv.kind}
	for _, sig := range []struct {
		names family
		bit   model.ServerSignal
		dst   *float64
		avg   bool
	}{
		{srv.running, model.SigRunning, &s.Running, false},
		{srv.waiting, model.SigWaiting, &s.Waiting, false},
		{srv.kv, model.SigKV, &s.KV, true},
		{srv.generated, model.SigGenerated, &s.Generated, false},
		{srv.preempt, model.SigPreemptions, &s.Preemptions, false},
	} {
		if v, ok := value(fams, sig.names, modelName, sig.avg); ok {
			*sig.dst = v
			s.Has |= sig.bit
		}
	}
	hits, okH := value(fams, srv.prefixHits, modelName, false)
	queries, okQ := value(fams, srv.prefixQueries, modelName, false)
	if okH && okQ {
		s.PrefixHits, s.PrefixQueries = hits, queries
		s.Has |= model.SigPrefix
	}
	if v, ok := value(fams, srv.prefixRate, modelName, true); ok {
		s.PrefixHitRate = v
		s.Has |= model.SigPrefixRate
	}
	return s, s.Has&(model.SigRunning|model.SigWaiting) != 0
}

// value is the first of names present in fams, summed (or averaged) over its series.
func value(fams map[string]*dto.MetricFamily, names family, modelName string, avg bool) (float64, bool) {
	for _, name := range names {
		mf := fams[name]
		if mf == nil || len(mf.GetMetric()) == 0 {
			continue
		}
		ms := ofModel(mf.GetMetric(), modelName)
		var sum float64
		n := 0
		for _, m := range ms {
			if v := metricValue(m); !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum += v
				n++
			}
		}
		if n == 0 {
			continue
		}
		if avg {
			sum /= float64(n)
		}
		return sum, true
	}
	return 0, false
}

// ofModel keeps the series labelled model_name=modelName when there are any.
func ofModel(ms []*dto.Metric, modelName string) []*dto.Metric {
	if modelName == "" {
		return ms
	}
	var mine []*dto.Metric
	for _, m := range ms {
		for _, l := range m.GetLabel() {
			if l.GetName() == "model_name" && l.GetValue() == modelName {
				mine = append(mine, m)
				break
			}
		}
	}
	if len(mine) == 0 {
		return ms
	}
	return mine
}

// metricValue is a series' number: a gauge's, counter's or untyped value, or the sum
// of a histogram or summary (TGI's generated tokens).
func metricValue(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Untyped != nil:
		return m.Untyped.GetValue()
	case m.Histogram != nil:
		return m.Histogram.GetSampleSum()
	case m.Summary != nil:
		return m.Summary.GetSampleSum()
	}
	return 0
}
