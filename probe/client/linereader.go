package client

import (
	"bytes"
	"errors"
	"io"
	"math"
	"sync"
	"sync/atomic"

	"github.com/tpsmon/tpsmon/probe"
)

// Buffer sizes of lineReader. A line longer than maxSSELine is a protocol error: no event
// tpsmon reads comes close, and a body that never ends a line must not grow without bound.
const (
	sseBufSize = 8 << 10
	maxSSELine = 4 << 20
)

// errLineTooLong ends a stream whose line does not fit in maxSSELine bytes.
var errLineTooLong = errors.New("an event line is longer than 4 MiB")

// lineReader splits an event stream (a response body) into lines, from a buffer it owns:
// no allocation per line. It reads the clock once per read of the body, not once per
// line: every line that arrived in one read arrived at that moment (now), and the
// watchdog's alive time is stored from it, at most once per grain (aliveGrain). It also
// keeps the first bytes of the body, to show them when the body is not an event stream.
// One goroutine uses it.
type lineReader struct {
	body   io.Reader
	alive  *atomic.Int64 // set to now at a read that returned bytes, once stored is grain old
	grain  int64
	stored int64 // the last time stored in alive

	buf   []byte
	r, w  int   // the unread bytes are buf[r:w]
	seen  int   // buf[r:seen] holds no '\n' (already searched)
	now   int64 // probe.Mono() at the last read that returned bytes
	err   error // the body's error once it returned one (io.EOF at its end)
	nhead int   // bytes in head (beside the fields above: one cache line per read)

	head [1024]byte // the first bytes of the body (more than is ever shown, so a secret in it is seen whole)
}

// readerPool recycles readers and their buffers between requests.
var readerPool = sync.Pool{New: func() any { return &lineReader{buf: make([]byte, sseBufSize)} }}

// newLineReader returns a reader of body from the pool; give it back with free.
func newLineReader(body io.Reader, alive *atomic.Int64, grain int64) *lineReader {
	s := readerPool.Get().(*lineReader)
	s.body, s.alive, s.grain = body, alive, grain
	s.stored = math.MinInt64 / 2 // the first read stores
	return s
}

// free returns s to the pool. A buffer grown for a long line is dropped, not kept.
func (s *lineReader) free() {
	buf := s.buf
	if cap(buf) > sseBufSize {
		buf = make([]byte, sseBufSize)
	}
	*s = lineReader{buf: buf[:sseBufSize]}
	readerPool.Put(s)
}

// line returns the next line without its end ("\n" or "\r\n"); it is valid until the next
// call. ok is false once the body ended or failed (s.err says how); a last line without a
// line end is left in rest.
func (s *lineReader) line() (line []byte, ok bool) {
	for {
		if i := bytes.IndexByte(s.buf[s.seen:s.w], '\n'); i >= 0 {
			end := s.seen + i
			line = s.buf[s.r:end]
			s.r, s.seen = end+1, end+1
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, true
		}
		s.seen = s.w
		if s.err != nil {
			return nil, false
		}
		s.fill()
	}
}

// rest is what the body sent after its last line end.
func (s *lineReader) rest() []byte { return s.buf[s.r:s.w] }

// headBytes is the start of the body (up to 1 KiB).
func (s *lineReader) headBytes() []byte { return s.head[:s.nhead] }

// fill reads once from the body into the free end of the buffer, after moving the unread
// bytes to its start; it grows the buffer only for a line longer than the buffer.
func (s *lineReader) fill() {
	if s.r > 0 {
		n := copy(s.buf, s.buf[s.r:s.w])
		s.seen -= s.r
		s.r, s.w = 0, n
	}
	if s.w == len(s.buf) {
		if len(s.buf) >= maxSSELine {
			s.err = errLineTooLong
			return
		}
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	n, err := s.body.Read(s.buf[s.w:])
	if n > 0 {
		s.now = probe.Mono()
		if s.now-s.stored >= s.grain {
			s.alive.Store(s.now)
			s.stored = s.now
		}
		if s.nhead < len(s.head) {
			s.nhead += copy(s.head[s.nhead:], s.buf[s.w:s.w+n])
		}
		s.w += n
	}
	if err != nil {
		s.err = err
	}
}

// drain reads what is left of the body (normally only the end of the chunked encoding
// after [DONE]), up to limit bytes, so that its connection can be reused.
func (s *lineReader) drain(limit int64) {
	if s.err != nil {
		return
	}
	_, _ = io.CopyN(io.Discard, s.body, limit)
}

// sseField splits an SSE line into its field name and value: "data: x" gives "data",
// "x". The value loses the spaces around it (the format allows one after the colon;
// servers send none, one or several). A comment (": ping") has the field "" and a line
// without a colon is a field without a value.
func sseField(line []byte) (field, value []byte) {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return trimSpace(line), nil
	}
	return trimSpace(line[:i]), trimSpace(line[i+1:])
}

// trimSpace is bytes.TrimSpace for the ASCII spaces of a line.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// looksLikeSSE reports whether a body starts like an event stream.
func looksLikeSSE(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	for _, p := range []string{"data:", "event:", ":", "id:", "retry:"} {
		if bytes.HasPrefix(head, []byte(p)) {
			return true
		}
	}
	return len(head) == 0
}
