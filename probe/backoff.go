package probe

import (
	"context"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// Backoff after failures that delivered no token: a worker whose request failed fast
// (connection refused, HTTP 4xx/5xx before any token) waits before its next send instead
// of hammering a down endpoint thousands of times a second. The wait is taken before
// t_send, so it never enters TTFT; it doubles from minBackoff to maxBackoff and ends at
// the first request that succeeds or delivers a token.
const (
	minBackoff = 50 * time.Millisecond
	maxBackoff = time.Second
)

// nextBackoff is the wait before the next send after sample s, given the current wait.
func nextBackoff(cur time.Duration, s *model.Sample) time.Duration {
	if s.OK() || s.Err == model.ErrCanceled || s.Chunks > 0 {
		return 0
	}
	if cur < minBackoff {
		return minBackoff
	}
	return min(2*cur, maxBackoff)
}

// sleep waits d; it returns false when Stop or ctx ended the wait early.
func (p *Pool) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-p.stopCh:
		return false
	}
}
