package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
)

// fmtRate formats tokens/s compactly: 8.4, 42.1, 1234, 12.3k.
func fmtRate(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case v >= 10000:
		return fmt.Sprintf("%.1fk", v/1000)
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

// fmtRateVs is fmtRate of a per-user tok/s against its target: a figure below the
// target is never shown rounded onto it (29.97 against 30 reads "29.97", not "30.0").
func fmtRateVs(v, target float64) string {
	s := fmtRate(v)
	if v < target {
		if x, err := strconv.ParseFloat(s, 64); err == nil && x >= target {
			s, _ = model.FigureApart(v, target, 1)
		}
	}
	return s
}

// fmtMsVs is fmtMs of a latency against its limit (both ms): a figure over the limit is
// never shown rounded onto it (2004 ms against 2 s reads "2.004 s", not "2.00 s").
func fmtMsVs(v, limit float64) string {
	if limit > 0 && v > limit {
		a, _ := model.MillisApart(v, limit)
		return a
	}
	return fmtMs(v)
}

// fmtMs formats milliseconds: 87 ms, 1.24 s, 12.3 s.
func fmtMs(ms float64) string {
	switch {
	case ms <= 0:
		return "0 ms"
	case ms < 1000:
		return fmt.Sprintf("%.0f ms", ms)
	case ms < 10000:
		return fmt.Sprintf("%.2f s", ms/1000)
	default:
		return fmt.Sprintf("%.1f s", ms/1000)
	}
}

// fmtDur formats a duration as fmtMs does.
func fmtDur(d time.Duration) string { return fmtMs(float64(d) / float64(time.Millisecond)) }

// fmtClock formats an elapsed time as mm:ss or h:mm:ss.
func fmtClock(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// fitWidth cuts a (possibly styled) line to at most w cells.
func fitWidth(line string, w int) string {
	if w <= 0 {
		return ""
	}
	if cellWidth(line) <= w {
		return line
	}
	return ansi.Truncate(line, w, "…")
}

// fitBlock cuts a block of lines to at most w cells wide and h lines high.
func fitBlock(s string, w, h int) string {
	if w <= 0 || h <= 0 || s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = fitWidth(l, w)
	}
	return strings.Join(lines, "\n")
}

// padRight pads a styled string with spaces to w cells (no-op when wider).
func padRight(s string, w int) string {
	if n := cellWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// joinSpread puts left at the start and right at the end of a w-cell line; when both
// do not fit, right is dropped first.
func joinSpread(left, right string, w int) string {
	lw, rw := cellWidth(left), cellWidth(right)
	if lw+1+rw > w {
		return fitWidth(left, w)
	}
	return left + strings.Repeat(" ", w-lw-rw) + right
}

// sideBySide joins blocks horizontally: each block's lines are cut or padded to its
// width (the last block is only cut), with gap spaces between.
func sideBySide(gap int, widths []int, blocks ...string) string {
	split := make([][]string, len(blocks))
	rows := 0
	for i, b := range blocks {
		split[i] = strings.Split(b, "\n")
		rows = max(rows, len(split[i]))
	}
	spaces := strings.Repeat(" ", gap)
	var sb strings.Builder
	for r := range rows {
		if r > 0 {
			sb.WriteByte('\n')
		}
		for i := range blocks {
			if i > 0 {
				sb.WriteString(spaces)
			}
			line := ""
			if r < len(split[i]) {
				line = split[i][r]
			}
			n := cellWidth(line)
			switch {
			case n > widths[i]:
				sb.WriteString(ansi.Truncate(line, widths[i], "…"))
			case i < len(blocks)-1:
				sb.WriteString(line)
				sb.WriteString(strings.Repeat(" ", widths[i]-n))
			default:
				sb.WriteString(line)
			}
		}
	}
	return sb.String()
}

// sloStyle picks Good at or above the target, Warn within 20% below it, Bad further below.
func sloStyle(st Styles, v, target float64) lipgloss.Style {
	switch {
	case target <= 0 || v >= target:
		return st.Good
	case v >= 0.8*target:
		return st.Warn
	default:
		return st.Bad
	}
}
