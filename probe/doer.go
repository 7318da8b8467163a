package probe

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// doer is the go-openai HTTPDoer of one Client. go-openai builds the request (URL,
// method, SSE headers) from a stub with a neutral model name; the doer then
//   - replaces the JSON body with the client's prebuilt body (the real model, the
//     prompt, max_tokens, stream options and the merged extra body),
//   - sets the Authorization header (only when there is a key) and the extra headers,
//   - stamps t_send just before the real http.Client.Do, and
//   - wraps the response body in a sniffBody that keeps the stream's liveness and
//     notices [DONE] and error events, which go-openai's reader hides.
//
// Sending the model name only in the body avoids go-openai's client-side checks on
// model names (o1/o3/gpt-5 chat rules, models refused for completions): any name the
// server serves works.
type doer struct {
	hc      *http.Client
	body    []byte
	auth    string // "Bearer <key>", or "" for none
	headers http.Header
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	rs, _ := req.Context().Value(reqStateKey{}).(*reqState)
	body := d.body
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	req.Header.Del("Authorization")
	if d.auth != "" {
		req.Header.Set("Authorization", d.auth)
	}
	for k, vs := range d.headers {
		req.Header[k] = vs
	}
	if rs == nil {
		return d.hc.Do(req)
	}
	rs.send = Mono()
	rs.p.Send.Store(rs.send)
	resp, err := d.hc.Do(req)
	if err != nil {
		return nil, err
	}
	rs.status = resp.StatusCode
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		// go-openai would read a redirect's body as the stream.
		re := &redirectError{status: resp.StatusCode}
		if loc, err := resp.Location(); err == nil {
			// Name the API base, as --url wants it.
			loc.Path = strings.TrimSuffix(strings.TrimSuffix(loc.Path, "/chat/completions"), "/completions")
			re.location = safeURL(loc)
		}
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
		_ = resp.Body.Close()
		return nil, re
	}
	rs.body = &sniffBody{rc: resp.Body, alive: &rs.alive}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// go-openai reads an error body whole; only its first bytes are ever shown.
		rs.body.limit = maxErrorBody
	}
	resp.Body = rs.body
	return resp, nil
}

// redirectError is a 3xx answer, which the client does not follow.
type redirectError struct {
	status   int
	location string // where it points (no userinfo, no query), "" when unknown
}

func (e *redirectError) Error() string {
	prefix := fmt.Sprintf("http %d %s", e.status, http.StatusText(e.status))
	if e.location == "" {
		return prefix + ": the server answered with a redirect: check --url"
	}
	return prefix + ": the server redirects to " + e.location + ": use that in --url"
}

// maxErrorBody bounds how much of an error response's body is read.
const maxErrorBody = 64 << 10

// sniffTail is how many bytes of the previous read sniffBody keeps, so that a marker
// split between two reads is still seen.
const sniffTail = 32

// sniffBody wraps a streaming response body. On each read (not each line: a read is
// up to 4 KiB) it records that the server is alive and looks for three markers that
// go-openai's line reader does not expose: a `data: [DONE]` line, an `event: error`
// line, and a `data: {"error"...` line. It also keeps the first bytes of the body to
// show when the body is not an event stream. It is used by one goroutine, except alive.
type sniffBody struct {
	rc    io.ReadCloser
	alive *atomic.Int64 // Mono() of the last read that returned bytes
	limit int64         // when > 0, the body ends (io.EOF) after this many bytes

	n     int64 // bytes read so far
	tail  [sniffTail]byte
	ntail int
	head  [1024]byte // the first bytes of the body (more than is shown, so that secrets in it are seen whole)
	nhead int

	eof      bool   // the underlying body returned an error (io.EOF included)
	done     bool   // a `data: [DONE]` line arrived
	errEvent bool   // an `event: error` line arrived
	errData  bool   // a `data: {"error"` line arrived
	errLine  []byte // its payload (up to maxErrLine bytes), which go-openai may not return
}

func (s *sniffBody) Read(p []byte) (int, error) {
	if s.limit > 0 {
		if s.n >= s.limit {
			return 0, io.EOF
		}
		p = p[:min(int64(len(p)), s.limit-s.n)]
	}
	n, err := s.rc.Read(p)
	if n > 0 {
		s.alive.Store(Mono())
		s.scan(p[:n])
	}
	if err != nil {
		s.eof = true
	}
	return n, err
}

func (s *sniffBody) Close() error { return s.rc.Close() }

