package sim

import "strconv"

// responsesWire writes a Responses API stream (OpenAI's, as llama.cpp's server, vLLM
// and Ollama serve it): `event:` lines before each data line, a sequence_number in
// every event, reasoning in its own output item before the message:
//
//	response.created, response.in_progress                     (no token)
//	response.output_item.added {"item":{"type":"reasoning",...}}
//	response.reasoning_text.delta {"delta":"..."}                 reasoning tokens
//	response.reasoning_text.done, response.output_item.done
//	response.output_item.added {"item":{"type":"message",...}}, response.content_part.added
//	response.output_text.delta {"delta":"...","logprobs":[]}     answer tokens
//	response.output_text.done, response.content_part.done, response.output_item.done
//	response.completed {"response":{...,"usage":{"input_tokens":N,"output_tokens":M,...}}}
//
// An answer cut by max_output_tokens ends with response.incomplete (status
// "incomplete", incomplete_details.reason "max_output_tokens") instead of
// response.completed. A dropped stream ends with response.failed.
type responsesWire struct {
	id        uint64
	created   int64
	modelJSON []byte
	base      int
	seq       int
	item      byte // the open output item: 0 none, 'r' reasoning, 'm' message
	items     int  // output items opened
	from      int  // the open item's first token
}

func newResponsesWire(id uint64, created int64, modelJSON []byte, base int) *responsesWire {
	return &responsesWire{id: id, created: created, modelJSON: modelJSON, base: base}
}

// ev appends `event: name`, then the data line's start up to and including the
// sequence number: {"type":"name","sequence_number":N
func (r *responsesWire) ev(b []byte, name string) []byte {
	b = event(b, name)
	b = append(b, `{"type":"`...)
	b = append(b, name...)
	b = append(b, `","sequence_number":`...)
	b = strconv.AppendInt(b, int64(r.seq), 10)
	r.seq++
	return b
}

// response appends the response object with its status, and its usage when given.
func (r *responsesWire) response(b []byte, status string, usage bool, prompt, completion int) []byte {
	b = append(b, `,"response":{"id":"resp_`...)
	b = appendHex16(b, r.id)
	b = append(b, `","object":"response","created_at":`...)
	b = strconv.AppendInt(b, r.created, 10)
	b = append(b, `,"status":"`...)
	b = append(b, status...)
	b = append(b, `","model":`...)
	b = append(b, r.modelJSON...)
	switch status {
	case "incomplete":
		b = append(b, `,"incomplete_details":{"reason":"max_output_tokens"}`...)
	case "failed":
		b = append(b, `,"error":{"code":"server_error","message":"The server had an error while processing your request."}`...)
	}
	if !usage {
		return append(b, `,"output":[],"usage":null}}`+"\n\n"...)
	}
	b = append(b, `,"output":[],"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"input_tokens_details":{"cached_tokens":0},"output_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, `,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	return append(b, "}}}\n\n"...)
}

func (r *responsesWire) start(b []byte) []byte {
	b = r.response(r.ev(b, "response.created"), "in_progress", false, 0, 0)
	return r.response(r.ev(b, "response.in_progress"), "in_progress", false, 0, 0)
}

// itemID appends the open item's id.
func (r *responsesWire) itemID(b []byte) []byte {
	b = append(b, `,"item_id":"`...)
	if r.item == 'r' {
		b = append(b, "rs_"...)
	} else {
		b = append(b, "msg_"...)
	}
	b = appendHex16(b, r.id)
	b = strconv.AppendInt(b, int64(r.items), 10)
	b = append(b, `","output_index":`...)
	return strconv.AppendInt(b, int64(r.items-1), 10)
}

// openItem closes the open item (its done events carry its whole text, up to to) and
// opens one of kind ('r' or 'm') at token from.
func (r *responsesWire) openItem(b []byte, kind byte, from int) []byte {
	if r.item == kind {
		return b
	}
	b = r.closeItem(b, from)
	r.item, r.from = kind, from
	r.items++
	b = r.ev(b, "response.output_item.added")
	b = append(b, `,"output_index":`...)
	b = strconv.AppendInt(b, int64(r.items-1), 10)
	if kind == 'r' {
		b = append(b, `,"item":{"type":"reasoning","id":"rs_`...)
		b = appendHex16(b, r.id)
		b = strconv.AppendInt(b, int64(r.items), 10)
		return append(b, `","summary":[]}}`+"\n\n"...)
	}
	b = append(b, `,"item":{"type":"message","id":"msg_`...)
	b = appendHex16(b, r.id)
	b = strconv.AppendInt(b, int64(r.items), 10)
	b = append(b, `","status":"in_progress","role":"assistant","content":[]}}`+"\n\n"...)
	b = r.itemID(r.ev(b, "response.content_part.added"))
	return append(b, `,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}`+"\n\n"...)
}

// closeItem ends the open item, whose text is tokens [r.from, to).
func (r *responsesWire) closeItem(b []byte, to int) []byte {
	switch r.item {
	case 'r':
		b = r.itemID(r.ev(b, "response.reasoning_text.done"))
		b = append(b, `,"content_index":0,"text":"`...)
		b = appendWords(b, r.base, r.from, to)
		b = append(b, "\"}\n\n"...)
	case 'm':
		b = r.itemID(r.ev(b, "response.output_text.done"))
		b = append(b, `,"content_index":0,"text":"`...)
		b = appendWords(b, r.base, r.from, to)
		b = append(b, "\",\"logprobs\":[]}\n\n"...)
		b = r.itemID(r.ev(b, "response.content_part.done"))
		b = append(b, `,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}`+"\n\n"...)
	default:
		return b
	}
	b = r.ev(b, "response.output_item.done")
	b = append(b, `,"output_index":`...)
	b = strconv.AppendInt(b, int64(r.items-1), 10)
	r.item = 0
	return append(b, `,"item":{"status":"completed"}}`+"\n\n"...)
}

func (r *responsesWire) tokens(b []byte, from, to int, reasoning bool, _ string) []byte {
	if reasoning {
		b = r.openItem(b, 'r', from)
		b = r.itemID(r.ev(b, "response.reasoning_text.delta"))
		b = append(b, `,"content_index":0,"delta":"`...)
		b = appendWords(b, r.base, from, to)
		return append(b, "\"}\n\n"...)
	}
	b = r.openItem(b, 'm', from)
	b = r.itemID(r.ev(b, "response.output_text.delta"))
	b = append(b, `,"content_index":0,"delta":"`...)
	b = appendWords(b, r.base, from, to)
	return append(b, "\",\"logprobs\":[]}\n\n"...)
}

func (r *responsesWire) end(b []byte, prompt, completion int, _ bool, finish string) []byte {
	b = r.closeItem(b, completion)
	if finish == "length" {
		return r.response(r.ev(b, "response.incomplete"), "incomplete", true, prompt, completion)
	}
	return r.response(r.ev(b, "response.completed"), "completed", true, prompt, completion)
}

func (r *responsesWire) cut(b []byte) ([]byte, bool) {
	return r.response(r.ev(b, "response.failed"), "failed", false, 0, 0), false
}

func (r *responsesWire) fail(b []byte) []byte {
	b, _ = r.cut(b)
	return b
}
