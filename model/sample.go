package model

import (
	"strconv"
	"time"
)

// ErrorKind names why a request failed. The empty kind means success.
type ErrorKind string

// Error kinds from the measurement contract. HTTP failures use HTTPError(status).
const (
	ErrNone      ErrorKind = ""
	ErrStream    ErrorKind = "stream_error" // HTTP 200, then an in-band error event
	ErrTruncated ErrorKind = "truncated"    // EOF with no finish_reason and no [DONE]
	ErrTimeout   ErrorKind = "timeout"      // no headers, or no event, within the timeout
	ErrConnect   ErrorKind = "connect"      // dial, DNS, TLS or connection reset before headers
	ErrProtocol  ErrorKind = "protocol"     // unparseable events, a non-SSE body
	// ErrCanceled marks a request cut by tpsmon itself (Ctrl-C, quit). It is not the
	// endpoint's fault: it is kept out of error counts, error rates and every distribution.
	ErrCanceled ErrorKind = "canceled"
	// ErrClient marks a request that failed on tpsmon's side (no file descriptor left,
	// out of memory): it is counted and shown, but never charged to the endpoint (kept
	// out of its error rate and of capacity).
	ErrClient ErrorKind = "client"
)

// Charged reports whether a failure of this kind counts against the endpoint: every
// error kind except ErrNone, ErrCanceled and ErrClient.
func (k ErrorKind) Charged() bool { return k != ErrNone && k != ErrCanceled && k != ErrClient }

// HTTPError is the kind for a non-2xx response status, e.g. "http_429".
func HTTPError(status int) ErrorKind { return ErrorKind("http_" + strconv.Itoa(status)) }

// Token sources: where a sample's or a level's output-token count comes from.
const (
	SourceUsage  = "usage"  // usage.completion_tokens reported by the server
	SourceChunks = "chunks" // counted token-bearing events: an estimate
	SourceMixed  = "mixed"  // some requests reported usage, some did not
)

// Sample is one finished streamed request, as the probe saw it. Times come from the
// monotonic clock; a zero time means the moment never happened (no headers, no token).
type Sample struct {
	Endpoint    int  // index of the endpoint in the run
	Segment     int  // LevelRule segment the request was sent in
	Concurrency int  // target concurrency of that segment
	Warmup      bool // sent before the segment's in-flight population turned over

	Send        time.Time // t_send: just before the request is handed to the HTTP client
	Headers     time.Time // t_headers: first response byte (httptrace)
	First       time.Time // t_first: first token-bearing event (content, reasoning or tool_calls)
	FirstAnswer time.Time // t_first_answer: first event with non-empty content
	Last        time.Time // t_last: last token-bearing event
	End         time.Time // when the request was over (stream closed or failed)

	Tokens       int           // N: usage.completion_tokens when Usage, else Chunks
	Chunks       int           // C: token-bearing events received
	Usage        bool          // Tokens came from usage.completion_tokens
	PromptTokens int           // usage.prompt_tokens when reported, else 0
	MaxGap       time.Duration // largest gap between two token-bearing events (the stall)
	Gaps         *GapSketch    // every gap between two token-bearing events; nil when the reader kept none
	Finish       string        // finish_reason of the last choice, when one arrived
	Status       int           // HTTP status, 0 when no response arrived

	// Rate mode (open loop) only: OpenLoop says the request was an arrival of a paced
	// schedule; ClientWait is the time it waited on tpsmon's side for a place under the
	// concurrency cap before t_send (never part of TTFT); Capped says the cap was full.
	OpenLoop   bool
	ClientWait time.Duration
	Capped     bool

	Err    ErrorKind // ErrNone on success
	ErrMsg string    // plain words for a person; never contains a key or header value

	// Turn is the request's turn in a conversation (1 = the first, which carries no
	// history); 0 for a request that is not part of one.
	Turn int
	// RetryAfter is the wait the server asked for with a failure (its Retry-After
	// header, on HTTP 429 and 503 mostly); 0 when it gave none.
	RetryAfter time.Duration
}

// OK reports whether the request succeeded.
func (s *Sample) OK() bool { return s.Err == ErrNone }

// TokenSource is SourceUsage or SourceChunks for this sample.
func (s *Sample) TokenSource() string {
	if s.Usage {
		return SourceUsage
	}
	return SourceChunks
}

// TTFB is t_headers - t_send.
func (s *Sample) TTFB() (time.Duration, bool) { return since(s.Send, s.Headers) }

// TTFT is t_first - t_send.
func (s *Sample) TTFT() (time.Duration, bool) { return since(s.Send, s.First) }

// TTFO is t_first_answer - t_send: time to the first answer (non-reasoning) token.
func (s *Sample) TTFO() (time.Duration, bool) { return since(s.Send, s.FirstAnswer) }

// E2E is t_last - t_send.
func (s *Sample) E2E() (time.Duration, bool) { return since(s.Send, s.Last) }

// UserTPS is the decode rate a reader of this stream saw after the first token:
// (N - 1) / (t_last - t_first), defined when N >= 2 and t_last > t_first.
func (s *Sample) UserTPS() (float64, bool) {
	if s.Tokens < 2 || s.First.IsZero() || !s.Last.After(s.First) {
		return 0, false
	}
	return float64(s.Tokens-1) / s.Last.Sub(s.First).Seconds(), true
}

// TPOT is (t_last - t_first) / (N - 1), defined where UserTPS is.
func (s *Sample) TPOT() (time.Duration, bool) {
	if s.Tokens < 2 || s.First.IsZero() || !s.Last.After(s.First) {
		return 0, false
	}
	return s.Last.Sub(s.First) / time.Duration(s.Tokens-1), true
}

func since(from, to time.Time) (time.Duration, bool) {
	if from.IsZero() || to.IsZero() {
		return 0, false
	}
	return to.Sub(from), true
}

// Burst reports whether the request's tokens all arrived in one burst, as through a
// buffering proxy: at least 8 chunks, all within a tenth of its end-to-end time, at
// gaps under a millisecond. Its per-user tok/s then means nothing.
func (s *Sample) Burst() bool {
	if s.Chunks < burstChunks || s.First.IsZero() || !s.Last.After(s.Send) {
		return false
	}
	e2e := s.Last.Sub(s.Send)
	return float64(s.Last.Sub(s.First)) <= burstSpan*float64(e2e) && s.Gaps.Median() < burstGap
}
