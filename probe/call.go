package probe

import (
	"context"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// Call is one request the pool chose itself, for a Streamer that takes one
// (CallStreamer): a trace's line, by its index, or a conversation's next turn.
type Call struct {
	Req workload.Request
	// Answer is filled with the answer's text when Req.KeepAnswer: the conversation's
	// next turn carries it in its history (live history).
	Answer []byte
}

// CallStreamer is a Streamer that sends a Call the pool chose in place of its own next
// request. The pool's trace and conversation modes need one; Stream is used otherwise.
type CallStreamer interface {
	Streamer
	StreamCall(ctx context.Context, p *Progress, c *Call) model.Sample
}

// stream sends c when the pool chose the request (c != nil and the Streamer takes a
// Call), else the Streamer's own next request.
func (p *Pool) streamOne(ctx context.Context, prog *Progress, c *Call) model.Sample {
	if cs, ok := p.stream.(CallStreamer); ok && c != nil {
		return cs.StreamCall(ctx, prog, c)
	}
	return p.stream.Stream(ctx, prog)
}
