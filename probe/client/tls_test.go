package client

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tpsmon/tpsmon/model"
)

func TestClientTLSAndHTTP2(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := &sseHandler{events: []string{chunk(`{"content":"a"}`), chunk(`{"content":"b"}`), finishChunk("stop"), done}}
	var proto string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto = r.Proto
		h.ServeHTTP(w, r)
	}))
	srv.EnableHTTP2 = true
	// The untrusted-certificate case makes the server log a handshake error: expected, not noise for CI.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	ep := Endpoint{BaseURL: srv.URL + "/v1", Model: "m", Timeout: 5 * time.Second}

	c, err := New(ep, 2)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Stream(context.Background(), nil)
	c.CloseIdleConnections()
	t.Logf("ErrMsg: %s", s.ErrMsg)
	if s.Err != model.ErrConnect || !strings.Contains(s.ErrMsg, "TLS certificate") || !strings.Contains(s.ErrMsg, "insecure") || strings.Contains(s.ErrMsg, "--") {
		t.Fatalf("untrusted certificate: Err %q (%s), want connect naming TLS and the insecure way out, no flag", s.Err, s.ErrMsg)
	}

	ep.Insecure = true
	c, err = New(ep, 2)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // several requests over the same HTTP/2 connection
		if s := c.Stream(context.Background(), nil); !s.OK() || s.Chunks != 2 {
			t.Fatalf("Err %q (%s) chunks %d", s.Err, s.ErrMsg, s.Chunks)
		}
	}
	c.CloseIdleConnections()
	if proto != "HTTP/2.0" {
		t.Errorf("proto %q, want HTTP/2.0", proto)
	}
}

func TestClientNoLeaks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, chunk(`{"content":"a"}`))
		w.(http.Flusher).Flush()
		select { // then go quiet: each client request times out
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := New(Endpoint{BaseURL: srv.URL + "/v1", Model: "m", Timeout: 100 * time.Millisecond}, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	done := make(chan model.Sample, 4)
	for range 4 {
		go func() { done <- c.Stream(context.Background(), nil) }()
	}
	for range 4 {
		if s := <-done; s.Err != model.ErrTimeout {
			t.Errorf("Err %q (%s), want timeout", s.Err, s.ErrMsg)
		}
	}
}
