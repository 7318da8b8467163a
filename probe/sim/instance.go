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

	addr     string // the address listened on (Config.DownFor listens there again)
	mu       sync.Mutex
	hs       *http.Server // nil while down (Config.DownAfter)
	closed   bool
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
	err      error
}

// Start listens on addr (default "127.0.0.1:0", a free port on the loopback interface)
// and serves cfg until ctx ends or Close. Any address is accepted: an addr such as
// ":8000" or "0.0.0.0:8000" (tpsmon sim --addr) opens the simulator to the network.
// With Config.DownAfter the server goes down then and comes back DownFor later.
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
	i := &Instance{
		URL:    baseURL(ln.Addr()),
		Server: New(cfg),
		addr:   ln.Addr().String(),
		stop:   make(chan struct{}),
	}
	i.mu.Lock()
	i.serve(ln)
	i.mu.Unlock()
	i.wg.Go(func() {
		select {
		case <-ctx.Done():
			i.shutdown()
		case <-i.stop:
		}
	})
	if cfg.DownAfter > 0 {
		i.wg.Go(func() { i.outage(cfg.DownAfter, cfg.DownFor) })
	}
	return i, nil
}

// serve serves the simulator on ln with a new HTTP server. Call it with mu held.
func (i *Instance) serve(ln net.Listener) {
	hs := &http.Server{
		Handler:           i.Server,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0), // never print under a TUI
	}
	if i.Server.cfg.CloseAfterStream {
		closeAfterStreamServer(hs)
	}
	i.hs = hs
	i.wg.Go(func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			i.setErr(err)
		}
	})
}

func (i *Instance) setErr(err error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.err == nil {
		i.err = err
	}
}

// outage takes the server down after `after`: it stops listening and cuts every open
// connection, as a server killed does; after `down` (0: never) it listens again on the
// same address, with the same scheduler and counters.
func (i *Instance) outage(after, down time.Duration) {
	if !i.wait(after) {
		return
	}
	i.mu.Lock()
	hs := i.hs
	i.hs = nil
	i.mu.Unlock()
	if hs != nil {
		_ = hs.Close()
	}
	if down <= 0 || !i.wait(down) {
		return
	}
	ln, err := net.Listen("tcp", i.addr)
	if err != nil {
		i.setErr(fmt.Errorf("simulator: cannot listen again on %s after the outage: %w", i.addr, err))
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		_ = ln.Close()
		return
	}
	i.serve(ln)
}

// wait waits d; false when the instance closed first.
func (i *Instance) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-i.stop:
		return false
	}
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
		i.mu.Lock()
		i.closed = true
		hs := i.hs
		i.mu.Unlock()
		if hs == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			_ = hs.Close()
		}
	})
}

// Close stops listening and closes the server. It is idempotent and returns once the
// server's goroutines have ended.
func (i *Instance) Close() error {
	i.shutdown()
	i.wg.Wait()
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.err
}
