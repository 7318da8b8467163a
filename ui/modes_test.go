package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output/timeseries"
)

// testRamp is a short ramp for the simulated pool.
func testRamp() engine.Ramp { return engine.Ramp{Levels: []int{2, 4, 8}, Hold: 5 * time.Second} }

// screen is the screen's text at its size.
func screen(m *root) string { return ansi.Strip(m.View().Content) }

// keys presses each key in turn.
func keys(m *root, ks ...string) {
	for _, k := range ks {
		m.Update(press(k))
	}
}

// TestRateModeStartsAtTheRateAchieved is issue 14's "m from 16 users starts at 16
// requests/s": 16 users whose answers take 7 s achieve about 2.1 requests/s (they all
// started at once: 64 answers in the last 30 s), so m starts
// rate mode at 2 requests/s and says why; the status line then always says the rate in
// force (after [ it says 1, never 16 nor the 2 it started at); m back starts users mode
// at the requests 1 request/s keeps in flight (7).
func TestRateModeStartsAtTheRateAchieved(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	p.ttft, p.dec = 200*time.Millisecond, 6800*time.Millisecond
	keys(m, "]", "]", "]", "]", "]") // 1, 2, 4, 8, 16 users
	if p.target != 16 {
		t.Fatalf("] x5 from 0: %d users, want 16", p.target)
	}
	p.run(m, 45*time.Second)
	keys(m, "m")
	if !p.open || p.target != 2 {
		t.Fatalf("after m: open %v at %d, want rate mode at 2 requests/s", p.open, p.target)
	}
	want := "rate mode: 2 requests/s, the rate 16 users achieved over the last 30 s (2.1/s); users levels kept (m)"
	if m.msg != want {
		t.Errorf("m says\n%q\nwant\n%q", m.msg, want)
	}
	p.run(m, 2*time.Second)
	out := screen(m)
	for _, w := range []string{"rate 2 req/s", want} {
		if !strings.Contains(out, w) {
			t.Errorf("the screen does not say %q:\n%s", w, out)
		}
	}
	keys(m, "[")
	p.run(m, 2*time.Second)
	out = screen(m)
	status := out[strings.LastIndex(out, "active "):]
	if p.target != 1 || !strings.Contains(out, "rate 1 req/s · active") || !strings.Contains(status, "now 1 request/s ([)") ||
		strings.Contains(status, "16 req") || strings.Contains(status, "2 requests/s") {
		t.Errorf("after [ (rate %d) the status line does not say the rate in force:\n%s", p.target, out)
	}
	// 1 request/s after 2 is steady after two rounds of 7 s answers (its own requests
	// sent while the 2 requests/s ones ended are waited for too), about 14 s in.
	p.run(m, 45*time.Second)
	keys(m, "m")
	if p.open || p.target != 7 {
		t.Errorf("m back: open %v at %d users, want 7 (1 request/s of 7 s answers keeps 7 in flight)", p.open, p.target)
	}
	if want := "users mode: 7 users, the mean in flight at 1 request/s over the last 30 s (7.0); rate levels kept (m)"; m.msg != want {
		t.Errorf("m back says\n%q\nwant\n%q", m.msg, want)
	}
}

// TestRateModeRightAfterAStep: m just as the load stepped up (4 users held 30 s, then ]
// to 8 and m at once, as a ramp steps up) finds no answer at 8 users yet: rate mode starts
// at what the seconds before achieved (4 users of 1 s answers: 4 requests/s), and says
// so, not at 1 request/s.
func TestRateModeRightAfterAStep(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	keys(m, "]", "]", "]") // 1, 2, 4 users
	p.run(m, 30*time.Second)
	keys(m, "]")
	p.run(m, 300*time.Millisecond) // 8 users sent, none answered
	keys(m, "m")
	if !p.open || p.target != 4 {
		t.Fatalf("m: open %v at %d, want rate mode at 4 requests/s", p.open, p.target)
	}
	want := "rate mode: 4 requests/s, the rate achieved over the last 30 s (4.0/s): no answer ended at 8 users yet; users levels kept (m)"
	if m.msg != want {
		t.Errorf("m says\n%q\nwant\n%q", m.msg, want)
	}
}

