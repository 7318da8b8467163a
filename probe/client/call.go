package client

import (
	"context"
	"encoding/json"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

var _ probe.CallStreamer = (*Client)(nil)

// StreamCall implements probe.CallStreamer: it sends the request the pool chose (a
// trace's line, a conversation's turn) in the API's shape over the client's template
// (model, extra body, ignore_eos), and reads it to the end as Stream does. When the
// request keeps its answer, the answer's text is appended to c.Answer: this decodes each
// answer event's text once more (a few allocations per token), only for live history.
func (c *Client) StreamCall(ctx context.Context, p *probe.Progress, call *probe.Call) model.Sample {
	var keep *[]byte
	if call.Req.KeepAnswer {
		keep = &call.Answer
	}
	return c.stream(ctx, p, c.calls.bodyOf(call.Req), keep)
}

// appendAnswer appends the answer text an event carries (its content, text or delta,
// by API) to dst.
func appendAnswer(dst, payload []byte, api string) []byte {
	switch api {
	case APIMessages:
		var ev struct {
			Delta struct {
				Text string `json:"text"`
			} `json:"delta"`
		}
		if json.Unmarshal(payload, &ev) == nil {
			dst = append(dst, ev.Delta.Text...)
		}
	case APIResponses:
		var ev struct {
			Delta string `json:"delta"`
		}
		if json.Unmarshal(payload, &ev) == nil {
			dst = append(dst, ev.Delta...)
		}
	default:
		var ev struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				Text string `json:"text"`
			} `json:"choices"`
		}
		if json.Unmarshal(payload, &ev) == nil {
			for _, ch := range ev.Choices {
				dst = append(append(dst, ch.Delta.Content...), ch.Text...)
			}
		}
	}
	return dst
}
