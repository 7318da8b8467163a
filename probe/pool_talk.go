package probe

import (
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/workload"
)

// talkMode makes each closed-loop worker a user in a conversation: it sends the
// conversation's turns one after another, each carrying the history, with a think
// time between them, then begins the next conversation.
type talkMode struct {
	src   *workload.Conversations
	think time.Duration
}

// WithConversations makes every user of the closed loop play the conversations of src
// turn by turn (see workload.Conversations), pausing think between a turn's answer and
// the next turn (before its t_send: never part of TTFT). A turn that fails ends its
// conversation: the user begins the next one. The pool's Streamer must be a
// CallStreamer.
func WithConversations(src *workload.Conversations, think time.Duration) Option {
	return func(p *Pool) { p.talk = &talkMode{src: src, think: max(think, 0)} }
}

// nextTurn is a worker's next call in its conversation (a new conversation when it has
// none or its conversation is over) and the wait before it (the think time before a
// later turn).
func (m *talkMode) nextTurn(t *workload.Talk) (*Call, *workload.Talk, time.Duration) {
	if t != nil {
		if req, ok := t.Next(); ok {
			return &Call{Req: req}, t, m.think
		}
	}
	t = m.src.Begin()
	req, _ := t.Next() // a conversation has at least one turn
	return &Call{Req: req}, t, 0
}

// answered hands the turn's outcome to its conversation: the answer's text for live
// history, or the end of the conversation when the turn failed.
func (m *talkMode) answered(t *workload.Talk, c *Call, s *model.Sample) *workload.Talk {
	s.Turn = c.Req.Turn
	if !s.OK() {
		return nil
	}
	if c.Req.KeepAnswer {
		t.Answer(string(c.Answer))
	}
	return t
}
