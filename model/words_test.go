package model

import (
	"strings"
	"testing"
)

// TestWords are the small words of issue 14: "1 user" and "1 request/s" (never "1
// users", "1 requests/s"), one rule for ms and s on every line, figures apart from the
// target they miss.
func TestWords(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Users(1), "1 user"}, {Users(2), "2 users"}, {Users(0), "0 users"},
		{Rate(1), "1 request/s"}, {Rate(8), "8 requests/s"},
		{LevelName(false, 1), "1 user"}, {LevelName(true, 1), "1 request/s"},
		{LevelNames(false, []int{32}), "32 users"}, {LevelNames(false, []int{32, 64}), "32 and 64 users"},
		{LevelNames(true, []int{4, 8, 16}), "4, 8 and 16 requests/s"},
		{Plural(1, "core"), "1 core"}, {Plural(2, "core"), "2 cores"},
		{And(nil), ""}, {And([]string{"a"}), "a"}, {And([]string{"a", "b"}), "a and b"}, {And([]string{"a", "b", "c"}), "a, b and c"},
		{Millis(0.42), "0.42 ms"}, {Millis(3.4), "3.4 ms"}, {Millis(340), "340 ms"}, {Millis(999.4), "999 ms"},
		{Millis(999.7), "1.00 s"}, {Millis(1240), "1.24 s"}, {Millis(14557.2), "14.6 s"}, {Millis(125000), "125 s"},
		{MillisChange(20.6), "20.6 ms"}, {MillisChange(340), "340 ms"}, {MillisChange(9.94), "9.9 ms"}, {MillisChange(0.42), "0.42 ms"},
		{MillisChange(999.4), "999.4 ms"}, {MillisChange(999.7), "1.00 s"}, {MillisChange(14557.2), "14.6 s"},
		{Limit(2000), "2 s"}, {Limit(1500), "1.5 s"}, {Limit(500), "500 ms"}, {Limit(10000), "10 s"},
		{TokPerS(38.64), "38.6 tok/s"}, {TokPerS(740.4), "740 tok/s"},
		{Cell(29.97, 30, 1, true), "29.97"}, {Cell(29.97, 30, 1, false), "30.0"}, {Cell(25, 30, 1, true), "25.0"},
		{Cell(2000.4, 2000, 1, true), "2000.4"}, {Cell(2000.04, 2000, 1, true), "2000.04"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		v, limit float64
		want     string
	}{{14557.2, 2000, "14.6 s > 2 s"}, {2004, 2000, "2.004 s > 2 s"}, {2000.4, 2000, "2.0004 s > 2 s"}, {31, 25, "31 ms > 25 ms"},
		{1000.2, 1000, "1.0002 s > 1 s"}} {
		a, b := MillisApart(tc.v, tc.limit)
		if got := a + " > " + b; got != tc.want {
			t.Errorf("MillisApart(%v, %v) = %q, want %q", tc.v, tc.limit, got, tc.want)
		}
	}
	// A level's failure says its time by the same rule as the screen: never
	// "TTFT p95 14557.2 ms" on one line and "14.6 s" on the next.
	l := lvl(16, 40, 14557.2, 0, 300)
	if why := DefaultSLO.Failures(&l); len(why) != 1 || why[0] != "TTFT p95 14.6 s > 2 s" {
		t.Errorf("Failures = %q", why)
	}
}

