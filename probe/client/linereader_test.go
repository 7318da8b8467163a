package client

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unsafe"
)

// TestLineReader: lines come out whole and without their ends whatever the reads look
// like (one byte at a time splits every line end), a line longer than the buffer grows
// it, and the first bytes of the body and the watchdog's time are kept.
func TestLineReader(t *testing.T) {
	long := "data: " + strings.Repeat("x", 3*sseBufSize)
	tests := []struct {
		name  string
		body  string
		lines []string
		rest  string
	}{
		{"events", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{`data: {"a":1}`, "", "data: [DONE]", ""}, ""},
		{"CRLF", "data: {}\r\n\r\n: ping\r\n", []string{"data: {}", "", ": ping"}, ""},
		{"no line end at the end", "data: a\ndata: [DONE]", []string{"data: a"}, "data: [DONE]"},
		{"a line longer than the buffer", long + "\n" + "data: b\n", []string{long, "data: b"}, ""},
		{"empty body", "", nil, ""},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.body)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			var rs reqState
			s := newLineReader(r, &rs.alive, 0)
			var got []string
			for {
				line, ok := s.line()
				if !ok {
					break
				}
				got = append(got, string(line))
			}
			if s.err != io.EOF || strings.Join(got, "|") != strings.Join(tt.lines, "|") || string(s.rest()) != tt.rest {
				t.Errorf("%s (one byte %v): lines %q rest %q err %v; want %q rest %q", tt.name, oneByte, got, s.rest(), s.err, tt.lines, tt.rest)
			}
			if want := tt.body[:min(len(tt.body), len(s.head))]; !bytes.Equal(s.headBytes(), []byte(want)) || (tt.body != "" && rs.alive.Load() == 0) {
				t.Errorf("%s: head %q, alive %d", tt.name, s.headBytes(), rs.alive.Load())
			}
			s.free()
		}
	}
}

// TestLineReaderLineTooLong: a body that never ends its line stops at maxSSELine.
func TestLineReaderLineTooLong(t *testing.T) {
	var rs reqState
	s := newLineReader(io.MultiReader(strings.NewReader("data: "), neverEnding('x')), &rs.alive, 0)
	defer s.free()
	if _, ok := s.line(); ok || s.err != errLineTooLong || len(s.buf) > 2*maxSSELine {
		t.Fatalf("ok %v err %v buffer %d", ok, s.err, len(s.buf))
	}
}

// neverEnding is an endless body of one byte.
type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestSSEField(t *testing.T) {
	for _, tt := range []struct{ line, field, value string }{
		{"data: x", "data", "x"}, {"data:x", "data", "x"}, {"data:  x ", "data", "x"},
		{": ping", "", "ping"}, {"event:error", "event", "error"}, {"id", "id", ""}, {"data:", "data", ""},
		{"data: {\"a\":\"b:c\"}", "data", `{"a":"b:c"}`},
	} {
		f, v := sseField([]byte(tt.line))
		if string(f) != tt.field || string(v) != tt.value {
			t.Errorf("sseField(%q) = %q, %q; want %q, %q", tt.line, f, v, tt.field, tt.value)
		}
	}
}

// TestLineReaderAliveGrain: the reader stores the watchdog's alive time at its first read
// and then only once the stored time is grain old, so that most reads write nothing
// shared; with grain 0 it stores at every read.
func TestLineReaderAliveGrain(t *testing.T) {
	body := "data: a\n\ndata: b\n\ndata: [DONE]\n\n"
	for _, tt := range []struct {
		grain    int64
		wantLast bool // alive holds the time of the last read
	}{{0, true}, {int64(time.Hour), false}} {
		var rs reqState
		s := newLineReader(iotest.OneByteReader(strings.NewReader(body)), &rs.alive, tt.grain)
		first := int64(0)
		for {
			if _, ok := s.line(); !ok {
				break
			}
			if first == 0 {
				first = rs.alive.Load()
			}
		}
		last := s.now
		s.free()
		if got := rs.alive.Load(); first == 0 || (tt.wantLast && got != last) || (!tt.wantLast && got != first) {
			t.Errorf("grain %v: alive %d, first read %d, last read %d", time.Duration(tt.grain), got, first, last)
		}
	}
}

// TestLineReaderLayout: a pooled reader starts a cache line, its per-read fields fill
// that line and the result's per-event fields the next (see lineReader): a field added
// in the wrong place would cost a cache miss per event at hundreds of streams.
func TestLineReaderLayout(t *testing.T) {
	var s lineReader
	if got := unsafe.Sizeof(s); got != 448 {
		t.Errorf("lineReader is %d bytes, want 448 (a size class that is a multiple of 64)", got)
	}
	if got := unsafe.Offsetof(s.res); got != 64 {
		t.Errorf("lineReader.res at %d, want 64", got)
	}
	if got := unsafe.Offsetof(s.res.pend); got != 64 {
		t.Errorf("result.pend at %d, want 64 (the per-event fields fill the 64 bytes before it)", got)
	}
	for range 4 {
		p := readerPool.Get().(*lineReader)
		if a := uintptr(unsafe.Pointer(p)) % 64; a != 0 {
			t.Errorf("a pooled lineReader starts %d bytes into a cache line", a)
		}
		defer p.free()
	}
}
