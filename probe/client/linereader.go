package client

import (
	"bytes"
	"errors"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

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
//
// The fields a read and its lines touch come first and fill one cache line, and the
// stream's result (whose fields each event touches come first) the next one (a
// lineReader starts a cache line: readerPad): with hundreds of streams, a stream's state is out of the CPU's cache by the time its next event
// arrives, and each line of it touched then is a miss. The other fields are touched only
// before a read, at its rare store to alive, or at the stream's start and end.
type lineReader struct {
	readerFields
	_ [readerPad]byte
}

// readerFields are the fields of a lineReader.
type readerFields struct {
	buf   []byte
	r, w  int32 // the unread bytes are buf[r:w] (buf holds at most maxSSELine bytes)
	seen  int32 // buf[r:seen] holds no '\n' (already searched)
	nhead int32 // bytes in head
	now   int64 // probe.Mono() at the last read that returned bytes
	next  int64 // the read at or after this time stores its now in alive
	alive *atomic.Int64
	res   result // the stream's result, whose per-event fields come first: the next 64 bytes
	grain int64  // next is the last time stored in alive + grain
	err   error  // the body's error once it returned one (io.EOF at its end)
	body  io.Reader
	head  *[headSize]byte // the first bytes of the body (more than is ever shown, so a secret in it is seen whole)
}

// headSize is how much of the start of a body a lineReader keeps.
const headSize = 1024

// readerPad makes a lineReader 448 bytes, a size class of Go's allocator that is a
// multiple of 64 (and at most 512, so the object has no allocation header before it):
// each one then starts a cache line.
const readerPad = 448 - unsafe.Sizeof(readerFields{})

// readerPool recycles readers and their buffers between requests.
var readerPool = sync.Pool{New: func() any {
	return &lineReader{readerFields: readerFields{buf: make([]byte, sseBufSize), head: new([headSize]byte)}}
}}

// newLineReader returns a reader of body from the pool; give it back with free.
func newLineReader(body io.Reader, alive *atomic.Int64, grain int64) *lineReader {
	s := readerPool.Get().(*lineReader)
	s.body, s.alive, s.grain = body, alive, grain
	s.next = math.MinInt64 // the first read stores
	return s
}

// free returns s to the pool. A buffer grown for a long line is dropped, not kept.
func (s *lineReader) free() {
	buf := s.buf
	if cap(buf) > sseBufSize {
		buf = make([]byte, sseBufSize)
	}
	*s = lineReader{readerFields: readerFields{buf: buf[:sseBufSize], head: s.head}}
	readerPool.Put(s)
}

// line returns the next line without its end ("\n" or "\r\n"); it is valid until the next
// call. ok is false once the body ended or failed (s.err says how); a last line without a
// line end is left in rest.
func (s *lineReader) line() (line []byte, ok bool) {
	for {
		if i := bytes.IndexByte(s.buf[s.seen:s.w], '\n'); i >= 0 {
			end := s.seen + int32(i)
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
		s.r, s.w = 0, int32(n)
	}
	if int(s.w) == len(s.buf) {
		if len(s.buf) >= maxSSELine {
			s.err = errLineTooLong
			return
		}
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	n, err := s.body.Read(s.buf[s.w:])
	if n > 0 {
		now := probe.Mono()
		s.now = now
		if now >= s.next {
			s.alive.Store(now)
			s.next = now + s.grain
		}
		if s.nhead < headSize {
			s.nhead += int32(copy(s.head[s.nhead:], s.buf[s.w:int(s.w)+n]))
		}
		s.w += int32(n)
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
