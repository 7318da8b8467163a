package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

// result is what the read loop learned about one stream. The fields every event touches
// come first, in 64 bytes, and the gaps not yet counted after them: the stream's stack
// is out of the CPU's cache by the time its next event arrives when hundreds stream at
// once, and each cache line of it touched then is a miss.
type result struct {
	chunks      int
	dataLines   int // data lines read (with or without a payload)
	first, last int64
	maxGap      int64
	npend       int
	firstAnswer int64
	answer      *[]byte         // the answer's text is appended here when kept (live history)
	pend        [gapBatch]int64 // gaps not yet in gaps (see addGap)

	end                  int64
	tokens, promptTokens int
	usage                bool
	gaps                 *model.GapSketch // every chunk gap: one allocation per request
	finish               string
	status               int
	kind                 model.ErrorKind
	msg                  string
	retryAfter           time.Duration // a failure's Retry-After
	done                 bool          // a `data: [DONE]` line arrived
}

// read reads the stream to its end. This is the per-event path: one line from the
// buffer, a decode that allocates nothing for the common content delta, and one atomic
// add; the clock is read once per read of the body, by sr. Everything else (the end of
// the body, [DONE], events the fast path does not decide) is in functions of their own,
// so that read's frame, whose cache lines a stream touches again at every event, holds
// only what the common event needs.
func (c *Client) read(ctx context.Context, sr *lineReader, rs *reqState, r *result) {
	dec := decoder{completions: c.api == APICompletions, api: c.api}
	p := rs.p
	errEvent := false // the event being read is an `event: error`
	for {
		line, ok := sr.line()
		// Bring the live count into the CPU's cache now, so that it arrives while the
		// event is decoded: at 1,000 streams, most of read's own time was the atomic add
		// stalling on a cache miss.
		_ = p.Chunks.Load()
		if !ok {
			c.endOfBody(ctx, sr, rs, r)
			return
		}
		if len(line) == 0 {
			errEvent = false // a blank line ends an event
			continue
		}
		field, payload := sseField(line)
		if string(field) != "data" {
			if string(field) == "event" {
				errEvent = string(payload) == "error"
			}
			continue // comments (": ping"), id:, retry:
		}
		r.dataLines++
		if c.chunkAPI && !errEvent {
			// The common event, a content delta: the fast path's two flags are all that
			// apply would take from it. It never takes an empty payload or [DONE].
			if token, answer, ok := fastChunk(payload); ok {
				if token {
					r.token(sr.now, answer, p)
					if r.answer != nil && answer {
						*r.answer = appendAnswer(*r.answer, payload, c.api)
					}
				}
				continue
			}
		}
		if c.event(ctx, &dec, sr.now, payload, errEvent, rs, r) {
			return
		}
	}
}

// endOfBody ends a stream whose body ended or failed before [DONE] was read as a line.
func (c *Client) endOfBody(ctx context.Context, sr *lineReader, rs *reqState, r *result) {
	r.end = probe.Mono()
	if isDoneLine(sr.rest()) { // [DONE] without a line end, then the end of the body
		r.done = true
	}
	c.endErr(ctx, sr.err, rs, r, sr.headBytes())
}

// event takes a data payload that arrived at now and that the fast path did not decide
// into r: an empty payload, [DONE], or an event for the decoder. It reports whether the
// stream is over.
func (c *Client) event(ctx context.Context, dec *decoder, now int64, payload []byte, errEvent bool, rs *reqState, r *result) bool {
	if len(payload) == 0 {
		if errEvent {
			r.end, r.kind, r.msg = now, model.ErrStream, "stream_error: the server sent an error event in the stream"
			return true
		}
		return false
	}
	if payload[0] == '[' && string(payload) == "[DONE]" {
		r.end, r.done = now, true
		c.endErr(ctx, nil, rs, r, nil)
		return true
	}
	info, derr := dec.decode(payload)
	if derr != nil {
		r.end, r.kind = now, model.ErrProtocol
		r.msg = "protocol: an event is not valid JSON: " + c.redact.line(payload, 120)
		if errEvent {
			r.kind = model.ErrStream
			r.msg = "stream_error: the server sent an error event: " + c.redact.line(payload, 200)
		}
		return true
	}
	return c.apply(ctx, rs, rs.p, r, &info, payload, now, errEvent)
}

