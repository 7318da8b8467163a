package ui

import (
	"image/color"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/charmbracelet/x/ansi"
)

// styleKey is what makes two cell styles look the same on screen, for the styles
// this package gives ntcharts (a foreground and text attributes).
type styleKey struct {
	fg                              color.Color
	bold, faint, reverse, underline bool
}

// keyOf is s's key. Each getter copies the whole Style: call it once per style met.
func keyOf(s *lipgloss.Style) styleKey {
	return styleKey{
		fg: s.GetForeground(), bold: s.GetBold(), faint: s.GetFaint(),
		reverse: s.GetReverse(), underline: s.GetUnderline(),
	}
}

// sameBytes says whether a and b hold the same bytes, and so are the same style. It is
// a sufficient test only (equal styles built apart may differ in pointers or padding),
// used to find a cell's style among the styles met just before (styleMemo) instead of
// calling keyOf per cell: Lip Gloss's getters copy the whole Style (648 bytes) on every
// call, and a canvas cell has no cheaper handle on its style.
func sameBytes(a, b *lipgloss.Style) bool {
	const n = unsafe.Sizeof(lipgloss.Style{})
	return *(*[n]byte)(unsafe.Pointer(a)) == *(*[n]byte)(unsafe.Pointer(b))
}

// onlyKeyed says whether s sets nothing that Style.Render reads besides what styleKey
// holds (and the underline's kind): two such styles with the same key render a line
// of text alike. Checked once per style met (see styleMemo).
func onlyKeyed(s *lipgloss.Style) bool {
	link, _ := s.GetHyperlink()
	return !s.GetItalic() && !s.GetStrikethrough() && !s.GetBlink() &&
		!s.GetUnderlineSpaces() && !s.GetStrikethroughSpaces() &&
		s.GetBackground() == lipgloss.NoColor{} && s.GetUnderlineColor() == lipgloss.NoColor{} &&
		s.GetWidth() == 0 && s.GetHeight() == 0 && s.GetMaxWidth() == 0 && s.GetMaxHeight() == 0 &&
		s.GetHorizontalFrameSize() == 0 && s.GetVerticalFrameSize() == 0 &&
		s.GetTransform() == nil && link == "" && s.Value() == ""
}

// runLook is how a run of cells of one key is written: the SGR prefix, the runes and
// a reset, which is what Style.Render writes for such a run; render when it is not
// that simple for the key's styles (see sgrPrefix).
type runLook struct {
	key    styleKey
	prefix string
	render bool
}

// memoStyle is a cell style with its key and whether it is onlyKeyed.
type memoStyle struct {
	style lipgloss.Style
	key   styleKey
	keyed bool
}

// styleMemo remembers the last few cell styles met, so that a style's key is computed
// when it first appears, not for every cell. A chart has a handful of styles (empty,
// the axis, labels, a line per endpoint, the target, markers): eight entries keep the
// curve of two endpoints to a few dozen misses a redraw.
type styleMemo struct {
	recent [8]memoStyle
	n      int // entries in use
	next   int // the entry to replace next
	hit    int // the entry found last: a cell is most often in its neighbour's style
}

// of returns s's entry, adding it when s is not among the recent styles.
func (m *styleMemo) of(s *lipgloss.Style) *memoStyle {
	if m.n > 0 && sameBytes(&m.recent[m.hit].style, s) {
		return &m.recent[m.hit]
	}
	for i := range m.n {
		if sameBytes(&m.recent[i].style, s) {
			m.hit = i
			return &m.recent[i]
		}
	}
	e := &m.recent[m.next]
	e.style, e.key, e.keyed = *s, keyOf(s), onlyKeyed(s)
	m.hit, m.n, m.next = m.next, max(m.n, m.next+1), (m.next+1)%len(m.recent)
	return e
}

// canvasWriter writes a canvas's cells in runs of one look (see renderCanvas).
type canvasWriter struct {
	b        strings.Builder
	looks    []runLook // the looks met in this canvas (a handful: searched in order)
	lookBuf  [8]runLook
	run      []byte         // the current run's runes, UTF-8
	key      styleKey       // the current run's key (the foreground dropped for a run of spaces)
	look     int            // the current run's look in looks, or lookPlain, or lookRender
	style    lipgloss.Style // the run's style, for lookRender
	first    *memoStyle     // the run's first cell's style (a memo entry: replaced only after 8 newer styles)
	controls bool           // the run holds a control rune (a tab, a newline): Render rewrites those
}

// The current run's look when it is not one of canvasWriter.looks.
const (
	lookPlain  = -1 // the runes as they are
	lookRender = -2 // canvasWriter.style.Render of the run
)

// start begins a run of cells of key k (s's key, or without its foreground for a run
// of spaces) whose first cell is in style s.
func (cw *canvasWriter) start(k styleKey, s *memoStyle) {
	cw.flush()
	cw.key, cw.look, cw.first = k, lookPlain, s
	switch {
	case k == styleKey{}:
	case !s.keyed:
		cw.look, cw.style = lookRender, s.style
	default:
		cw.look = cw.lookFor(s.key, &s.style) // the first cell's look, as Render would
		if cw.looks[cw.look].render {
			cw.look, cw.style = lookRender, s.style
		}
	}
}

