package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output/timeseries"
)

// statusLines is the status panel's text, line by line (trailing spaces left out).
func statusLines(p *statusPanel) []string {
	lines := strings.Split(ansi.Strip(p.View()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// TestModeAndClearWordsFitNarrowScreens: m's and c's sentences run past 80 columns; on a
// status line of one line for them (a verdict above, or the last error) they are said
// in a shorter form that fits whole, never cut mid-word ("…; u…"), and at 120 columns
// the whole sentence fits. Each form keeps the mode, the load it starts at and that
// the other mode's levels are kept.
func TestModeAndClearWordsFitNarrowScreens(t *testing.T) {
	m := &root{}
	type said struct {
		name, long string
		short      []string
	}
	var cases []said
	for _, tc := range []struct {
		on bool
		st engine.ModeStart
	}{
		{true, engine.ModeStart{N: 2, From: 16, Seen: 2.3, Over: 30 * time.Second, How: engine.SeenLive}},
		{true, engine.ModeStart{N: 4, From: 8, Seen: 4, Over: 30 * time.Second, How: engine.SeenRecent}},
		{true, engine.ModeStart{N: 2, From: 8, Seen: 2, How: engine.SeenLittle}},
		{true, engine.ModeStart{N: 1, From: 16, How: engine.SeenNothing}},
		{false, engine.ModeStart{N: 16, From: 2, Seen: 15.6, Over: 30 * time.Second, How: engine.SeenLevel}},
		{false, engine.ModeStart{N: 16, From: 32, Seen: 15.6, Over: 30 * time.Second, How: engine.SeenRecent}},
		{false, engine.ModeStart{N: 1, From: 32, How: engine.SeenNothing}},
	} {
		long, short := m.modeWords(tc.on, []engine.ModeStart{tc.st})
		cases = append(cases, said{long, long, short})
	}
	if _, short := m.modeWords(true, []engine.ModeStart{{N: 2, From: 16, Seen: 2.3, Over: 30 * time.Second, How: engine.SeenLive}}); short[0] != "rate mode at 2 requests/s (16 users' rate); users levels kept" {
		t.Errorf("m's short form: %q", short[0])
	}
	if _, short := m.modeWords(false, []engine.ModeStart{{N: 7, From: 1, Seen: 7, Over: 30 * time.Second, How: engine.SeenLive}}); short[0] != "users mode at 7 users (in flight at 1 request/s); rate levels kept" {
		t.Errorf("m back's short form: %q", short[0])
	}
	cases = append(cases, said{"c", "cleared 1, 2, 4, 8, 16 and 32 users and 2, 3 and 4 requests/s (levels, curve, errors): the quit summary starts afresh",
		[]string{"cleared 9 levels: the quit summary starts afresh", "cleared 9 levels"}})
	verdict := []verdict{{Full: "capacity at least 16 users, not decided at 95%; saturation not measured", Short: "capacity at least 16 users"}}
	for _, c := range cases {
		for _, w := range []int{80, 120} {
			p := sized(&statusPanel{}, size{w, 3})
			p.SetData(statusData{Active: 2, Requests: 40, Succeeded: 40, Verdicts: verdict, Message: c.long, Shorter: c.short})
			lines := statusLines(p)
			got := lines[len(lines)-1]
			want := c.long
			if len(c.long) > w {
				want = c.short[0]
			}
			if got != want || strings.Contains(got, "…") {
				t.Errorf("%s at %d columns: the status says\n%q\nwant\n%q", c.name, w, got, want)
			}
			for _, s := range c.short {
				if len(s) > 80 || !strings.HasPrefix(c.long, strings.Fields(s)[0]) {
					t.Errorf("%s: the short form %q does not fit 80 columns or names another action", c.name, s)
				}
			}
		}
	}
}

// TestStatusMessageWraps: a message wider than the panel takes the line that nothing
// needing attention leaves blank, broken at a space; with the last error on that line
// it is said in its short form; on a panel too narrow even for that, the shortest form
// is cut, not the whole sentence.
func TestStatusMessageWraps(t *testing.T) {
	long := "cleared 1, 2 and 4 users and 2 requests/s (levels, curve, errors): the quit summary starts afresh"
	short := []string{"cleared 4 levels: the quit summary starts afresh", "cleared 4 levels"}
	p := sized(&statusPanel{}, size{80, 3})
	p.SetData(statusData{Active: 2, Requests: 40, Succeeded: 40, Message: long, Shorter: short})
	lines := statusLines(p)
	if len(lines) != 3 || lines[1]+" "+lines[2] != long || strings.HasSuffix(lines[1], " ") {
		t.Errorf("the message does not wrap at a space onto the spare line:\n%s", strings.Join(lines, "\n"))
	}
	p.SetData(statusData{Active: 2, Requests: 40, Succeeded: 39, Errors: map[model.ErrorKind]int{model.ErrTimeout: 1},
		LastError: "timeout: no event for 60s", Message: long, Shorter: short})
	if lines := statusLines(p); len(lines) != 3 || lines[1] != "last error: timeout: no event for 60s" || lines[2] != short[0] {
		t.Errorf("with the last error, the message's short form:\n%s", strings.Join(lines, "\n"))
	}
	p = sized(&statusPanel{}, size{30, 2})
	p.SetData(statusData{Active: 2, Requests: 40, Succeeded: 40, Message: long, Shorter: short})
	if lines := statusLines(p); lines[1] != "cleared 4 levels" {
		t.Errorf("at 30 columns: %q", lines)
	}
}

// TestModeSwitchSaidWholeAt80: m and m back on an 80x24 screen, as a user does it:
// rate mode starts with no verdict yet, so its sentence wraps onto the status's spare
// line; back in users mode, the users verdict takes that line and the short form is
// said, whole.
func TestModeSwitchSaidWholeAt80(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	keys(m, "]", "]") // 1 user, then 2
	p.run(m, 30*time.Second)
	keys(m, "m")
	p.run(m, time.Second)
	out := screen(m)
	if !strings.Contains(strings.Join(strings.Fields(out), " "), m.msg) || strings.Contains(out, "…") {
		t.Errorf("rate mode's sentence %q is not whole on the screen:\n%s", m.msg, out)
	}
	p.run(m, 40*time.Second)
	keys(m, "m")
	p.run(m, time.Second)
	out = screen(m)
	if want := "users mode at 2 users (in flight at 2 requests/s); rate levels kept"; !strings.Contains(out, want+"\n") || strings.Contains(out, "…") {
		t.Errorf("m back at 80 columns does not say %q whole:\n%s", want, out)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	if out := screen(m); !strings.Contains(out, m.msg) {
		t.Errorf("at 120 columns the whole sentence %q is not said:\n%s", m.msg, out)
	}
}

// TestVerdictKeepsWholeClauses: on a screen too narrow for a verdict's short form, the
// status keeps its whole clauses that fit (the capacity), not a clause cut mid-word
// ("saturation n…" at 60 columns).
func TestVerdictKeepsWholeClauses(t *testing.T) {
	v := verdict{Full: "capacity at least 2 users, not decided at 95% (2 users undecided); saturation not reached (every doubling of users added at least 10% aggregate tok/s)",
		Short: "capacity at least 2 users, not decided at 95%; saturation not reached"}
	for _, c := range []struct {
		w    int
		want string
	}{
		{80, "capacity at least 2 users, not decided at 95%; saturation not reached"},
		{60, "capacity at least 2 users, not decided at 95%"},
	} {
		p := sized(&statusPanel{}, size{c.w, 3})
		p.SetData(statusData{Active: 2, Requests: 19, Succeeded: 19, Verdicts: []verdict{v}})
		lines := strings.Split(ansi.Strip(p.View()), "\n")
		if len(lines) < 2 || strings.TrimRight(lines[1], " ") != c.want {
			t.Errorf("at %d columns: %q, want %q", c.w, lines, c.want)
		}
	}
}

// TestRampStartSaidWholeAt80: r on an 80x24 screen with a verdict on the status line:
// the auto-ramp's sentence (its levels, the rule, the refinement) is said in a form that
// fits whole, never cut ("each held until decided at 95% (5 s …"); at 120 columns, whole.
func TestRampStartSaidWholeAt80(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	keys(m, "]", "]")
	p.run(m, 30*time.Second)
	keys(m, "r")
	p.run(m, 100*time.Millisecond)
	out := screen(m)
	if strings.Contains(out, "…") || !strings.Contains(out, "auto-ramp") || !strings.Contains(out, "2,4,8 users") {
		t.Errorf("the auto-ramp's start is not said whole at 80 columns (%q):\n%s", m.msg, out)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	if out := screen(m); !strings.Contains(out, m.msg) {
		t.Errorf("at 120 columns the whole sentence %q is not said:\n%s", m.msg, out)
	}
}

// TestRampProgressWholeAt80: through a whole auto-ramp on an 80x24 screen, the header's
// ramp words and the level table's progress line are never cut mid-word: what does not
// fit gives way a whole clause at a time ("~20s", then "~5 more"), and the level and its
// count of steady requests always stay.
func TestRampProgressWholeAt80(t *testing.T) {
	m, p := newSimRoot(t, engine.Ramp{Levels: []int{2, 4, 8, 16, 32}, Hold: 5 * time.Second})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	keys(m, "r")
	seen := 0
	for range 240 {
		p.run(m, 500*time.Millisecond)
		lines := strings.Split(screen(m), "\n")
		if !strings.Contains(lines[1], "ramp ") {
			continue
		}
		seen++
		for _, l := range lines {
			if (l == lines[1] || strings.HasPrefix(l, "▸ ") && strings.Contains(l, "steady")) && strings.Contains(l, "…") {
				t.Fatalf("cut at 80 columns:\n%s", screen(m))
			}
		}
		if !strings.Contains(lines[1], "ramp off") && !strings.Contains(lines[1], " users, ") {
			t.Fatalf("the header lost the ramp's level:\n%s", lines[1])
		}
	}
	if seen == 0 {
		t.Fatal("no frame showed the ramp")
	}
}

// TestWrapKeepsNumbersWithUnits: a status sentence wrapped onto a second line is never
// broken between a number and its unit ("(5 s to 120" / "s); then ...").
func TestWrapKeepsNumbersWithUnits(t *testing.T) {
	s := "auto-ramp started: 2,4,8,16,32 users, each held until decided at 95% (5 s to 120 s); then confirms the capacity"
	lines := wrapWords(s, 80)
	if len(lines) != 2 || strings.Join(lines, " ") != s || strings.HasPrefix(lines[1], "s)") {
		t.Errorf("wrapped as %q", lines)
	}
	if lines := wrapWords("waited 30 s", 9); len(lines) != 2 || lines[1] != "30 s" {
		t.Errorf("a number and its unit kept together: %q", lines)
	}
}

// TestReplaySaysTheShortFormsAt80: the time series records a key's sentence with its
// shorter forms, and replay at 80 columns says the one that fits, whole, as the live
// screen did ("auto-ramp: 2,4,8 users, each until decided at 95%"), not a cut of the long one.
func TestReplaySaysTheShortFormsAt80(t *testing.T) {
	var buf bytes.Buffer
	w := timeseries.NewWriter(&buf)
	m, p := newSimRoot(t, testRamp(), w)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	keys(m, "]", "]")
	p.run(m, 30*time.Second)
	keys(m, "r")
	p.run(m, 20*time.Second) // until a verdict takes the status's spare line
	live := screen(m)
	s, err := timeseries.Read(&buf)
	if err != nil || w.Err() != nil {
		t.Fatal(err, w.Err())
	}
	var said *timeseries.Said
	for i := range s.Lines {
		for j := range s.Lines[i].Said {
			if strings.HasPrefix(s.Lines[i].Said[j].Text, "auto-ramp started") {
				said = &s.Lines[i].Said[j]
			}
		}
	}
	if said == nil || len(said.Shorter) == 0 {
		t.Fatalf("the ramp's start is not recorded with its shorter forms: %+v", said)
	}
	r := newTestReplay(t, s)
	r.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	r.at(0)
	r.at(time.Hour)
	out := ansi.Strip(r.View().Content)
	short := said.Shorter[len(said.Shorter)-1]
	if !strings.Contains(live, short) || !strings.Contains(out, short) || strings.Contains(out, "(5 s …") {
		t.Errorf("replay at 80 columns does not say %q whole as the live screen did:\nlive:\n%s\nreplay:\n%s", short, live, out)
	}
	// The header's ramp words give way whole clauses to where the replay stands, not "2…".
	if head := strings.Split(out, "\n")[1]; strings.Contains(head, "…") || !strings.Contains(head, "replay ") {
		t.Errorf("replay's header at 80 columns: %q", head)
	}
}
