package ui

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// cellWidth is ansi.StringWidth(s): the cells s takes on screen. The screen's lines are
// printable ASCII, SGR sequences and runes that take one cell and never join a
// neighbour into one grapheme (box drawing, blocks, braille, arrows, a few signs);
// those are counted as they are read, without ansi.StringWidth's grapheme segmentation
// (the biggest cost of a chart redraw). Any other byte sends the whole line to
// ansi.StringWidth.
func cellWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			n++
			i++
		case c == 0x1b:
			end := csiEnd(s, i)
			if end < 0 {
				return ansi.StringWidth(s)
			}
			i = end
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !oneCell(r) {
				return ansi.StringWidth(s)
			}
			n++
			i += size
		default: // control bytes
			return ansi.StringWidth(s)
		}
	}
	return n
}

// csiEnd is the index after the CSI sequence (ESC [ parameters intermediates final)
// starting at s[i], or -1 when s[i:] does not start with a complete one.
func csiEnd(s string, i int) int {
	if i+1 >= len(s) || s[i+1] != '[' {
		return -1
	}
	j := i + 2
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		return j + 1
	}
	return -1
}

// oneCell says whether r is a rune cellWidth counts as one cell by itself: one that
// is one cell wide and is never part of a larger grapheme with its neighbours here
// (TestCellWidthRunes checks every one against ansi.StringWidth).
func oneCell(r rune) bool {
	switch {
	case r >= 0x2800 && r <= 0x28ff: // braille
		return true
	case r >= 0x2500 && r <= 0x259f: // box drawing, block elements
		return true
	case r >= 0x25a0 && r <= 0x25fc: // geometric shapes (◆ ● ▲), up to the emoji ◽◾
		return true
	case r >= 0x2010 && r <= 0x2027: // dashes, quotes, bullet, ellipsis
		return true
	case r >= 0x2190 && r <= 0x21ff, r >= 0x2200 && r <= 0x22ff: // arrows, ≤ ≥ ± …
		return true
	case r >= 0xa1 && r <= 0xff && r != 0xad: // Latin-1 signs and letters (· µ ° ×)
		return true
	}
	return false
}
