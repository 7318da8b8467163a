package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/settings"
)

// The flags of traces and conversations that do not go together are refused before
// anything runs, each saying what to do; bad trace lines name the file and the line.
func TestRealTrafficRefusals(t *testing.T) {
	trace := writeFile(t, "t.jsonl", `{"timestamp": 0, "input_length": 10, "output_length": 5}`+"\n")
	ds := writeFile(t, "d.jsonl", `{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]}`+"\n")
	bad := writeFile(t, "bad.jsonl", `{"timestamp": 5, "input_length": 10, "output_length": 5}`+"\n"+`{"timestamp": 1, "input_length": 10, "output_length": 5}`+"\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"trace and rate", []string{"bench", "--trace", trace, "--rate", "4"}, "--trace replays a trace's own requests on its own schedule: it excludes --rate"},
		{"trace and ramp", []string{"bench", "--trace", trace, "--ramp", "1,2"}, "it excludes --ramp"},
		{"trace and min-capacity", []string{"bench", "--trace", trace, "--min-capacity", "4"}, "--min-capacity judges a ramp's capacity, and a trace replayed on its schedule has no ramp"},
		{"trace and dataset", []string{"bench", "--trace", trace, "--dataset", ds}, "it excludes --dataset"},
		{"trace and shard", []string{"bench", "--trace", trace, "--shard", "0/2", "--start-at", "2030-01-01T00:00:00Z"}, "it excludes --shard"},
		{"trace on the screen", []string{"--trace", trace}, "run it with tpsmon bench --trace " + trace},
		{"a decreasing timestamp", []string{"bench", "--trace", bad}, "--trace " + bad + ": trace line 2: \"timestamp\" 1 is before the previous line's 5: a trace must be in time order"},
		{"speed", []string{"bench", "--trace", trace, "--trace-speed", "-1"}, "--trace-speed \"-1\": want a number above 0"},
		{"speed without a trace", []string{"bench", "--trace-window", "30s"}, "--trace-speed and --trace-window are for a trace: give --trace FILE too"},
		{"turns without a dataset", []string{"bench", "--turns", "all"}, "--turns all replays a dataset's conversations: give --dataset FILE too"},
		{"turns in rate mode", []string{"bench", "--turns", "all", "--dataset", ds, "--rate", "2"}, "a user in closed loop is a conversation); drop --rate"},
		{"bad turns", []string{"bench", "--turns", "most", "--dataset", ds}, "--turns \"most\": want first, all or a number of turns such as 3"},
		{"bad history", []string{"bench", "--turns", "all", "--dataset", ds, "--history", "server"}, "--history \"server\": want dataset (the dataset's answers) or live"},
		{"history alone", []string{"bench", "--history", "live"}, "--history and --think-time are for conversations"},
		{"unknown api", []string{"bench", "--api", "anthropic"}, "--api \"anthropic\": want chat (/chat/completions), completions (/completions), messages (Anthropic's /messages) or responses (OpenAI's /responses); for Anthropic's Messages API write messages"},
	} {
		r := cli(t, nil, nil, func(*settings.Plan) error { return errors.New("planned") }, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d\n%s\nwant exit %d saying %q", tc.name, r.code, r.stderr, exitUsage, tc.want)
		}
	}
}

