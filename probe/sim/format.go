package sim

import (
	"strconv"
	"strings"
)

// words is the text the simulator streams, one word per token, read in a loop from a
// random starting word. Every word is JSON-safe as is (no quotes, backslashes or control
// characters), so formatting an event is plain appends with no escaping.
var words = strings.Fields(`Continuous batching keeps the accelerator busy by letting new
requests join the running batch at every decode step instead of waiting for the whole
batch to finish. Each step reads every weight of the model once, so its cost grows only a
little with each sequence added, and the server produces one token for every active
sequence. A single user therefore sees the fastest stream, while the total number of
tokens per second rises with the number of users until the memory for the key and value
cache or the compute budget runs out. Past that point new requests wait in a queue, the
time to the first token climbs, and every reader of a stream notices that the text arrives
more slowly than before. Measuring this curve tells an operator how many people the
endpoint can serve before streaming stops feeling fluid.`)

const (
	chatDeltaContent   = `{"index":0,"delta":{"content":"`
	chatDeltaReasoning = `{"index":0,"delta":{"reasoning":"`
	chatRole           = `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n"
	chatTail           = `"},"logprobs":null,"finish_reason":`
	textOpen           = `{"index":0,"text":"`
	textTail           = `","logprobs":null,"finish_reason":`
	doneEvent          = "data: [DONE]\n\n"
)

// wire writes the SSE events of one stream in its API's format, by appending to a
// caller's buffer: no encoding/json and no allocation per event.
type wire interface {
	// start is what the stream sends as soon as the request is accepted, before it
	// has a slot (no token: a role-only delta, message_start, response.created).
	start(b []byte) []byte
	// tokens appends one event carrying tokens [from, to) of the answer, as reasoning
	// or as answer text; finish ("stop" or "length") marks the answer's last tokens.
	tokens(b []byte, from, to int, reasoning bool, finish string) []byte
	// end appends what follows the last token: usage (when asked for), the end marker.
	end(b []byte, prompt, completion int, usage bool, finish string) []byte
	// cut is what a stream the plan drops sends before it ends, and whether the
	// connection is then aborted (chat and completions: nothing, aborted).
	cut(b []byte) (_ []byte, abort bool)
	// fail appends the in-band error a stream ends with (Config.StreamErrorRate): vLLM's
	// error event and [DONE], the Messages API's error event, response.failed.
	fail(b []byte) []byte
}

// newWire is the wire of a stream of API a.
func newWire(a api, id uint64, created int64, modelJSON []byte, base, prompt int) wire {
	switch a {
	case apiMessages:
		return &messagesWire{id: id, modelJSON: modelJSON, base: base, prompt: prompt}
	case apiResponses:
		return newResponsesWire(id, created, modelJSON, base)
	}
	return newStreamFormat(a == apiChat, id, created, modelJSON, base)
}

// streamFormat writes chat and completions streams, vLLM style.
type streamFormat struct {
	head []byte // data: {"id":...,"object":...,"created":...,"model":...,"choices":[
	chat bool
	base int // index of the stream's first word
}

// newStreamFormat prepares the per-stream event prefix. modelJSON is the model name as a
// JSON string (quoted and escaped).
func newStreamFormat(chat bool, id uint64, created int64, modelJSON []byte, base int) *streamFormat {
	h := make([]byte, 0, 128+len(modelJSON))
	h = append(h, `data: {"id":"`...)
	if chat {
		h = append(h, "chatcmpl-"...)
	} else {
		h = append(h, "cmpl-"...)
	}
	h = appendHex16(h, id)
	if chat {
		h = append(h, `","object":"chat.completion.chunk","created":`...)
	} else {
		h = append(h, `","object":"text_completion","created":`...)
	}
	h = strconv.AppendInt(h, created, 10)
	h = append(h, `,"model":`...)
	h = append(h, modelJSON...)
	h = append(h, `,"choices":[`...)
	return &streamFormat{head: h, chat: chat, base: base}
}

// appendRole appends the role-only first event of a chat stream.
func (f *streamFormat) appendRole(b []byte) []byte {
	b = append(b, f.head...)
	return append(b, chatRole...)
}

func (f *streamFormat) start(b []byte) []byte {
	if f.chat {
		return f.appendRole(b)
	}
	return b
}

func (f *streamFormat) tokens(b []byte, from, to int, reasoning bool, finish string) []byte {
	return f.appendTokens(b, from, to, reasoning, finish)
}

func (f *streamFormat) end(b []byte, prompt, completion int, usage bool, _ string) []byte {
	if usage {
		b = f.appendUsage(b, prompt, completion)
	}
	return append(b, doneEvent...)
}

func (f *streamFormat) cut(b []byte) ([]byte, bool) { return b, true }

func (f *streamFormat) fail(b []byte) []byte {
	b = append(b, streamErrorEvent...)
	return append(b, doneEvent...)
}

// appendTokens appends one event carrying tokens [from, to) of the answer. Chat events
// put them in delta.content (delta.reasoning when reasoning is set), completions events
// in text. finish is "" for no finish_reason (null), else "stop" or "length".
func (f *streamFormat) appendTokens(b []byte, from, to int, reasoning bool, finish string) []byte {
	b = append(b, f.head...)
	switch {
	case !f.chat:
		b = append(b, textOpen...)
	case reasoning:
		b = append(b, chatDeltaReasoning...)
	default:
		b = append(b, chatDeltaContent...)
	}
	b = appendWords(b, f.base, from, to)
	if f.chat {
		b = append(b, chatTail...)
	} else {
		b = append(b, textTail...)
	}
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = append(b, finish...)
		b = append(b, '"')
	}
	if !f.chat {
		b = append(b, `,"stop_reason":null`...)
	}
	return append(b, "}]}\n\n"...)
}

// appendUsage appends the usage-only event (empty choices) that ends a stream when the
// client asked for stream_options.include_usage.
func (f *streamFormat) appendUsage(b []byte, prompt, completion int) []byte {
	b = append(b, f.head...)
	b = append(b, `],"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	return append(b, "}}\n\n"...)
}

// appendWords appends the text of tokens [from, to): one word per token, separated by
// spaces, starting at word base of the text.
func appendWords(b []byte, base, from, to int) []byte {
	for i := from; i < to; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, words[(base+i)%len(words)]...)
	}
	return b
}

// appendHex16 appends v as 16 lower-case hex digits.
func appendHex16(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, digits[(v>>uint(shift))&0xf])
	}
	return b
}
