package probe

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// epoch anchors Mono: a process-wide monotonic origin.
var epoch = time.Now()

// Mono returns monotonic nanoseconds since the process epoch (cheap, storable in an atomic).
func Mono() int64 { return int64(time.Since(epoch)) }

// MonoTime converts a Mono reading back into a time.Time with a monotonic reading.
func MonoTime(ns int64) time.Time { return epoch.Add(time.Duration(ns)) }

// Progress is the live view of one in-flight stream, written by the goroutine that reads
// the stream and read by the pool's collector. The per-token path touches only Chunks.
type Progress struct {
	Chunks atomic.Int64 // token-bearing events received so far
	First  atomic.Int64 // Mono() at the first token-bearing event, 0 before it
	Send   atomic.Int64 // Mono() at t_send, 0 before it
}

// Streamer sends one streamed request and reports it; the pool depends only on this,
// so its tests can use a fake. Stream must return when ctx is canceled (Err = model.ErrCanceled).
type Streamer interface {
	Stream(ctx context.Context, p *Progress) model.Sample
}

// Client streams completions from one Endpoint (implemented in the client worktree).
type Client struct {
	// implemented in the client worktree
}

// NewClient builds the client for ep, with an HTTP connection pool sized for conns
// concurrent streams. It validates ep (URL, API) and returns an error that says what is
// wrong and what to do.
func NewClient(ep Endpoint, conns int) (*Client, error) { panic("not implemented") }

// Stream implements Streamer.
func (c *Client) Stream(ctx context.Context, p *Progress) model.Sample { panic("not implemented") }

// Preflight checks that the endpoint answers within a few seconds: GET {BaseURL}/models.
// It returns the model names served. A connection failure, a TLS failure or a 401/403 is an
// error naming the URL and the cause (never the key); a 404 or a non-JSON answer is not
// (some servers have no /models) and returns no names.
func Preflight(ctx context.Context, ep Endpoint) (models []string, err error) {
	panic("not implemented")
}