// The config file's workload keys set a trace and conversations as the flags do.
func TestRealTrafficFromConfig(t *testing.T) {
	trace := writeFile(t, "t.jsonl", `{"timestamp": 0, "input_length": 10, "output_length": 5}`+"\n"+`{"timestamp": 40000, "input_length": 10, "output_length": 5}`+"\n")
	cfg := writeFile(t, "c.yaml", "workload:\n  trace: "+trace+"\n  trace_speed: 4\n  trace_window: 20s\n")
	var got *settings.Plan
	r := cli(t, nil, nil, func(p *settings.Plan) error { got = p; return errors.New("planned") }, "bench", "--config", cfg)
	if got == nil || got.Trace == nil {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if i := got.Trace.Info; i.Speed != 4 || i.WindowS != 20 || len(got.Ramp.Levels) != 2 || got.Ramp.Hold.Seconds() != 5 {
		t.Errorf("trace %+v, ramp %+v: want 2 windows of 20 s at 4x (5 s each)", i, got.Ramp)
	}
	bad := writeFile(t, "b.yaml", "workload:\n  think_time: soon\n")
	if r := cli(t, nil, nil, nil, "bench", "--config", bad); r.code != exitUsage || !strings.Contains(r.stderr, "line 2") || !strings.Contains(r.stderr, "workload.think_time") {
		t.Errorf("a bad think_time: exit %d: %s", r.code, r.stderr)
	}
}

// A trace replayed by bench against the built-in simulator: results.json names the
// trace and its windows, and the Markdown says whether its load was held.
func TestBenchReplaysATrace(t *testing.T) {
	var lines []string
	for i := range 60 {
		lines = append(lines, `{"timestamp": `+strconv.Itoa(i*50)+`, "input_length": 600, "output_length": 8, "hash_ids": [0, `+strconv.Itoa(10+i)+`]}`)
	}
	trace := writeFile(t, "t.jsonl", strings.Join(lines, "\n")+"\n")
	out := filepath.Join(t.TempDir(), "r.json")
	r := cli(t, nil, nil, nil, "bench", "--trace", trace, "--trace-window", "1.5s", "--profile", "fast", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep model.Report
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	// Held when tpsmon sent the trace on time; on a machine too busy to (a timer woken
	// more than 10 ms late under -race, for 2 of the 60 requests), not judged: the
	// verdict says what the run recorded.
	verdict := "**Verdict**: held at this trace's load: all 2 windows met the criteria"
	if tr := rep.Settings.Trace; tr != nil && tr.Late*100 > tr.Requests {
		verdict = "**Verdict**: not judged at this trace's load: all 2 windows met the criteria, but " + strconv.Itoa(tr.Late) + " of 60 requests left more than 10 ms late"
	}
	for _, want := range []string{"- trace: trace " + trace + ": 60 requests over 2.95 s, in windows of 1.48 s of the trace",
		"| window | requests |", verdict} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, r.stdout)
		}
	}
	if low := strings.ToLower(r.stdout); strings.Contains(low, "capacity") || strings.Contains(low, "saturat") {
		t.Errorf("a trace run speaks of capacity or saturation:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "level 2/2: window 2 (1.48-2.95 s of the trace)") {
		t.Errorf("the progress does not name the windows:\n%s", r.stderr)
	}
	if rep.Settings.Mode != "trace" || rep.Settings.Trace == nil || rep.Settings.Trace.Requests != 60 || len(rep.Endpoints[0].Levels) != 2 {
		t.Errorf("results.json: mode %q, trace %+v, %d levels", rep.Settings.Mode, rep.Settings.Trace, len(rep.Endpoints[0].Levels))
	}
}

// Conversations against the built-in simulator over the Responses API: the report
// names the API and the conversations, and each level its first and later turns.
func TestBenchPlaysConversations(t *testing.T) {
	t.Parallel()
	ds := writeFile(t, "d.jsonl", strings.Repeat(`{"messages": [{"role": "user", "content": "`+strings.Repeat("tell me more ", 80)+`"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}, {"role": "user", "content": "e"}]}`+"\n", 5))
	r := cli(t, nil, nil, nil, "bench", "--dataset", ds, "--turns", "all", "--history", "live", "--think-time", "100ms", "--api", "responses",
		"--profile", "fast", "--ramp", "4", "--hold", "2s", "--max-tokens", "16")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"- API: responses", "API responses", "- conversations: all turns of each conversation, each carrying the history (a user is a conversation) · the history holds the server's own answers · think time 0.1 s between turns",
		"TTFT by turn", "- 4 users: first turns: TTFT p50", "; later turns: TTFT p50", "Prefix cache (the server's own count): prompt tokens found cached: 4 users"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, r.stdout)
		}
	}
}
