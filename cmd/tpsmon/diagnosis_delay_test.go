package main

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// slowGateway is a gateway before the server at upstream that holds every completion
// request for delay while another one is passing through it (a gateway that slows
// under load): nothing waits on the server, the time is spent before it. /metrics
// passes at once. Its URL is the base URL's origin.
func slowGateway(t *testing.T, upstream string, delay time.Duration) string {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	proxy.FlushInterval = -1                    // stream every event as it comes
	proxy.ErrorLog = log.New(io.Discard, "", 0) // streams cut as the run ends are no news
	var inFlight atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			if inFlight.Add(1) > 1 {
				select {
				case <-time.After(delay):
				case <-r.Context().Done():
				}
			}
			defer inFlight.Add(-1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + u.Path
}

// TestDiagnosisDelayBeforeTheServerIsTheNetwork: the ramp of the fault table's "a level's
// new users sent together" row, through a gateway that holds each request 500 ms while
// another passes: the new users are sent together as before, but their first tokens
// come later than prefilling them all may take, and the requests sent alone are slow
// too. tpsmon still says the time is spent between tpsmon and the server, never that
// the server prefills them together.
func TestDiagnosisDelayBeforeTheServerIsTheNetwork(t *testing.T) {
	t.Parallel()
	sim, model := startSimCommand(t)
	row := faultRow{bench: []string{"--ramp", "1,32", "--refine=false", "--max-hold", "15s"}}
	r := benchRow(t, row, slowGateway(t, sim, 500*time.Millisecond), model, filepath.Join(t.TempDir(), "results.json"))
	if r.err != "" {
		t.Fatal(r.err)
	}
	for _, f := range r.findings {
		t.Logf("  %s (%s, %.0f-%.0f s): %s", f.Kind, f.Severity, f.First, f.Last, f.Words)
	}
	f := want(t, r, "no-server-queue", `^TTFT rises to \d+ ms \(\d+ ms at low load\) with no queue on the server: the time is spent between tpsmon and the server \(network, proxy, gateway\)$`)
	between(t, "TTFT (ms)", number(f.Words, "rises to "), 600, 999)
	if g, ok := r.find("sent-together"); ok {
		t.Errorf("a delay before the server said as the server's prefill: %q", g.Words)
	}
}
