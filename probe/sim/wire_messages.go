package sim

import "strconv"

// messagesWire writes a Messages API stream (Anthropic's, as llama.cpp's server and
// vLLM serve it): every event has an `event:` line naming its type before its data.
//
//	event: message_start         {"type":"message_start","message":{...,"usage":{"input_tokens":N,"output_tokens":1}}}
//	event: content_block_start   {"type":"content_block_start","index":0,"content_block":{"type":"thinking",...}}
//	event: ping                  {"type": "ping"}
//	event: content_block_delta   {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"..."}}
//	event: content_block_delta   {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"..."}}
//	event: content_block_stop    {"type":"content_block_stop","index":0}
//	event: content_block_start   {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}
//	event: content_block_delta   {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"..."}}
//	event: content_block_stop    {"type":"content_block_stop","index":1}
//	event: message_delta         {"type":"message_delta","delta":{"stop_reason":"end_turn",...},"usage":{"output_tokens":N}}
//	event: message_stop          {"type":"message_stop"}
//
// Usage comes only at the end (message_delta's output_tokens); message_start's
// input_tokens is the prompt. A dropped stream ends with an error event
// (overloaded_error), as Anthropic's API does, not with a cut connection.
type messagesWire struct {
	id        uint64
	modelJSON []byte
	base      int
	block     int  // blocks opened so far
	open      byte // the open block: 0 none, 't' thinking, 'x' text
	prompt    int
}

// event appends `event: name` and the start of its data line.
func event(b []byte, name string) []byte {
	b = append(b, "event: "...)
	b = append(b, name...)
	return append(b, "\ndata: "...)
}

func (m *messagesWire) start(b []byte) []byte {
	b = event(b, "message_start")
	b = append(b, `{"type":"message_start","message":{"id":"msg_`...)
	b = appendHex16(b, m.id)
	b = append(b, `","type":"message","role":"assistant","content":[],"model":`...)
	b = append(b, m.modelJSON...)
	b = append(b, `,"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(m.prompt), 10)
	return append(b, `,"output_tokens":1}}}`+"\n\n"...)
}

// openBlock closes the open block and opens one of kind ('t' or 'x').
func (m *messagesWire) openBlock(b []byte, kind byte) []byte {
	if m.open == kind {
		return b
	}
	if m.open == 't' {
		b = event(b, "content_block_delta")
		b = append(b, `{"type":"content_block_delta","index":`...)
		b = strconv.AppendInt(b, int64(m.block-1), 10)
		b = append(b, `,"delta":{"type":"signature_delta","signature":"c2ltdWxhdGVk"}}`+"\n\n"...)
	}
	b = m.closeBlock(b)
	b = event(b, "content_block_start")
	b = append(b, `{"type":"content_block_start","index":`...)
	b = strconv.AppendInt(b, int64(m.block), 10)
	if kind == 't' {
		b = append(b, `,"content_block":{"type":"thinking","thinking":"","signature":""}}`+"\n\n"...)
	} else {
		b = append(b, `,"content_block":{"type":"text","text":""}}`+"\n\n"...)
	}
	if m.block == 0 {
		b = append(b, "event: ping\ndata: {\"type\": \"ping\"}\n\n"...)
	}
	m.block++
	m.open = kind
	return b
}

func (m *messagesWire) closeBlock(b []byte) []byte {
	if m.open == 0 {
		return b
	}
	b = event(b, "content_block_stop")
	b = append(b, `{"type":"content_block_stop","index":`...)
	b = strconv.AppendInt(b, int64(m.block-1), 10)
	m.open = 0
	return append(b, "}\n\n"...)
}

func (m *messagesWire) tokens(b []byte, from, to int, reasoning bool, _ string) []byte {
	kind, delta := byte('x'), `,"delta":{"type":"text_delta","text":"`
	if reasoning {
		kind, delta = 't', `,"delta":{"type":"thinking_delta","thinking":"`
	}
	b = m.openBlock(b, kind)
	b = event(b, "content_block_delta")
	b = append(b, `{"type":"content_block_delta","index":`...)
	b = strconv.AppendInt(b, int64(m.block-1), 10)
	b = append(b, delta...)
	b = appendWords(b, m.base, from, to)
	return append(b, "\"}}\n\n"...)
}

func (m *messagesWire) end(b []byte, _, completion int, _ bool, finish string) []byte {
	b = m.closeBlock(b)
	reason := "end_turn"
	if finish == "length" {
		reason = "max_tokens"
	}
	b = event(b, "message_delta")
	b = append(b, `{"type":"message_delta","delta":{"stop_reason":"`...)
	b = append(b, reason...)
	b = append(b, `","stop_sequence":null},"usage":{"output_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, "}}\n\n"...)
	b = event(b, "message_stop")
	return append(b, `{"type":"message_stop"}`+"\n\n"...)
}

func (m *messagesWire) cut(b []byte) ([]byte, bool) {
	b = event(b, "error")
	return append(b, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`+"\n\n"...), false
}

func (m *messagesWire) fail(b []byte) []byte {
	b, _ = m.cut(b)
	return b
}
