package sim

import (
	"context"
	"net/http"
	"time"
)

// stream writes an accepted request's SSE events as the scheduler publishes tokens.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, q *seq, p *plan, a api, prompt int, usage bool, arrival time.Time) {
	defer q.gone.Store(true)            // whatever happens, the scheduler may drop the sequence
	rc := http.NewResponseController(w) // flushes through wrapping middleware too
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := &events{
		f:      newWire(a, s.ids.Add(1)^uint64(s.cfg.Seed)<<40, time.Now().Unix(), s.modelJSON, p.base, prompt),
		p:      p,
		k:      s.cfg.TokensPerChunk,
		prompt: prompt,
		usage:  usage,
	}
	buf := e.f.start(make([]byte, 0, 1024))
	if a.reasons() {
		// At most half the answer thinks, so that a short max_tokens still shows an
		// answer (and a time to first answer token after the first token).
		e.reasoning = min(s.cfg.ReasoningTokens, p.target/2)
	}
	if _, err := w.Write(buf); err != nil {
		return
	}
	_ = rc.Flush()
	for {
		select {
		case <-q.notify:
		case <-ctx.Done():
			s.stats.errs[errCanceled].Add(1)
			return
		case <-s.quit:
			return
		}
		from := e.sent
		var drop bool
		buf, drop = e.next(buf[:0], int(q.gen.Load()))
		if len(buf) > 0 {
			_, err := w.Write(buf)
			if err == nil {
				err = rc.Flush()
			}
			if err != nil {
				s.stats.errs[errCanceled].Add(1)
				return
			}
		}
		if e.sent > from {
			if from == 0 {
				s.stats.recordTTFT(time.Since(arrival))
			}
			s.stats.tokens.Add(int64(e.sent - from))
		}
		if drop {
			s.stats.errs[errDropped].Add(1)
			q.gone.Store(true)
			if b, abort := e.f.cut(buf[:0]); !abort {
				_, _ = w.Write(b) // an error event ends the stream (Messages, Responses)
				_ = rc.Flush()
				return
			}
			panic(http.ErrAbortHandler) // net/http closes the connection: the client sees a cut
		}
		if e.sent == p.target {
			s.stats.completed.Add(1)
			return
		}
	}
}

// events turns a sequence's generated tokens into its stream's SSE events.
type events struct {
	f         wire
	p         *plan
	k         int  // tokens per event
	reasoning int  // the first tokens sent as reasoning
	prompt    int  // prompt tokens, for the usage event
	usage     bool // send a usage event before [DONE]
	sent      int  // tokens sent so far
}

// next appends to buf the events for the tokens generated up to gen: k tokens per
// event, reasoning and answer in separate events, the finish reason on the last one,
// then the usage event and [DONE]. drop is true when the plan cuts the stream here;
// the tokens from the cut on are not appended.
func (e *events) next(buf []byte, gen int) (_ []byte, drop bool) {
	p := e.p
	for e.sent < gen {
		end := min((e.sent/e.k+1)*e.k, gen)
		if e.sent < e.reasoning && end > e.reasoning {
			end = e.reasoning
		}
		if p.dropAt > 0 && (e.sent >= p.dropAt || end == p.target) {
			drop = true
			break
		}
		finish := ""
		if end == p.target {
			finish = p.finish
		}
		buf = e.f.tokens(buf, e.sent, end, e.sent < e.reasoning, finish)
		e.sent = end
	}
	if p.dropAt > 0 && e.sent >= p.dropAt {
		drop = true
	}
	if e.sent == p.target {
		buf = e.f.end(buf, e.prompt, p.target, e.usage, p.finish)
	}
	return buf, drop
}
