package settings

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// serverMetrics is each endpoint's metrics source for the engine ("" the default,
// engine.ServerMetricsOff, or a URL), from each endpoint's settings; the simulator gets
// one entry. A URL given by --server-metrics names one server, so it is refused with
// several endpoints; off turns every scrape off.
func (p *Plan) serverMetrics(given Value[string]) error {
	if given.Given() {
		v := strings.TrimSpace(given.V)
		if err := checkMetricsSource(v); err != nil {
			return errorf("--server-metrics: %v", err)
		}
		if n := len(p.Endpoints); n > 1 && !strings.EqualFold(v, engine.ServerMetricsOff) {
			return errorf("--server-metrics: a URL names one server's metrics, but %d endpoints are configured; set server_metrics: per endpoint in the config, or --server-metrics off", n)
		}
	}
	if p.Simulate {
		p.metrics = []Value[string]{given}
	}
	p.ServerMetrics = make([]string, len(p.metrics))
	for i, m := range p.metrics {
		v := strings.TrimSpace(m.V)
		if err := checkMetricsSource(v); err != nil {
			return errorf("%s: %v", m.From.Where, err)
		}
		p.ServerMetrics[i] = v
	}
	return nil
}

// checkMetricsSource accepts "", off, or an http(s) URL with a host. The error never
// repeats the URL's user info or query (either may hold a secret).
func checkMetricsSource(v string) error {
	if v == "" || strings.EqualFold(v, engine.ServerMetricsOff) {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q: want an http:// or https:// URL such as http://127.0.0.1:8000/metrics, or off", client.RedactedURL(v))
	}
	return nil
}