// apply takes what one event said into the result: a token, the finish, usage, an
// error or the end of the stream. It reports whether the stream is over. p is rs.p,
// which the read loop holds: reading it from rs here cost a cache miss per event at
// 256 streams (rs is touched by nothing else while the stream reads).
func (c *Client) apply(ctx context.Context, rs *reqState, p *probe.Progress, r *result, info *eventInfo, payload []byte, now int64, errEvent bool) bool {
	if info.token {
		r.token(now, info.answer, p)
		if r.answer != nil && info.answer {
			*r.answer = appendAnswer(*r.answer, payload, c.api)
		}
	}
	if info.finish != "" {
		r.finish = info.finish
	}
	if info.promTok > 0 {
		r.promptTokens = info.promTok // usage's, or message_start's before it
	}
	if info.usage {
		r.usage, r.tokens = true, info.compTok
	}
	if info.isErr || errEvent {
		msg := info.errMsg
		if msg == "" {
			msg = "the server sent an error event: " + string(payload)
		}
		r.end, r.kind, r.msg = now, model.ErrStream, "stream_error: "+c.redact.line([]byte(msg), 300)
		return true
	}
	if info.done {
		r.end, r.done = now, true
		c.endErr(ctx, nil, rs, r, nil)
		return true
	}
	return false
}

// token counts a token-bearing event that arrived at now: the live count, the first
// token, the chunk gap since the previous one and the first answer token.
func (r *result) token(now int64, answer bool, p *probe.Progress) {
	r.chunks++
	p.Chunks.Add(1)
	if r.first == 0 {
		r.first = now
		p.First.Store(now)
	} else {
		r.maxGap = max(r.maxGap, now-r.last)
		r.addGap(now - r.last)
	}
	r.last = now
	if answer && r.firstAnswer == 0 {
		r.firstAnswer = now
	}
}

// isDoneLine reports whether b is a `data: [DONE]` line.
func isDoneLine(b []byte) bool {
	field, v := sseField(b)
	return string(field) == "data" && string(v) == "[DONE]"
}

// endErr classifies the end of a stream: [DONE] (r.done), the end of the body (io.EOF)
// or a read error. head is the start of the body (to tell a body that is not an event
// stream), nil when not needed.
func (c *Client) endErr(ctx context.Context, err error, rs *reqState, r *result, head []byte) {
	switch {
	case isCanceled(ctx) && !r.done && r.finish == "":
		// Our own cancel (quit, Ctrl-C) closed the stream: the body may end with a clean
		// io.EOF, which must not read as the server's truncation.
		r.kind, r.msg = model.ErrCanceled, "canceled by tpsmon"
	case r.done || errors.Is(err, io.EOF):
		switch {
		case r.finish == "abort" || r.finish == "error":
			// vLLM ends a request its engine dropped with finish_reason "abort"; some
			// servers say "error". The answer is cut short: a failure, not a success.
			r.kind = model.ErrStream
			r.msg = fmt.Sprintf("stream_error: the server ended the stream with finish_reason %q after %d chunks", r.finish, r.chunks)
		case r.done || r.finish != "":
			// success
		case r.dataLines == 0 && !looksLikeSSE(head):
			r.kind = model.ErrProtocol
			r.msg = "protocol: the server answered 200 but not with an event stream: " + c.redact.line(head, 120)
		default:
			r.kind = model.ErrTruncated
			r.msg = fmt.Sprintf("truncated: the server closed the stream after %d chunks without a finish_reason or [DONE]", r.chunks)
		}
	case isCanceled(ctx):
		r.kind, r.msg = model.ErrCanceled, "canceled by tpsmon"
	case rs.timedOut.Load():
		r.kind, r.msg = model.ErrTimeout, timeoutMessage(c.timeout, true, r.chunks)
	case errors.Is(err, errLineTooLong):
		r.kind, r.msg = model.ErrProtocol, "protocol: "+errLineTooLong.Error()
	default:
		r.kind = model.ErrTruncated
		r.msg = fmt.Sprintf("truncated: the connection broke after %d chunks (%s)", r.chunks, c.redact.clean(innermost(err)))
	}
}

// gapBatch is how many gaps a result keeps before it counts them in its sketch.
const gapBatch = 16

// addGap keeps a chunk gap in the result, beside the fields every event touches, and
// counts a batch of them in the sketch at once (flushGaps). The sketch (about 0.9 KB a
// request) is out of the CPU's cache by a request's next chunk when hundreds stream
// at once: counting each gap there cost a cache miss per event, about 3% of the
// client's CPU at 256 streams; a stream's gaps are alike, so a batch of 16 lands in one
// or two of its buckets.
func (r *result) addGap(d int64) {
	r.pend[r.npend] = d
	r.npend++
	if r.npend == gapBatch {
		r.flushGaps()
	}
}

// flushGaps counts the kept gaps in the sketch. The stream's end calls it before the
// sketch is read.
func (r *result) flushGaps() {
	for _, d := range r.pend[:r.npend] {
		r.gaps.Add(time.Duration(d))
	}
	r.npend = 0
}
