package sim

import (
	"context"
	"net/http"
	"time"
)

// stream writes an accepted request's SSE events as the scheduler publishes tokens.
// With Config.BufferAnswers the answer, headers included, is held until it is
// complete and then written at once, as a buffering proxy does.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, q *seq, p *plan, a api, prompt int, usage bool, arrival time.Time) {
	defer q.gone.Store(true) // whatever happens, the scheduler may drop the sequence
	out := &sseOut{w: w, rc: http.NewResponseController(w), hold: s.cfg.BufferAnswers}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
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
	if out.write(buf) != nil {
		return
	}
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
		var end streamEnd
		buf, end = e.next(buf[:0], int(q.gen.Load()))
		if e.sent > from {
			if from == 0 {
				s.stats.recordTTFT(time.Since(arrival))
			}
			s.stats.tokens.Add(int64(e.sent - from))
		}
		if len(buf) > 0 && out.write(buf) != nil {
			s.stats.errs[errCanceled].Add(1)
			return
		}
		switch end {
		case endDrop:
			s.stats.errs[errDropped].Add(1)
			q.gone.Store(true)
			if b, abort := e.f.cut(buf[:0]); !abort {
				_ = out.write(b) // an error event ends the stream (Messages, Responses)
				_ = out.flush()
				return
			}
			panic(http.ErrAbortHandler) // net/http closes the connection: the client sees a cut
		case endError:
			s.stats.errs[errStream].Add(1)
			_ = out.flush()
			return
		case endDone:
			s.stats.completed.Add(1)
			_ = out.flush()
			return
		}
	}
}

// sseOut writes a stream's events: each flushed at once, or all held until flush
// (a buffering proxy).
type sseOut struct {
	w       http.ResponseWriter
	rc      *http.ResponseController // flushes through wrapping middleware too
	hold    bool
	held    []byte
	started bool
}

// write sends b now, or holds it.
func (o *sseOut) write(b []byte) error {
	if o.hold {
		o.held = append(o.held, b...)
		return nil
	}
	if !o.started {
		o.w.WriteHeader(http.StatusOK)
		o.started = true
	}
	if _, err := o.w.Write(b); err != nil {
		return err
	}
	return o.rc.Flush()
}

// flush sends what was held, headers first: the whole answer at once.
func (o *sseOut) flush() error {
	if !o.hold {
		return nil
	}
	o.hold = false
	b := o.held
	o.held = nil
	return o.write(b)
}

// streamEnd is how a stream's events end, if they do.
type streamEnd int

const (
	endNot   streamEnd = iota
	endDone            // the last token, the usage event and [DONE] are appended
	endDrop            // the plan cuts the stream here (no more events)
	endError           // the plan ends the stream with an in-band error, then [DONE]
)

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
// then the usage event and [DONE]. It says how the stream ends when it does: endDrop
// when the plan cuts it here (the tokens from the cut on are not appended), endError
// when the plan ends it with an in-band error event (appended, in the API's form).
func (e *events) next(buf []byte, gen int) (_ []byte, end streamEnd) {
	p := e.p
	for e.sent < gen {
		stop := min((e.sent/e.k+1)*e.k, gen)
		if e.sent < e.reasoning && stop > e.reasoning {
			stop = e.reasoning
		}
		if p.errAt > e.sent && stop > p.errAt {
			stop = p.errAt // the error comes after exactly errAt tokens
		}
		if p.dropAt > 0 && (e.sent >= p.dropAt || stop == p.target) {
			return buf, endDrop
		}
		if p.errAt > 0 && e.sent >= p.errAt {
			return e.f.fail(buf), endError
		}
		finish := ""
		if stop == p.target {
			finish = p.finish
		}
		buf = e.f.tokens(buf, e.sent, stop, e.sent < e.reasoning, finish)
		e.sent = stop
	}
	if p.dropAt > 0 && e.sent >= p.dropAt {
		return buf, endDrop
	}
	if e.sent == p.target {
		return e.f.end(buf, e.prompt, p.target, e.usage, p.finish), endDone
	}
	return buf, endNot
}
