package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/settings"
)

// progressPrinter shows bench progress on stderr: on a terminal, one line per endpoint
// redrawn in place; otherwise one plain line per level change.
type progressPrinter struct {
	w     io.Writer
	tty   bool
	width int
	lines []string
	drawn int
}

func newProgressPrinter(w io.Writer, endpoints int) *progressPrinter {
	pr := &progressPrinter{w: w, lines: make([]string, endpoints)}
	if fd, ok := fileDescriptor(w); ok && term.IsTerminal(fd) {
		pr.tty = true
		if width, _, err := term.GetSize(fd); err == nil && width > 0 {
			pr.width = width
		}
	}
	return pr
}

func (pr *progressPrinter) update(p engine.Progress) {
	if p.Note != "" {
		pr.note(p.Note)
		return
	}
	line := p.String()
	if !pr.tty {
		if p.LevelChange {
			fmt.Fprintf(pr.w, "tpsmon: %s\n", line)
		}
		return
	}
	if pr.width > 1 {
		line = ansi.Truncate(line, pr.width-1, "") // by display width, never inside a character
	}
	pr.lines[p.Endpoint] = line
	var b strings.Builder
	if pr.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", pr.drawn) // back to the first line
	}
	for _, l := range pr.lines {
		b.WriteString("\r\x1b[2K")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	pr.drawn = len(pr.lines)
	io.WriteString(pr.w, b.String())
}

// fileDescriptor returns the descriptor behind w or r when it is an *os.File.
func fileDescriptor(v any) (uintptr, bool) {
	if f, ok := v.(interface{ Fd() uintptr }); ok {
		return f.Fd(), true
	}
	return 0, false
}

// note says a line once above the progress lines (a terminal: they are drawn again
// under it).
func (pr *progressPrinter) note(line string) {
	if !pr.tty {
		fmt.Fprintf(pr.w, "tpsmon: %s\n", line)
		return
	}
	line = "tpsmon: " + line
	if pr.width > 1 {
		line = ansi.Truncate(line, pr.width-1, "")
	}
	var b strings.Builder
	if pr.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", pr.drawn)
	}
	b.WriteString("\r\x1b[2K" + line + "\n")
	for _, l := range pr.lines {
		b.WriteString("\r\x1b[2K" + l + "\n")
	}
	pr.drawn = len(pr.lines)
	fmt.Fprint(pr.w, b.String())
}

// sayPlan tells, before the wait, what this process will send (a shard's share) and
// when it starts (--start-at).
func sayPlan(w io.Writer, p *settings.Plan, now time.Time) {
	levels, unit := p.Ramp.Levels, "users"
	if p.Rate.On {
		unit = "requests/s"
	}
	if sh := p.Shard; sh != nil {
		shares := make([]string, len(levels))
		var none []string
		for i, l := range levels {
			n := sh.Users(l)
			shares[i] = strconv.Itoa(n)
			if n == 0 {
				none = append(none, strconv.Itoa(l))
			}
		}
		fmt.Fprintf(w, "tpsmon: shard %s: this process sends %s of the levels' %s %s (levels are recorded under the whole level's: merge the shards' results with tpsmon merge)\n",
			settings.ShardWords(sh), strings.Join(shares, ", "), joinInts(levels), unit)
		if len(none) > 0 {
			fmt.Fprintf(w, "tpsmon: shard %s sends nothing at the levels of %s %s (their load goes to the lower shards)\n", settings.ShardWords(sh), strings.Join(none, ", "), unit)
		}
	}
	if p.StartAt.IsZero() {
		return
	}
	if wait := p.StartAt.Sub(now); wait > 0 {
		fmt.Fprintf(w, "tpsmon: waiting %s for --start-at %s (the shards' clocks must agree: use NTP)\n",
			wait.Round(100*time.Millisecond), p.StartAt.UTC().Format(model.WindowLayout))
	}
}

// joinInts is "1, 2, 4".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
