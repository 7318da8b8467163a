package client

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

// llamaServer behaves like llama.cpp's llama-server: every answer is a chunked event
// stream whose headers say `Connection: keep-alive` and `Keep-Alive: timeout=5, max=100`,
// and after the last chunk the server closes the socket anyway.
//
// With waitNext, it closes only once the client's next request has arrived on that
// connection (after dead more): the client always finds the connection dead, as it does
// against llama-server whenever it takes the connection from its pool before the close
// reaches it. Otherwise it closes right after the answer, as llama-server does.
type llamaServer struct {
	waitNext bool
	dead     time.Duration

	conns    atomic.Int32 // connections accepted
	answers  atomic.Int32 // streams answered
	mu       sync.Mutex
	deadSeen []time.Time // when a request arrived on a connection about to close
}

func (ls *llamaServer) start(t *testing.T) Endpoint {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(ls.serve))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			ls.conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return Endpoint{BaseURL: srv.URL + "/v1", Model: "llama", Timeout: 5 * time.Second}
}

func (ls *llamaServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	conn, brw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	_, _ = brw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: keep-alive\r\n" +
		"Keep-Alive: timeout=5, max=100\r\nTransfer-Encoding: chunked\r\n\r\n")
	for _, ev := range []string{chunk(`{"role":"assistant","content":null}`), chunk(`{"content":"Hi"}`),
		chunk(`{"content":" there"}`), finishChunk("stop"), usageChunk(5, 2), done} {
		_, _ = fmt.Fprintf(brw, "%x\r\n%s\r\n", len(ev), ev)
		_ = brw.Flush()
	}
	_, _ = brw.WriteString("0\r\n\r\n")
	_ = brw.Flush()
	ls.answers.Add(1)
	if !ls.waitNext {
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := brw.Reader.Peek(1); err != nil {
		return // no next request on this connection (the client closed it)
	}
	ls.mu.Lock()
	ls.deadSeen = append(ls.deadSeen, time.Now())
	ls.mu.Unlock()
	time.Sleep(ls.dead)
}

// TestClientRetriesDeadKeepAliveConnection: against a server that closes its socket
// after every answer while it advertises Keep-Alive, every request succeeds: a request
// that finds its reused connection dead before any byte of its answer is sent once more
// on a new connection, is no error, and its TTFT holds none of the time spent on the
// dead connection: its t_send (TTFT's start) is the retry's, after the server held the
// dead connection for dead and closed it. (Checked by the order of the two moments, not
// by TTFT < dead: on a loaded machine under -race a dial and a first chunk can take
// that long.)
func TestClientRetriesDeadKeepAliveConnection(t *testing.T) {
	const dead = 300 * time.Millisecond
	ls := &llamaServer{waitNext: true, dead: dead}
	ep := ls.start(t)
	c, err := New(ep, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	const n = 4
	for i := range n {
		var p probe.Progress
		s := c.Stream(context.Background(), &p)
		if !s.OK() || s.Chunks != 2 || s.Tokens != 2 {
			t.Fatalf("request %d: Err %q (%s) chunks %d; want success", i, s.Err, s.ErrMsg, s.Chunks)
		}
		if ttft, ok := s.TTFT(); !ok || ttft <= 0 {
			t.Errorf("request %d: TTFT %v (%v)", i, ttft, ok)
		}
		if probe.MonoTime(p.Send.Load()) != s.Send {
			t.Errorf("request %d: Progress.Send %v, Sample.Send %v: want the retry's t_send in both", i, probe.MonoTime(p.Send.Load()), s.Send)
		}
		if i > 0 {
			ls.mu.Lock()
			seen := ls.deadSeen[len(ls.deadSeen)-1]
			ls.mu.Unlock()
			if closed := seen.Add(dead); s.Send.Before(closed) {
				ttft, _ := s.TTFT()
				t.Errorf("request %d: t_send %v is before the dead connection closed (%v, %v after the request reached it): its TTFT %v holds time spent on it",
					i, s.Send, closed, dead, ttft)
			}
		}
	}
	if got := ls.answers.Load(); got != n {
		t.Errorf("the server answered %d streams, want %d", got, n)
	}
	// Request 0 dials; 1 finds that connection dead and retries on a new one, which keeps
	// no connection; 2 dials again; 3 finds that one dead and retries: 4 connections.
	if ls.conns.Load() != 4 || len(ls.deadSeen) != 2 {
		t.Errorf("%d connections, %d requests on a dead one; want 4 and 2", ls.conns.Load(), len(ls.deadSeen))
	}
}

// TestClientLlamaServerUnderLoad: the same server closing right after each answer, with
// several streams at once and requests sent back to back, as the pool sends them.
func TestClientLlamaServerUnderLoad(t *testing.T) {
	ls := &llamaServer{}
	c, err := New(ls.start(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	var failed atomic.Int32
	var first atomic.Value
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				if s := c.Stream(context.Background(), nil); !s.OK() {
					failed.Add(1)
					first.CompareAndSwap(nil, string(s.Err)+": "+s.ErrMsg)
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f != 0 {
		t.Fatalf("%d of 200 requests failed (first: %v); want none", f, first.Load())
	}
}

// TestClientNoRetryAfterAnswerStarted: a reused connection that breaks after the answer
// began is the server's failure: no retry, the request is truncated.
func TestClientNoRetryAfterAnswerStarted(t *testing.T) {
	var calls atomic.Int32
	ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if calls.Add(1) == 1 {
			_, _ = io.WriteString(w, chunk(`{"content":"a"}`)+finishChunk("stop")+done)
			return
		}
		_, _ = io.WriteString(w, chunk(`{"content":"a"}`))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	c, err := New(ep, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	if s := c.Stream(context.Background(), nil); !s.OK() {
		t.Fatalf("first: Err %q (%s)", s.Err, s.ErrMsg)
	}
	s := c.Stream(context.Background(), nil)
	if s.Err != model.ErrTruncated || calls.Load() != 2 {
		t.Fatalf("second: Err %q (%s) after %d calls; want truncated, no retry", s.Err, s.ErrMsg, calls.Load())
	}
}
