package probe

import "context"

// RunAll runs several pools (one per endpoint) with one shared event channel and returns
// it; the channel is closed once every pool has sent its last event. Each Event carries
// its pool's Endpoint. RunAll sets every pool's output to the shared channel, whatever
// WithOutput said: pass pools that were not Run yet (a pool already running keeps its
// own channel, and RunAll still waits for it to end before closing the shared one).
// The consumer must read the channel until it is closed (see Pool).
func RunAll(ctx context.Context, pools []*Pool) <-chan Event {
	out := make(chan Event, DefaultBuffer)
	for _, p := range pools {
		p.setOutput(out)
		p.Run(ctx)
	}
	go func() {
		for _, p := range pools {
			<-p.Done()
		}
		close(out)
	}()
	return out
}

// StopAll stops every pool (see Pool.Stop). It does not block.
func StopAll(pools []*Pool) {
	for _, p := range pools {
		p.Stop()
	}
}

// setOutput points a pool that is not running yet at a channel it does not own.
func (p *Pool) setOutput(ch chan Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.running {
		p.out, p.ownOut = ch, false
	}
}
