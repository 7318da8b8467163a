package ui

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// oneCellRanges are the runes oneCell accepts, for the tests (every one is checked).
func oneCellRunes() []rune {
	var rs []rune
	for r := rune(0x80); r < 0x20000; r++ {
		if oneCell(r) {
			rs = append(rs, r)
		}
	}
	return rs
}

// TestCellWidthRunes: every rune cellWidth counts by itself is one cell for
// ansi.StringWidth, alone, twice, and between ASCII letters (it joins no neighbour).
func TestCellWidthRunes(t *testing.T) {
	rs := oneCellRunes()
	if len(rs) < 500 {
		t.Fatalf("only %d runes", len(rs))
	}
	for _, r := range rs {
		s := string(r)
		for _, c := range []struct {
			s    string
			want int
		}{{s, 1}, {s + s, 2}, {"a" + s + "b", 3}, {"\x1b[1m" + s + "\x1b[m ", 2}} {
			if got := ansi.StringWidth(c.s); got != c.want {
				t.Errorf("U+%04X: ansi.StringWidth(%q) = %d, want %d", r, c.s, got, c.want)
			}
			if got := cellWidth(c.s); got != c.want {
				t.Errorf("U+%04X: cellWidth(%q) = %d, want %d", r, c.s, got, c.want)
			}
		}
	}
}

// TestCellWidthAsAnsi: cellWidth agrees with ansi.StringWidth on random lines of the
// screen's kinds of text, and on lines it hands over (wide and joining runes, other
// escape sequences, control bytes, cut sequences).
func TestCellWidthAsAnsi(t *testing.T) {
	rs := oneCellRunes()
	parts := []string{"a", "Z", " ", "~", "0", "\x1b[m", "\x1b[1;38;2;1;2;3m", "\x1b[2m",
		"é", "e\u0301", "界", "😀", "❤\ufe0f", "\u200d", "\t", "\x1b]8;;http://127.0.0.1/\a", "\x1b[", "\x1b", "\x7f",
		"🇫🇷", "\u0300", "…"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			if rng.IntN(3) == 0 {
				b.WriteString(parts[rng.IntN(len(parts))])
			} else {
				b.WriteRune(rs[rng.IntN(len(rs))])
			}
		}
		s := b.String()
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Fatalf("cellWidth(%q) = %d, ansi.StringWidth = %d", s, got, want)
		}
	}
}
