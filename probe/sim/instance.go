package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Instance is a simulator listening on a TCP address.
type Instance struct {
	URL    string // base URL ending in /v1, e.g. http://127.0.0.1:41234/v1
	Server *Server

	hs       *http.Server
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
	err      error
}

// Start listens on addr (default "127.0.0.1:0", a free port on the loopback interface)
// and serves cfg until ctx ends or Close. Any address is accepted: an addr such as
// ":8000" or "0.0.0.0:8000" (tpsmon sim --addr) opens the simulator to the network.
func Start(ctx context.Context, addr string, cfg Config) (*Instance, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("simulator: cannot listen on %s: %w (choose another address)", addr, err)
	}
	s := New(cfg)
	i := &Instance{
		URL:    baseURL(ln.Addr()),
		Server: s,
		hs: &http.Server{
			Handler:           s,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          log.New(io.Discard, "", 0), // never print under a TUI
		},
		stop: make(chan struct{}),
	}
	if cfg.CloseAfterStream {
		closeAfterStreamServer(i.hs)
	}
	i.wg.Go(func() {
		if err := i.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			i.err = err
		}
	})
	i.wg.Go(func() {
		select {
		case <-ctx.Done():
			i.shutdown()
		case <-i.stop:
		}
	})
	return i, nil
}

// baseURL is the /v1 URL a local client uses to reach a listener: an unspecified host
// (":8000", "0.0.0.0:8000") is reached through 127.0.0.1.
func baseURL(a net.Addr) string {
	host := a.String()
	if tcp, ok := a.(*net.TCPAddr); ok && (tcp.IP == nil || tcp.IP.IsUnspecified()) {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	}
	return "http://" + host + "/v1"
}

// shutdown ends the streams, then stops the HTTP server, waiting briefly for handlers.
func (i *Instance) shutdown() {
	i.stopOnce.Do(func() {
		close(i.stop)
		i.Server.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := i.hs.Shutdown(ctx); err != nil {
			_ = i.hs.Close()
		}
	})
}

// Close stops listening and closes the server. It is idempotent and returns once the
// server's goroutines have ended.
func (i *Instance) Close() error {
	i.shutdown()
	i.wg.Wait()
	return i.err
}
