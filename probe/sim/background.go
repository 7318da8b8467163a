package sim

import (
	"sync"
	"time"
)

// otherClient is another client of the server (Config.OtherUsers): it keeps its streams
// decoding, one request after another, like any client's. Their tokens count in
// /metrics (generation_tokens_total), they hold slots and KV cache, and nobody
// receives them: a client of the simulator sees a server busier than its own load.
type otherClient struct {
	wg sync.WaitGroup
}

// The other client's requests.
const (
	otherPrompt = 128 // prompt tokens
	otherAnswer = 256 // output tokens
)

// startOtherClient starts n streams of another client on s (nil when n is 0).
func startOtherClient(s *Server, n int) *otherClient {
	if n <= 0 {
		return nil
	}
	c := &otherClient{}
	for range n {
		c.wg.Go(func() { c.loop(s) })
	}
	return c
}

// loop sends one request after another until the server closes.
func (c *otherClient) loop(s *Server) {
	for {
		q := newSeq(otherPrompt, otherAnswer, 0)
		select {
		case s.sched.submit <- q:
		case <-s.quit:
			return
		}
		select {
		case ok := <-q.verdict:
			if !ok { // the queue is full: try again a little later, as a client would
				select {
				case <-time.After(100 * time.Millisecond):
					continue
				case <-s.quit:
					return
				}
			}
		case <-s.quit:
			return
		}
		for q.gen.Load() < otherAnswer {
			select {
			case <-q.notify:
			case <-s.quit:
				return
			}
		}
		q.gone.Store(true)
	}
}

// wait returns once the other client's streams have ended (after the server closed).
func (c *otherClient) wait() {
	if c != nil {
		c.wg.Wait()
	}
}
