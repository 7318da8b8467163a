package sim

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// closeAfterStream makes the server behave like llama.cpp's llama-server: every answer
// advertises a persistent connection (`Connection: keep-alive`, `Keep-Alive: timeout=5,
// max=100`), yet once a streamed answer is complete the server closes the socket. A
// client that sends its next request on that connection before the close reaches it
// finds it dead (Config.CloseAfterStream).
type closeAfterStream struct {
	next  http.Handler
	marks sync.Map // net.Conn -> *atomic.Bool: close the connection once it is idle
}

type connKey struct{}

func (c *closeAfterStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Connection", "keep-alive")
	h.Set("Keep-Alive", "timeout=5, max=100")
	c.next.ServeHTTP(w, r)
	if h.Get("Content-Type") != "text/event-stream" {
		return
	}
	if conn, ok := r.Context().Value(connKey{}).(net.Conn); ok {
		if m, ok := c.marks.Load(conn); ok {
			m.(*atomic.Bool).Store(true)
		}
	}
}

// connState closes a marked connection as soon as its answer is complete (the server
// has written and flushed it, and the connection turned idle).
func (c *closeAfterStream) connState(conn net.Conn, s http.ConnState) {
	switch s {
	case http.StateNew:
		c.marks.Store(conn, new(atomic.Bool))
	case http.StateIdle:
		if m, ok := c.marks.Load(conn); ok && m.(*atomic.Bool).Swap(false) {
			_ = conn.Close()
		}
	case http.StateClosed, http.StateHijacked:
		c.marks.Delete(conn)
	}
}

// closeAfterStreamServer sets hs up to close each connection once a streamed answer on
// it is complete.
func closeAfterStreamServer(hs *http.Server) {
	c := &closeAfterStream{next: hs.Handler}
	hs.Handler = c
	hs.ConnContext = func(ctx context.Context, conn net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, conn)
	}
	hs.ConnState = c.connState
}