// lookFor returns the index of key's look, adding it (made from s) when new.
func (cw *canvasWriter) lookFor(key styleKey, s *lipgloss.Style) int {
	for i := range cw.looks {
		if cw.looks[i].key == key {
			return i
		}
	}
	prefix, ok := prefixes.of(key, s)
	cw.looks = append(cw.looks, runLook{key: key, prefix: prefix, render: !ok})
	return len(cw.looks) - 1
}

// prefixCache remembers sgrPrefix by key, for onlyKeyed styles (whose key says all
// Render writes), across redraws: the charts of a theme use a dozen.
type prefixCache struct {
	mu sync.Mutex
	m  map[styleKey]sgrRun
}

// sgrRun is sgrPrefix's answer.
type sgrRun struct {
	prefix string
	ok     bool
}

// maxPrefixes bounds prefixCache (the looks of several themes, light and dark).
const maxPrefixes = 256

var prefixes prefixCache

// of returns sgrPrefix(*s), s an onlyKeyed style of key k.
func (c *prefixCache) of(k styleKey, s *lipgloss.Style) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	if !ok {
		if c.m == nil || len(c.m) >= maxPrefixes {
			c.m = make(map[styleKey]sgrRun)
		}
		r.prefix, r.ok = sgrPrefix(*s)
		c.m[k] = r
	}
	return r.prefix, r.ok
}

// flush writes the current run, as its style's Render would.
func (cw *canvasWriter) flush() {
	if len(cw.run) == 0 {
		return
	}
	switch {
	case cw.look == lookPlain:
		cw.b.Write(cw.run)
	case cw.look == lookRender:
		cw.b.WriteString(cw.style.Render(string(cw.run)))
	case cw.controls:
		cw.b.WriteString(cw.first.style.Render(string(cw.run)))
	default:
		cw.b.WriteString(cw.looks[cw.look].prefix)
		cw.b.Write(cw.run)
		cw.b.WriteString(ansi.ResetStyle)
	}
	cw.run, cw.controls = cw.run[:0], false
}

// renderCanvas is canvas.Model.View rendered in runs: consecutive cells of the same
// look are written as one styled run instead of one Render per cell (a 200x60 screen
// of charts is ~12,000 cells). A run's bytes are exactly what its first cell's
// Style.Render gives for the run's text, but the SGR sequence of each look is made
// once per canvas instead of once per run. (Lip Gloss v2 writes full colours and
// leaves downsampling to the program's output, which therefore sees the same bytes.)
func renderCanvas(c *canvas.Model) string {
	w, h := c.Width(), c.Height()
	cw := newCanvasWriter(w, h)
	var memo styleMemo
	for y := range h {
		cw.line(y)
		for x := range w {
			cell := c.Cell(canvas.Point{X: x, Y: y})
			cw.cell(cell.Rune, memo.of(&cell.Style))
		}
	}
	return cw.String()
}

// newCanvasWriter returns a writer for w x h cells.
func newCanvasWriter(w, h int) *canvasWriter {
	cw := &canvasWriter{look: lookPlain}
	cw.looks = cw.lookBuf[:0]
	cw.b.Grow(w*h*3 + h*32)
	return cw
}

// line starts line y (0 first).
func (cw *canvasWriter) line(y int) {
	cw.flush()
	if y > 0 {
		cw.b.WriteByte('\n')
	}
}

// cell adds a cell (rune 0: empty) in style s, to the current run or a new one.
func (cw *canvasWriter) cell(r rune, s *memoStyle) {
	if r == 0 {
		r = ' '
	}
	k := s.key
	if r == ' ' && !k.reverse {
		k.fg = nil // a space shows no foreground: keep the run going
	}
	if k != cw.key || len(cw.run) == 0 {
		cw.start(k, s)
	}
	cw.controls = cw.controls || r < ' '
	cw.run = utf8.AppendRune(cw.run, r)
}

// String returns what was written.
func (cw *canvasWriter) String() string {
	cw.flush()
	return cw.b.String()
}

// sgrPrefix is the SGR sequence s.Render writes before a run of text, when s.Render(t)
// is exactly that sequence, t and a reset; ok is false when it is not (underlined
// styles are written rune by rune, a plain style writes no reset).
func sgrPrefix(s lipgloss.Style) (prefix string, ok bool) {
	const probe = "a b"
	prefix, ok = strings.CutSuffix(s.Render(probe), probe+ansi.ResetStyle)
	if !ok || !onlySGR(prefix) || s.Render("x") != prefix+"x"+ansi.ResetStyle {
		return "", false
	}
	return prefix, true
}

// onlySGR says whether s is one or more SGR sequences (ESC [ params m) and nothing else.
func onlySGR(s string) bool {
	if s == "" {
		return false
	}
	for s != "" {
		rest, ok := strings.CutPrefix(s, "\x1b[")
		if !ok {
			return false
		}
		end := strings.IndexByte(rest, 'm')
		if end < 0 || strings.Trim(rest[:end], "0123456789;:") != "" {
			return false
		}
		s = rest[end+1:]
	}
	return true
}

// resetCanvas makes c an empty w x h canvas, reusing its cells when the size is the same
// (a canvas cell holds a lipgloss.Style: a new 200x60 canvas is megabytes, and the
// charts are redrawn every second).
func resetCanvas(c *canvas.Model, w, h int) {
	if c.Width() != w || c.Height() != h {
		*c = canvas.New(w, h)
		return
	}
	c.Fill(canvas.Cell{})
}