// TestRateModeFromFewAnswers: m 6 s after 8 users of 4 s answers became steady: their
// newest seconds hold too few answers to tell a rate (8 ended: 1.3/s), so the switch
// reads it from the level's answers by Little's law (8 users / 4 s: 2 requests/s).
func TestRateModeFromFewAnswers(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	p.ttft, p.dec = 200*time.Millisecond, 3800*time.Millisecond
	keys(m, "]", "]", "]", "]") // 1, 2, 4, 8 users
	p.run(m, 10*time.Second)
	keys(m, "m")
	want := "rate mode: 2 requests/s, the rate 8 users achieve at their answers' mean length (2.0/s); users levels kept (m)"
	if !p.open || p.target != 2 || m.msg != want {
		t.Errorf("m: open %v at %d, says\n%q\nwant 2 requests/s:\n%q", p.open, p.target, m.msg, want)
	}
}

// TestModesKeepTheirOwnLevels is issue 14's "m then m again": 2 users, then 2
// requests/s, then 2 users again are two levels, never merged; after m back every label
// is users again (header, curve, table, status), the users level holds both visits, and
// the quit summary has a users table and a rate table, each with its own verdict, and
// every request ended in exactly one of them.
func TestModesKeepTheirOwnLevels(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	keys(m, "]", "]") // 1 user, at once 2: the first request ends at 1 user
	p.run(m, 30*time.Second)
	keys(m, "m")
	if !p.open || p.target != 2 {
		t.Fatalf("m: open %v at %d, want 2 requests/s (2 users of 1 s answers)", p.open, p.target)
	}
	p.run(m, 30*time.Second)
	out := screen(m)
	for _, w := range []string{"rate 2 req/s", "(x = requests/s)", "rate/s"} {
		if !strings.Contains(out, w) {
			t.Errorf("rate mode: the screen does not say %q:\n%s", w, out)
		}
	}
	keys(m, "m")
	if p.open || p.target != 2 {
		t.Fatalf("m back: open %v at %d, want 2 users", p.open, p.target)
	}
	p.run(m, 20*time.Second)
	out = screen(m)
	for _, w := range []string{"users 2", "(x = users)", "  users "} {
		if !strings.Contains(out, w) {
			t.Errorf("back in users mode: the screen does not say %q:\n%s", w, out)
		}
	}
	for _, w := range []string{"req/s", "requests/s", "rate/s"} {
		if strings.Contains(out[:strings.Index(out, "active ")], w) {
			t.Errorf("back in users mode: the screen still says %q:\n%s", w, out)
		}
	}
	usersReqs, usersAll := levelRequests(m, 2)
	m.eng.Book(0).SetRateMode(true) // the rate levels, with the answers that ended after m back
	rateReqs, rateAll := levelRequests(m, 2)
	m.eng.Book(0).SetRateMode(false)
	sum := m.finish()
	for _, w := range []string{"## tpsmon results: users mode", "## tpsmon results: rate mode", "| users | requests |",
		"| rate req/s | requests |", "- ramp: none (every level set by hand)", "- ramp: none (every rate set by hand; poisson arrivals)"} {
		if !strings.Contains(sum, w) {
			t.Errorf("the quit summary does not say %q:\n%s", w, sum)
		}
	}
	users, rate := section(sum, "users mode"), section(sum, "rate mode")
	if strings.Count(users, "**Verdict**") != 1 || strings.Count(rate, "**Verdict**") != 1 || strings.Contains(users, "achieved req/s") {
		t.Errorf("each mode wants its own table and verdict:\n%s", sum)
	}
	if row := mdRow(users, "2"); row == nil || row[1] != itoa(usersReqs) {
		t.Errorf("users table: row of 2 users %q, want %d requests (both visits)", row, usersReqs)
	}
	if row := mdRow(rate, "2"); row == nil || row[1] != itoa(rateReqs) {
		t.Errorf("rate table: row of 2 requests/s %q, want %d requests", row, rateReqs)
	}
	if req, _, _ := m.eng.Book(0).Totals(); usersAll+rateAll != req {
		t.Errorf("%d users requests + %d rate requests != %d requests in all", usersAll, rateAll, req)
	}
}

