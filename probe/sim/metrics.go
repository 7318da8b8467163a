package sim

import (
	"net/http"
	"strconv"
	"strings"
)

// serveMetrics answers GET /metrics with the scheduler's state under vLLM's metric
// names, in the Prometheus text format (version 0.0.4), so that tpsmon's server view
// and any Prometheus work against the simulator as against vLLM:
//
//	vllm:num_requests_running    gauge    sequences holding a slot
//	vllm:num_requests_waiting    gauge    requests queued for a slot (preempted ones included)
//	vllm:kv_cache_usage_perc     gauge    KV cache held / Config.KVTokens, 0 to 1 (only with a budget)
//	vllm:generation_tokens_total counter  tokens generated since start
//	vllm:num_preemptions_total   counter  sequences preempted since start
//	vllm:prefix_cache_queries_total counter prompt tokens looked up in the prefix cache (only with a cache)
//	vllm:prefix_cache_hits_total    counter of those, the tokens found cached (only with a cache)
//
// Every series carries vLLM's labels engine="0" and model_name. The counters count
// from the server's start: POST /sim/reset does not reset them (a Prometheus counter
// only goes down when its process restarts).
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet) {
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write(s.metricsText())
}

// metricsText is the /metrics body.
func (s *Server) metricsText() []byte {
	sc := s.sched
	labels := `{engine="0",model_name="` + escapeLabel(s.cfg.Model) + `"}`
	b := make([]byte, 0, 1024)
	metric := func(name, typ, help string, v float64) {
		b = append(b, "# HELP "+name+" "+help+"\n# TYPE "+name+" "+typ+"\n"+name+labels+" "...)
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
		b = append(b, '\n')
	}
	metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
		float64(sc.activeN.Load()))
	metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
		float64(sc.queueLen.Load()))
	if budget := s.cfg.KVTokens; budget > 0 {
		metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
			min(float64(sc.kv.used.Load())/float64(budget), 1))
	}
	metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
		float64(sc.kv.generated.Load()))
	metric("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.",
		float64(sc.kv.preemptions.Load()))
	if s.cache != nil {
		hits, queries := s.PrefixCache()
		metric("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.", float64(queries))
		metric("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.", float64(hits))
	}
	return b
}

// escapeLabel escapes a label value for the text format.
func escapeLabel(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}
