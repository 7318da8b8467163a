package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestStartPprofServesGoroutineCounts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var w bytes.Buffer
	startPprof(addr, &w)
	if w.Len() > 0 {
		t.Fatalf("unexpected message: %s", w.String())
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.HasPrefix(string(body), "goroutine profile: total ") {
		t.Fatalf("body starts %q", string(body[:min(len(body), 60)]))
	}
}

func TestStartPprofRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:6060", ":6060", "10.0.0.1:6060", "nonsense"} {
		var w bytes.Buffer
		startPprof(addr, &w)
		if !strings.Contains(w.String(), "want a loopback HOST:PORT") {
			t.Errorf("%q: got %q", addr, w.String())
		}
	}
}