// levelRequests is the requests of the focused endpoint's level at n in the mode in
// use, and those of all its levels.
func levelRequests(m *root, n int) (at, all int) {
	for _, l := range m.eng.Book(m.focus).Levels() {
		if l.Concurrency == n {
			at = l.Requests
		}
		all += l.Requests
	}
	return at, all
}

// section is the part of a quit summary under the heading that names mode.
func section(md, mode string) string {
	i := strings.Index(md, "## tpsmon results: "+mode)
	if i < 0 {
		return ""
	}
	s := md[i+1:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

// mdRow is the cells of the Markdown table row whose first cell is first (nil when none).
func mdRow(md, first string) []string {
	for _, line := range strings.Split(md, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if strings.HasPrefix(line, "| ") && cells[0] == first {
			return cells
		}
	}
	return nil
}

// rampToStop walks the ramp (2, 4, 8 users) until its stop rule ends it at 8 users,
// where the server fails every request.
func rampToStop(t *testing.T, m *root, p *simPool) {
	t.Helper()
	p.fail = func(conc int, open bool) bool { return conc >= 8 && !open }
	keys(m, "r")
	for range 60 {
		if !m.eng.Ramping() {
			break
		}
		p.run(m, 5*time.Second)
	}
	if end := m.eng.End(0); end.Kind != engine.EndStopped || end.Users != 8 {
		t.Fatalf("the ramp ended %+v, want stopped by a stop rule at 8 users", end)
	}
}

// TestQuitKeepsEveryLevelByMode is issue 14's "quitting drops earlier work": after a ramp
// that a stop rule ended, m and a rate level, the quit summary keeps the ramp's users
// levels with their verdict and how the ramp ended, and the rate level in a table of its
// own, whose settings name no ramp (none walked its rates) and whose notes say nothing of
// a stop rule.
func TestQuitKeepsEveryLevelByMode(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	rampToStop(t, m, p)
	keys(m, "m") // from the capacity it settled at: 4 users, 4 requests/s
	if p.target != 4 {
		t.Fatalf("m: %d requests/s, want 4", p.target)
	}
	p.run(m, 30*time.Second)
	keys(m, "q")
	sum := m.finish()
	users, rate := section(sum, "users mode"), section(sum, "rate mode")
	for _, w := range []string{"- ramp: 2, 4, 8 users", "capacity 4 users", "ramp stopped early by a stop rule at 8 users: errors 100%"} {
		if !strings.Contains(users, w) {
			t.Errorf("the users table does not say %q:\n%s", w, sum)
		}
	}
	for _, c := range []string{"2", "4", "8"} {
		if mdRow(users, c) == nil {
			t.Errorf("the users table has no row of %s users:\n%s", c, users)
		}
	}
	if mdRow(rate, "4") == nil || !strings.Contains(rate, "- ramp: none (every rate set by hand") ||
		strings.Contains(rate, "stop rule") || strings.Contains(rate, "not measured: ") {
		t.Errorf("the rate table:\n%s", rate)
	}
}

// TestClearSaysWhatItDrops: c after a ramp says which levels it cleared (they leave the
// quit summary too), and how that ramp ended is forgotten with them: the summary of the
// rate level measured next says nothing of a stop rule nor of a ramp.
func TestClearSaysWhatItDrops(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	rampToStop(t, m, p)
	keys(m, "c")
	if want := "cleared 2, 4 and 8 users (levels, curve, errors): the quit summary starts afresh"; m.msg != want {
		t.Errorf("c says %q, want %q", m.msg, want)
	}
	if !strings.Contains(screen(m), "cleared 2, 4 and 8 users") {
		t.Errorf("the screen does not say what c cleared:\n%s", screen(m))
	}
	keys(m, "m")
	p.run(m, 30*time.Second)
	sum := m.finish()
	if strings.Contains(sum, "stop rule") || strings.Contains(sum, "2, 4, 8 users") || mdRow(section(sum, "users mode"), "2") != nil {
		t.Errorf("the summary speaks of what c cleared:\n%s", sum)
	}
	if mdRow(section(sum, "rate mode"), "1") == nil { // c cleared what 4 users achieved: m starts at 1/s
		t.Errorf("the summary lost the rate level measured after c:\n%s", sum)
	}
}

// TestSnapshotKeepsEveryMode: s in a session that measured both modes writes each
// mode's results (-users.json, -rate.json, each with its SVG) and one Markdown of both,
// and says so. A level the load only passed through (4 users, then - - to 2 at once: 3
// users sent nothing) is no row of dashes, and settings name no ramp when none ran.
func TestSnapshotKeepsEveryMode(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	keys(m, "]", "]", "]") // 1, 2, 4 users
	p.run(m, 20*time.Second)
	keys(m, "-", "-") // 3 users, then 2: 3 users sent nothing
	p.run(m, 20*time.Second)
	keys(m, "m")
	p.run(m, 20*time.Second)
	_, cmd := m.Update(press("s"))
	msg := cmd().(snapshotMsg)
	m.Update(msg)
	if msg.err != nil || msg.svgErr != nil {
		t.Fatal(msg.err, msg.svgErr)
	}
	stem := strings.TrimSuffix(msg.path, ".md")
	if !strings.HasSuffix(msg.path, ".md") || !strings.Contains(screen(m), "(+ -users.json, -rate.json and their .svg)") {
		t.Errorf("snapshot %s; the screen says:\n%s", msg.path, screen(m))
	}
	md, err := os.ReadFile(msg.path)
	if err != nil {
		t.Fatal(err)
	}
	users := section(string(md), "users mode")
	if mdRow(users, "4") == nil || mdRow(users, "2") == nil || mdRow(users, "3") != nil || mdRow(section(string(md), "rate mode"), "2") == nil {
		t.Errorf("the snapshot's Markdown:\n%s", md)
	}
	if !strings.Contains(users, "- ramp: none (every level set by hand)") {
		t.Errorf("the snapshot's settings name a ramp that never ran:\n%s", users)
	}
	for _, mode := range []string{"users", "rate"} {
		js, err := os.ReadFile(stem + "-" + mode + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var r model.Report
		if err := json.Unmarshal(js, &r); err != nil {
			t.Fatal(err)
		}
		if r.Settings.Mode != map[string]string{"users": "", "rate": "rate"}[mode] || len(r.Settings.Ramp) != 0 ||
			len(r.Endpoints) != 1 || len(r.Endpoints[0].Levels) == 0 {
			t.Errorf("%s.json: settings %+v, %d endpoints", mode, r.Settings, len(r.Endpoints))
		}
		for _, l := range r.Endpoints[0].Levels {
			if (l.Rate != nil) != (mode == "rate") || l.Requests == 0 {
				t.Errorf("%s.json: level %d (rate %v, %d requests)", mode, l.Concurrency, l.Rate, l.Requests)
			}
		}
		if _, err := os.Stat(stem + "-" + mode + ".svg"); err != nil {
			t.Error(err)
		}
	}
}

// TestPausedSecondsBelongToNoLevel: 4 users held 20 s, paused 30 s, resumed 20 s: the
// level's steady window holds the 40 loaded seconds (less the warm-ups), not the pause,
// so its request rate is what 4 users achieve (1 s answers: 4/s), not diluted; m
// while paused starts rate mode from the loaded seconds only.
func TestPausedSecondsBelongToNoLevel(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	keys(m, "]", "]", "]")
	p.run(m, 20*time.Second)
	keys(m, "p")
	p.run(m, 30*time.Second)
	keys(m, "p")
	p.run(m, 20*time.Second)
	l, ok := m.eng.Book(0).Level(4)
	if !ok || l.Duration < 36*time.Second || l.Duration > 40*time.Second || l.RequestRate < 3.8 || l.RequestRate > 4.2 {
		t.Errorf("4 users: steady %v at %.2f requests/s (ok %v); want about 38 s at 4/s", l.Duration, l.RequestRate, ok)
	}
	keys(m, "p")
	p.run(m, 10*time.Second)
	keys(m, "m")
	if p.target != 4 || !strings.Contains(m.msg, "rate mode: 4 requests/s, the rate 4 users achieved over its level's steady") {
		t.Errorf("m while paused: %d requests/s, %q", p.target, m.msg)
	}
}

// TestTimeSeriesKeepsModesApart: the time series of a session that went from 2 users to
// 2 requests/s and back marks no clear at a switch, and replay shows at each moment the
// levels of the mode then in use: the rate level alone in rate mode, the users levels
// again after (2 requests/s never overwrites 2 users).
func TestTimeSeriesKeepsModesApart(t *testing.T) {
	var buf bytes.Buffer
	w := timeseries.NewWriter(&buf)
	m, p := newSimRoot(t, testRamp(), w)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	keys(m, "]", "]")
	p.run(m, 20*time.Second)
	keys(m, "m")
	p.run(m, 20*time.Second)
	keys(m, "m")
	p.run(m, 10*time.Second)
	s, err := timeseries.Read(&buf)
	if err != nil || w.Err() != nil {
		t.Fatal(err, w.Err())
	}
	r := newReplayEndpoint()
	var inRate []model.LevelStats
	for i := range s.Lines {
		l := &s.Lines[i]
		if l.Cleared {
			t.Fatalf("line %d (%.0f s) says the levels were cleared", i, l.ElapsedS)
		}
		r.apply(l)
		if r.rate {
			inRate = r.levelList()
		}
	}
	if len(inRate) != 1 || !inRate[0].OpenLoop || inRate[0].Concurrency != 2 {
		t.Errorf("replay in rate mode shows %+v, want the level of 2 requests/s alone", inRate)
	}
	users := r.levelList()
	if r.rate || len(users) != 2 || users[1].Concurrency != 2 || users[1].OpenLoop || users[1].Requests < 30 {
		t.Errorf("replay back in users mode shows %+v, want 1 and 2 users (both visits of 2)", users)
	}
}

// TestScreenSaysTheStopRulesVerdict: a ramp that a stop rule ended at its first level,
// before the level's steady requests (a third of the requests fail), is judged on the live screen as the run's report
// judges it (the stopped level bounds the capacity: "none"), never "not measured" on
// the screen beside "none" in the files.
func TestScreenSaysTheStopRulesVerdict(t *testing.T) {
	m, p := newSimRoot(t, testRamp())
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	n := 0
	p.fail = func(int, bool) bool { n++; return n%3 == 0 } // a third fail: the rule stops before the level's 20 requests
	keys(m, "r")
	for range 60 {
		if !m.eng.Ramping() {
			break
		}
		p.run(m, 5*time.Second)
	}
	if end := m.eng.End(0); end.Kind != engine.EndStopped {
		t.Fatalf("the ramp ended %+v, want stopped by a stop rule", end)
	}
	p.run(m, 2*time.Second)
	verdict := model.Judge(m.eng.Report(false)).Endpoints[0].Verdict.Text
	if !strings.HasPrefix(verdict, "capacity none") {
		t.Fatalf("the report's verdict %q", verdict)
	}
	capacity, _, _ := strings.Cut(verdict, "; saturation") // the screen's width keeps the capacity whole
	if out := screen(m); !strings.Contains(out, capacity) {
		t.Errorf("the screen does not say the report's capacity %q:\n%s", capacity, out)
	}
}
