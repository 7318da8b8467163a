package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
)

// pprofEnv names the environment variable that starts Go's profiling endpoints, for soak
// runs and for finding where tpsmon spends its time: TPSMON_PPROF_ADDR=127.0.0.1:6060
// serves /debug/pprof/ (goroutine counts, heap, CPU profiles). Off unless set; loopback only.
const pprofEnv = "TPSMON_PPROF_ADDR"

// startPprof serves the profiling endpoints on addr in the background when addr is set.
// A non-loopback address or a port in use is said on w and otherwise ignored: profiling
// must never keep a run from starting.
func startPprof(addr string, w io.Writer) {
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
		fmt.Fprintf(w, "tpsmon: %s=%q: want a loopback HOST:PORT such as 127.0.0.1:6060; profiling is off\n", pprofEnv, addr)
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(w, "tpsmon: %s: %v; profiling is off\n", pprofEnv, err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() { _ = http.Serve(ln, mux) }()
}