// drain reads what is left of the body (normally only the end of the chunked encoding
// after [DONE]) so that the connection can be reused, up to limit bytes.
func (s *sniffBody) drain(limit int64) {
	if s.eof {
		return
	}
	_, _ = io.CopyN(io.Discard, s.rc, limit)
}

// The markers, each with how many of its leading bytes findLine skips in its search:
// the search starts at a byte that is rare in JSON chunks ('"', '{', '[' and 'e' are
// everywhere, 'D' and 'v' are not), which keeps bytes.Index on its fast path.
var (
	markDone  = []byte("[DONE]")
	markEvent = []byte("event:")
	markError = []byte(`{"error"`)
	markData  = []byte("data:")
)

const (
	anchorDone  = 1 // "DONE]"
	anchorEvent = 1 // "vent:"
	anchorError = 4 // `rror"`
)

func (s *sniffBody) scan(p []byte) {
	if s.nhead < len(s.head) {
		s.nhead += copy(s.head[s.nhead:], p)
	}
	// p first: a marker found there keeps its whole line (see errLine).
	s.scanBuf(p, s.n == 0)
	if s.ntail > 0 {
		var w [2 * sniffTail]byte
		k := copy(w[:], s.tail[:s.ntail])
		k += copy(w[k:], p[:min(len(p), sniffTail)])
		s.scanBuf(w[:k], s.n == int64(s.ntail))
	}
	s.n += int64(len(p))
	if len(p) >= sniffTail {
		s.ntail = copy(s.tail[:], p[len(p)-sniffTail:])
		return
	}
	keep := min(s.ntail, sniffTail-len(p))
	copy(s.tail[:], s.tail[s.ntail-keep:s.ntail])
	s.ntail = keep + copy(s.tail[keep:], p)
}

// scanBuf looks for the markers in b; atStart says b begins at the start of the body
// (so at the start of a line).
func (s *sniffBody) scanBuf(b []byte, atStart bool) {
	if !s.done {
		s.done = findLine(b, markDone, anchorDone, atStart, isDataPrefix)
	}
	if !s.errEvent {
		s.errEvent = findLine(b, markEvent, anchorEvent, atStart, func(head, rest []byte) bool {
			return len(head) == 0 && bytes.HasPrefix(bytes.TrimLeft(rest, " \t"), []byte("error"))
		})
	}
	if !s.errData {
		if i := findLineAt(b, markError, anchorError, atStart, isDataPrefix); i >= 0 {
			s.errData = true
			line := b[i:]
			if j := bytes.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			s.errLine = append([]byte(nil), line[:min(len(line), maxErrLine)]...)
		}
	}
}

// maxErrLine bounds the in-band error payload kept by sniffBody.
const maxErrLine = 1024

// findLine reports whether mark occurs in b on a line whose part before the mark
// (head) and after it (rest, up to the end of b) satisfy ok. The start of the line must
// lie in b, or b must begin a line (atStart). The search looks for mark[anchor:] and
// then checks the bytes before it.
func findLine(b, mark []byte, anchor int, atStart bool, ok func(head, rest []byte) bool) bool {
	return findLineAt(b, mark, anchor, atStart, ok) >= 0
}

// findLineAt is findLine returning where the mark starts in b, or -1.
func findLineAt(b, mark []byte, anchor int, atStart bool, ok func(head, rest []byte) bool) int {
	tail := mark[anchor:]
	for from := 0; ; {
		j := bytes.Index(b[from:], tail)
		if j < 0 {
			return -1
		}
		i := from + j - anchor
		from += j + 1
		if i < 0 || !bytes.Equal(b[i:i+anchor], mark[:anchor]) {
			continue
		}
		ls := bytes.LastIndexByte(b[:i], '\n')
		if (ls >= 0 || atStart) && ok(b[ls+1:i], b[i+len(mark):]) {
			return i
		}
	}
}

// isDataPrefix reports whether head is "data:" followed only by spaces.
func isDataPrefix(head, _ []byte) bool {
	return bytes.HasPrefix(head, markData) && len(bytes.TrimLeft(head[len(markData):], " \t")) == 0
}

// looksLikeSSE reports whether a body starts like an event stream.
func looksLikeSSE(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	for _, p := range [][]byte{markData, markEvent, []byte(":"), []byte("id:"), []byte("retry:")} {
		if bytes.HasPrefix(head, p) {
			return true
		}
	}
	return len(head) == 0
}
