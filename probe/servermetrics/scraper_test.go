package servermetrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// serveFile answers GET /metrics with a fixture in the text format, the way the servers
// do (text/plain; version=0.0.4).
func serveFile(t *testing.T, name string) *httptest.Server {
	t.Helper()
	body, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func scrape(t *testing.T, cfg Config) (model.ServerSample, error) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return s.Scrape(context.Background())
}

func TestScrapeServerFamilies(t *testing.T) {
	const all = model.SigRunning | model.SigWaiting | model.SigKV | model.SigGenerated | model.SigPreemptions
	cases := []struct {
		file, model string
		want        model.ServerSample
	}{
		{"vllm.txt", "Qwen/Qwen3-8B", model.ServerSample{Kind: KindVLLM, Running: 32, Waiting: 14, KV: 0.9712,
			Generated: 3224576, Preemptions: 7, PrefixHits: 612352, PrefixQueries: 1548288, Has: all | model.SigPrefix}},
		// Two engines of the endpoint's model are summed (KV averaged); the other model
		// on the same server is left out. The older KV gauge name is read.
		{"vllm_dp2_two_models.txt", "llama-3-70b", model.ServerSample{Kind: KindVLLM, Running: 38, Waiting: 7, KV: 0.7,
			Generated: 1500, Has: all &^ model.SigPreemptions}},
		// A server that answers in OpenMetrics despite the Accept header: counter families
		// without _total, their _created samples, # EOF.
		{"vllm_openmetrics.txt", "m", model.ServerSample{Kind: KindVLLM, Running: 3, Waiting: 1,
			Generated: 4096, Preemptions: 2, Has: all &^ model.SigKV}},
		{"sglang.txt", "", model.ServerSample{Kind: KindSGLang, Running: 162, Waiting: 2826, KV: 0.28,
			Generated: 7557572, Preemptions: 3, PrefixHitRate: 0.42, Has: all | model.SigPrefixRate}},
		{"sglang_v054.txt", "Qwen/Qwen2.5-7B-Instruct", model.ServerSample{Kind: KindSGLang, Running: 9, Waiting: 0, KV: 0.04,
			Generated: 51234, Has: all &^ model.SigPreemptions}},
		{"tgi.txt", "tgi", model.ServerSample{Kind: KindTGI, Running: 24, Waiting: 6, Generated: 1203981,
			Has: model.SigRunning | model.SigWaiting | model.SigGenerated}},
		{"llamacpp.txt", "", model.ServerSample{Kind: KindLlamaCpp, Running: 4, Waiting: 2, Generated: 88213,
			Has: model.SigRunning | model.SigWaiting | model.SigGenerated}},
	}
	for _, c := range cases {
		srv := serveFile(t, c.file)
		before := time.Now()
		got, err := scrape(t, Config{URL: srv.URL + "/metrics", Model: c.model})
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if got.Time.Before(before) {
			t.Errorf("%s: scrape time %v is before the scrape", c.file, got.Time)
		}
		got.Time = time.Time{}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, got, c.want)
		}
	}
}

func TestScrapeWithoutModelLabelMatchSumsAll(t *testing.T) {
	// A served model name tpsmon does not know (or no model given): every series counts.
	srv := serveFile(t, "vllm_dp2_two_models.txt")
	got, err := scrape(t, Config{URL: srv.URL + "/metrics", Model: "some-alias"})
	if err != nil || got.Running != 41 || got.Generated != 101499 {
		t.Errorf("got running %v generated %v (%v), want 41 and 101499", got.Running, got.Generated, err)
	}
}

func TestDefaultURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8000/v1":              "http://127.0.0.1:8000/metrics",
		"https://llm.example:8443/openai/v1/":   "https://llm.example:8443/metrics",
		" http://user:pw@127.0.0.1:9000/v1?x=1": "http://127.0.0.1:9000/metrics",
	} {
		if got, err := DefaultURL(in); err != nil || got != want {
			t.Errorf("DefaultURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := DefaultURL("ftp://x/v1"); err == nil {
		t.Error("DefaultURL took an ftp URL")
	}
}

func TestScrapeSendsHeadersOnlyToTheEndpointsOrigin(t *testing.T) {
	seen := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		_, _ = w.Write([]byte("llamacpp:requests_processing 1\nllamacpp:requests_deferred 0\n"))
	}))
	defer srv.Close()
	hdr := http.Header{"X-Tenant": {"t-secret"}}
	cfg := Config{URL: srv.URL + "/metrics", BaseURL: srv.URL + "/v1", Headers: hdr, APIKey: "sk-secret"}
	if _, err := scrape(t, cfg); err != nil {
		t.Fatal(err)
	}
	got := <-seen
	if got.Get("X-Tenant") != "t-secret" || got.Get("Authorization") != "Bearer sk-secret" {
		t.Errorf("same origin: headers %v, want the endpoint's header and key", got)
	}
	if !strings.HasPrefix(got.Get("Accept"), "text/plain") {
		t.Errorf("Accept %q, want the text format first", got.Get("Accept"))
	}
	// A metrics URL on another origin gets neither.
	cfg.BaseURL = "http://127.0.0.2:1/v1"
	if _, err := scrape(t, cfg); err != nil {
		t.Fatal(err)
	}
	if got = <-seen; got.Get("X-Tenant") != "" || got.Get("Authorization") != "" {
		t.Errorf("other origin: headers %v sent", got)
	}
}

func TestScrapeFailures(t *testing.T) {
	html := "<!DOCTYPE html><html><body>It works</body></html>"
	cases := []struct {
		name    string
		handler http.HandlerFunc
		kind    ErrKind
		reason  string
	}{
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, ErrStatus, "404"},
		{"401", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }, ErrStatus, "401"},
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/login", http.StatusFound)
		}, ErrStatus, "302"},
		{"html", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(html))
		}, ErrNotMetrics, "an HTML page, not Prometheus text"},
		{"html as text", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("\n  " + html))
		}, ErrNotMetrics, "an HTML page, not Prometheus text"},
		{"garbage", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("vllm:num_requests_running{model_name=\"m\" 3\x00\x01 ]]\n"))
		}, ErrNotMetrics, "not Prometheus text"},
		{"json", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"object":"error","message":"Not Found"}`))
		}, ErrNotMetrics, "a JSON answer, not Prometheus text"},
		{"other exporter", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("# TYPE go_goroutines gauge\ngo_goroutines 12\n"))
		}, ErrUnknownServer, "no vLLM, SGLang, TGI or llama.cpp metrics in it"},
		{"empty", func(http.ResponseWriter, *http.Request) {}, ErrUnknownServer, "no vLLM"},
		{"huge", func(w http.ResponseWriter, _ *http.Request) {
			line := []byte(strings.Repeat("x", 1023) + "\n")
			for range 80 {
				if _, err := w.Write(line); err != nil {
					return
				}
			}
		}, ErrTooLarge, "the answer is larger than 64 KiB"},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, ErrTimeout, "no answer within 200ms"},
		{"closed", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) },
			ErrUnreachable, "the connection closed before an answer"},
		{"cut", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", "1000")
			_, _ = w.Write([]byte("vllm:num_requests_running 1\n"))
			_ = http.NewResponseController(w).Flush()
			panic(http.ErrAbortHandler)
		}, ErrUnreachable, "the answer was cut"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			u := srv.URL + "/metrics?token=qsecret"
			// A long timeout but in the timeout case: a loaded machine must not turn the
			// other failures into timeouts.
			timeout := 10 * time.Second
			if c.kind == ErrTimeout {
				timeout = 200 * time.Millisecond
			}
			_, err := scrape(t, Config{URL: u, Timeout: timeout, MaxBytes: 64 << 10})
			checkError(t, err, c.kind, c.reason)
			if strings.Contains(err.Error(), "qsecret") {
				t.Errorf("the error prints the query: %v", err)
			}
		})
	}
}

func TestScrapeConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, err = scrape(t, Config{URL: "http://" + addr + "/metrics"})
	checkError(t, err, ErrUnreachable, "connection refused")
	if want := "server metrics: not available at http://" + addr + "/metrics: connection refused"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func checkError(t *testing.T, err error, kind ErrKind, reason string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want an *Error", err, err)
	}
	if e.Kind != kind || !strings.HasPrefix(e.Reason, reason) {
		t.Errorf("error kind %d reason %q, want kind %d reason %q...", e.Kind, e.Reason, kind, reason)
	}
	if strings.Contains(e.Error(), "\n") {
		t.Errorf("error %q spans lines", e.Error())
	}
}
