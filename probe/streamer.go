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
