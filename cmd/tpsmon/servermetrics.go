package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// registerServerMetrics adds --server-metrics.
func registerServerMetrics(fs *pflag.FlagSet, v *string) {
	fs.StringVar(v, "server-metrics", "",
		"the server's Prometheus metrics (running, waiting, KV cache, generated tokens): a URL, or off (default: the endpoint URL's origin + /metrics, scraped once a second)")
}

// resolveServerMetrics is each endpoint's metrics source: --server-metrics over the
// config's server_metrics over the default (""). A URL given by the flag names one
// server, so it is refused with several endpoints; off turns every scrape off. n is the
// number of endpoints configured (0: the simulator, which gets one entry).
func resolveServerMetrics(flag string, cfg *fileConfig, n int, changed func(string) bool) ([]string, error) {
	flag = strings.TrimSpace(flag)
	given := changed("server-metrics")
	if given {
		if err := checkMetricsSource(flag); err != nil {
			return nil, usageErrorf("--server-metrics: %v", err)
		}
		if n > 1 && !strings.EqualFold(flag, engine.ServerMetricsOff) {
			return nil, usageErrorf("--server-metrics: a URL names one server's metrics, but %d endpoints are configured; set server_metrics: per endpoint in the config, or --server-metrics off", n)
		}
	}
	out := make([]string, max(n, 1))
	for i := range out {
		if given {
			out[i] = flag
			continue
		}
		if i < len(cfg.Endpoints) && n > 0 {
			v := strings.TrimSpace(cfg.Endpoints[i].ServerMetrics)
			if err := checkMetricsSource(v); err != nil {
				return nil, usageErrorf("%s: %v", cfg.keyOrigin(i, "server_metrics").where, err)
			}
			out[i] = v
		}
	}
	return out, nil
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

// note says a line once above the progress lines (a terminal: they are drawn again
// under it).
func (pr *progressPrinter) note(line string) {
	if !pr.tty {
		fmt.Fprintf(pr.w, "tpsmon: %s\n", line)
		return
	}
	line = "tpsmon: " + line
	if pr.width > 1 {
		line = ansi.Truncate(line, pr.width-1, "")
	}
	var b strings.Builder
	if pr.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", pr.drawn)
	}
	b.WriteString("\r\x1b[2K" + line + "\n")
	for _, l := range pr.lines {
		b.WriteString("\r\x1b[2K" + l + "\n")
	}
	pr.drawn = len(pr.lines)
	fmt.Fprint(pr.w, b.String())
}
