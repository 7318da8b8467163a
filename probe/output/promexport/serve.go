package promexport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Addr is a listen address checked by ParseAddr.
type Addr struct {
	HostPort string // what to listen on
	Loopback bool   // reachable from this machine only
}

// ParseAddr checks a HOST:PORT listen address. An empty host (":9464") or a bare port
// ("9464") means 127.0.0.1: the metrics stay on this machine unless a host that other
// machines reach (0.0.0.0, an interface's address, a name) is given; Loopback says which.
// The error says what is wrong without naming a flag.
func ParseAddr(s string) (Addr, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Addr{}, errors.New("empty address: want HOST:PORT, e.g. 127.0.0.1:9464")
	}
	if _, err := strconv.Atoi(s); err == nil {
		s = ":" + s
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return Addr{}, fmt.Errorf("%q is not HOST:PORT (e.g. 127.0.0.1:9464, or [::1]:9464)", s)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return Addr{}, fmt.Errorf("%q: port %q is not a number from 0 to 65535", s, port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	loop := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loop = ip.IsLoopback()
	}
	return Addr{HostPort: net.JoinHostPort(host, port), Loopback: loop}, nil
}

// Server serves a registry at /metrics.
type Server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Serve listens on addr at once (so a port in use is an error here, not later) and
// serves reg at /metrics (text, OpenMetrics or protobuf, as the scraper asks; native
// histograms need protobuf) until Close.
func Serve(addr string, reg *prometheus.Registry) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "tpsmon: metrics at /metrics")
	})
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln: ln, done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on (its port when asked for port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, letting a scrape in progress finish (for at most 2 s).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