// TestRampNoteNamesTheLevelsNotMeasured: "higher levels were not measured" was said
// after the ramp's last level too. The note names the levels of the ramp that were not
// reached, and says nothing when the ramp stopped at its last level. A stop rule's
// figures are said as of when it stopped: the note read "errors 27.27% > 5% (11
// requests)" beside the level's row of 20% (15 requests, those in flight then ended).
func TestRampNoteNamesTheLevelsNotMeasured(t *testing.T) {
	level := func(c int) ReportLevel {
		return ReportLevel{Concurrency: c, DurationS: 10, Requests: 40, Steady: 40, Succeeded: 38, ErrorRate: 0.05,
			Errors: map[string]int{"http_500": 2}, TTFTMs: LatencyJSON{P50: 100, P95: 200}, UserTPS: RateJSON{P50: 50}}
	}
	s := ReportSettings{Ramp: []int{1, 4, 16, 32, 64}, SLO: DefaultSLO.Report()}
	for _, tc := range []struct {
		end    string
		levels []int
		want   string
	}{
		{"stopped: errors 7.6% > 5% (26 requests)", []int{1, 4, 16}, "ramp stopped early by a stop rule at 16 users: errors 7.6% > 5% (26 requests) when it stopped; not measured: 32 and 64 users"},
		{"stopped: errors 7.6% > 5% (26 requests)", []int{1, 4, 16, 32, 64}, "ramp stopped early by a stop rule at 64 users: errors 7.6% > 5% (26 requests) when it stopped"},
		{RampEndManual, []int{1, 4, 16, 32, 64}, "ramp stopped by hand on the live screen (a key)"},
		{RampEndMaxDuration, []int{1, 4}, "ramp cut by the run's maximum duration; not measured: 16, 32 and 64 users"},
		{RampEndFinished, []int{1, 4, 16, 32, 64}, "ramp finished: every level was held"},
	} {
		e := ReportEndpoint{Name: "e", RampEnd: tc.end}
		for _, c := range tc.levels {
			e.Levels = append(e.Levels, level(c))
		}
		e.Levels[len(e.Levels)-1].Stopped = strings.HasPrefix(tc.end, "stopped")
		j := JudgeEndpoint(&s, &e, false, false)
		var got string
		for _, n := range j.Notes {
			if n.Kind == SayRamp {
				got = n.Text
			}
		}
		if got != tc.want {
			t.Errorf("%s at %v:\n got %q\nwant %q", tc.end, tc.levels, got, tc.want)
		}
	}
}

// TestPromptLengthNote: bench said "prompt 128 tokens" beside "input tokens mean 152"
// with no word on why. The judgement says why: the server counts with its own
// tokenizer, and the chat template wraps the message.
func TestPromptLengthNote(t *testing.T) {
	l := ReportLevel{Concurrency: 1, DurationS: 10, Requests: 20, Steady: 20, Succeeded: 20, Errors: map[string]int{},
		TTFTMs: LatencyJSON{P50: 100, P95: 200}, UserTPS: RateJSON{P50: 50}}
	l.Lengths.Input = LengthSummary{Count: 20, Mean: 151.9}
	for _, tc := range []struct {
		api, workload string
		prompt        int
		want          string
	}{
		{"chat", "", 128, "prompt: about 128 tokens asked (tpsmon's synthetic prompt counts a word a token); the server counted 152 on average (usage.prompt_tokens: its own tokenizer, and the chat template around the message)"},
		{"completions", "", 128, "prompt: about 128 tokens asked (tpsmon's synthetic prompt counts a word a token); the server counted 152 on average (usage.prompt_tokens: its own tokenizer)"},
		{"chat", "", 150, ""},                      // within 5%: nothing to explain
		{"chat", "dataset prompts.jsonl", 128, ""}, // a dataset's prompts are not the synthetic one
	} {
		s := ReportSettings{API: tc.api, PromptTokens: tc.prompt, Workload: tc.workload, SLO: DefaultSLO.Report()}
		e := ReportEndpoint{Name: "e", Levels: []ReportLevel{l}}
		var got string
		for _, n := range JudgeEndpoint(&s, &e, false, false).Notes {
			if n.Kind == SayLengths {
				got = n.Text
			}
		}
		if got != tc.want {
			t.Errorf("%s, prompt %d, workload %q:\n got %q\nwant %q", tc.api, tc.prompt, tc.workload, got, tc.want)
		}
	}
}
