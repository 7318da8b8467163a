package client

import (
	"context"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/tpsmon/tpsmon/probe"
)

// reqState is one request's shared state between Stream, httptrace and the watchdog timer.
type reqState struct {
	p       *probe.Progress
	send    int64 // probe.Mono() at t_send (stamped again when the request is retried)
	status  int
	headers atomic.Int64 // probe.Mono() at the first response byte
	alive   atomic.Int64 // probe.Mono() when the server last showed life (send, headers, bytes)
	reused  atomic.Bool  // the request went out on a connection that served an earlier one
	body    []byte       // the request's body when the caller chose it (StreamCall); nil: the client's next

	timeout  time.Duration
	grain    int64 // aliveGrain(timeout): how stale the reader may leave alive
	timer    *time.Timer
	cancel   context.CancelCauseFunc
	stopped  atomic.Bool
	timedOut atomic.Bool
}

// watch is the watchdog: instead of resetting a timer per event, the reader only stores
// the time of its last read, and the timer, when it fires, either cancels the request
// (quiet for the whole timeout) or re-arms itself for the remaining time.
func (rs *reqState) watch() {
	if rs.stopped.Load() {
		return
	}
	limit := rs.timeout + time.Duration(rs.grain)
	idle := time.Duration(probe.Mono() - rs.alive.Load())
	if idle >= limit {
		rs.timedOut.Store(true)
		rs.cancel(errIdle)
		return
	}
	rs.timer.Reset(limit - idle)
}

// aliveGrain is how stale the stream reader may leave reqState.alive: it stores the time
// of a read only when the time it stored last is at least this old, so that the per-read
// path seldom writes the word the watchdog reads (an atomic store costs more than the
// rest of the read of an event). The watchdog waits for timeout + grain of apparent
// quiet, so a request is never canceled before it was quiet for the whole timeout, and
// at most grain after: at most 1/64 of the timeout and 250 ms.
func aliveGrain(timeout time.Duration) int64 {
	return int64(min(timeout/64, 250*time.Millisecond))
}

// trace returns the httptrace hooks that stamp t_headers and note a reused connection.
func (rs *reqState) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { rs.reused.Store(info.Reused) },
		GotFirstResponseByte: func() {
			now := probe.Mono()
			rs.headers.Store(now)
			rs.alive.Store(now)
		},
	}
}
