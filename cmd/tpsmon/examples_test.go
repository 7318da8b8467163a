package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe/sim"
)

// An example of a command's help, run as written through the command tree, with what
// a test must change: the endpoint (a simulator of the test's), the start of a sharded
// run (a moment ahead), the simulator's address (a free port), holds and answers short
// enough for a test, and its files: a bare file name is one in the example's own
// temporary directory (the examples run at once, so none changes the working
// directory), made by tpsmon itself when the example reads it.

// example is one line of a command's Example.
type example struct {
	cmd  string   // the command whose help shows it
	line string   // as written
	args []string // the words after "tpsmon"
}

// helpExamples returns every example line of every command's help.
func helpExamples(t *testing.T) []example {
	t.Helper()
	var out []example
	for path, c := range commandTree(t) {
		if c.Example == "" && c.Runnable() {
			t.Errorf("%s --help has no examples", path)
		}
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			words, err := shellWords(line)
			if err != nil {
				t.Errorf("%s: example %q: %v", path, line, err)
				continue
			}
			if len(words) == 0 || words[0] != "tpsmon" {
				t.Errorf("%s: example %q does not run tpsmon", path, line)
				continue
			}
			out = append(out, example{cmd: path, line: line, args: words[1:]})
		}
	}
	slices.SortFunc(out, func(a, b example) int { return strings.Compare(a.cmd+a.line, b.cmd+b.line) })
	return out
}

// shellWords splits an example as a POSIX shell would split a simple command: quotes
// group words, a comment ends the line, and a redirection (>), a pipe (|) or the end
// of a process substitution ends the command. "source <(tpsmon ...)" is its inner
// command.
func shellWords(line string) ([]string, error) {
	if i := strings.Index(line, "<(tpsmon "); i >= 0 {
		line = line[i+2:]
	}
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '"' || c == '\'':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed quote")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord, c == '>', c == '|', c == ')':
			i = len(line)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// inputExt are the extensions of the files an example reads: a positional argument,
// --config or --dataset.
var inputExt = map[string]bool{".json": true, ".jsonl": true, ".yaml": true, ".yml": true}

// examplesEnv is what the examples read: results files made once by tpsmon bench,
// copied where an example needs one.
type examplesEnv struct {
	results, timeseries, dataset string
	shards                       []string // shard-0.json ... shard-3.json of one run
}

// examplesSim starts a simulator serving my-model until the test ends, and returns its
// URL. Each example has its own: the examples run at once, and one's load must not
// change what another measures (a capacity, --min-capacity).
func examplesSim(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inst, err := sim.Start(ctx, "127.0.0.1:0", sim.Config{Name: "examples", Model: "my-model", Slots: 64,
		StepMs: 1, StepMsPerSeq: 0.02, TokensPerChunk: 1, Seed: 1, DefaultMaxTokens: 8})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close(); cancel() })
	return inst.URL
}

func newExamplesEnv(t *testing.T) *examplesEnv {
	t.Helper()
	url := examplesSim(t)
	dir := t.TempDir()
	e := &examplesEnv{results: filepath.Join(dir, "results.json"),
		timeseries: filepath.Join(dir, "run.jsonl"), dataset: filepath.Join(dir, "prompts.jsonl")}
	r := cli(t, nil, nil, nil, "bench", "--url", url, "--ramp", "1,2", "--hold", "100ms", "--max-hold", "1s",
		"--max-tokens", "8", "--out", e.results, "--timeseries", e.timeseries)
	if r.code != exitOK {
		t.Fatalf("making results.json: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.WriteFile(e.dataset, []byte(`{"prompt": "Say hello."}`+"\n"+`{"messages": [{"role": "user", "content": "Count to five."}], "max_tokens": 20}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	var wg sync.WaitGroup
	res := make([]result, 4)
	for i := range res {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		e.shards = append(e.shards, out) // read by no goroutine: append may move the slice
		wg.Go(func() {
			res[i] = cli(t, nil, nil, nil, "bench", "--url", url, "--ramp", "4,8", "--hold", "300ms", "--max-tokens", "8",
				"--shard", fmt.Sprintf("%d/4", i), "--start-at", start, "--out", out)
		})
	}
	wg.Wait()
	for i, r := range res {
		if r.code != exitOK {
			t.Fatalf("making shard-%d.json: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	return e
}

// fixture puts the input file an example names at path; url is the example's
// simulator (for a config file).
func (e *examplesEnv) fixture(t *testing.T, path, url string) {
	t.Helper()
	name, src := filepath.Base(path), ""
	switch ext := filepath.Ext(name); {
	case strings.HasPrefix(name, "shard-") && ext == ".json":
		var i int
		if _, err := fmt.Sscanf(name, "shard-%d.json", &i); err != nil || i >= len(e.shards) {
			t.Fatalf("no fixture for %s", name)
		}
		src = e.shards[i]
	case ext == ".json":
		src = e.results
	case ext == ".jsonl" && strings.Contains(name, "prompt"):
		src = e.dataset
	case ext == ".jsonl":
		src = e.timeseries
	case ext == ".yaml" || ext == ".yml":
		if err := os.WriteFile(path, []byte("endpoints:\n  - name: local\n    url: "+url+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return
	default:
		t.Fatalf("no fixture for %s", name)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

var (
	isURL = regexp.MustCompile(`^https?://`)
	// isFile is a bare file name an example reads or writes ("results.json").
	isFile = regexp.MustCompile(`^[\w.-]+\.(json|jsonl|yaml|yml|html|svg|png|md|csv)$`)
)

// prepare returns the example's arguments as the test runs them against the simulator
// at url, its files in dir, and makes its input files.
func (e *examplesEnv) prepare(t *testing.T, ex example, dir, url string) []string {
	t.Helper()
	args := slices.Clone(ex.args)
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub = args[0]
	}
	hasAddr, hasStart := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		prev := ""
		if i > 0 {
			prev = args[i-1]
		}
		switch {
		case isURL.MatchString(a):
			args[i] = url
		case prev == "--start-at":
			// 3 s ahead: under the race detector on a loaded machine the process starts late.
			args[i] = time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
			hasStart = true
		case prev == "--addr":
			args[i] = "127.0.0.1:0"
			hasAddr = true
		case isFile.MatchString(a):
			args[i] = filepath.Join(dir, a)
			input := prev == "--config" || prev == "--dataset" || i > 0 && !strings.HasPrefix(prev, "-")
			if _, err := os.Stat(args[i]); err != nil && input && inputExt[filepath.Ext(a)] {
				e.fixture(t, args[i], url)
			}
		}
	}
	switch sub {
	case "sim":
		if !hasAddr {
			args = append(args, "--addr", "127.0.0.1:0")
		}
	case "", "bench":
		if slices.Contains(args, "--version") {
			break
		}
		args = append(args, "--hold", "100ms", "--max-tokens", "8")
		if !hasStart {
			args = append(args, "--max-hold", "1s")
		}
	}
	return args
}

// keysAfter is a terminal's keyboard that presses q after a while.
type keysAfter struct {
	once  sync.Once
	delay time.Duration
	done  chan struct{}
}

func (k *keysAfter) Read(p []byte) (int, error) {
	sent := false
	k.once.Do(func() {
		select {
		case <-time.After(k.delay):
		case <-k.done:
		}
		sent = true
	})
	if sent {
		return copy(p, "q"), nil
	}
	<-k.done
	return 0, io.EOF
}

// runExample runs args through the command tree with a terminal for the screens (q is
// pressed after 2 s) and, for the simulator, a Ctrl-C once it serves. drawn is how
// much was drawn on the terminal.
func runExample(t *testing.T, args []string) (r result, drawn int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	keys := &keysAfter{delay: 2 * time.Second, done: make(chan struct{})}
	defer close(keys.done)
	tty := &fakeTTY{keys: keys}
	var stdout, stderr syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv:  func(string) string { return "" },
		openTTY: func() (io.ReadWriteCloser, error) { return tty, nil }}
	if len(args) > 0 && args[0] == "sim" {
		go func() {
			for !strings.Contains(stdout.String(), "serving ") && ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
		}()
	}
	code := a.execute(ctx, args)
	tty.mu.Lock()
	defer tty.mu.Unlock()
	return result{code, stdout.String(), stderr.String()}, tty.screen.Len()
}

// TestHelpExamplesRun: every example of every command's help runs and succeeds, and
// each help ends with its examples.
func TestHelpExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example against a simulator")
	}
	exs := helpExamples(t)
	if len(exs) < 20 {
		t.Fatalf("found %d examples", len(exs))
	}
	for path := range commandTree(t) {
		words := strings.Fields(path)[1:]
		r := cli(t, nil, nil, nil, append(words, "--help")...)
		c := commandTree(t)[path]
		if c.Example != "" && !strings.HasSuffix(strings.TrimRight(r.stdout, "\n"), "Examples:\n"+strings.TrimRight(c.Example, "\n")) {
			t.Errorf("%s --help does not end with its examples:\n%s", path, r.stdout)
		}
	}
	e := newExamplesEnv(t)
	for _, ex := range exs {
		t.Run(ex.line, func(t *testing.T) {
			t.Parallel()
			args := e.prepare(t, ex, t.TempDir(), examplesSim(t))
			r, drawn := runExample(t, args)
			if r.code != exitOK {
				t.Errorf("%s (run as tpsmon %s): exit %d\nstdout:\n%s\nstderr:\n%s", ex.line, strings.Join(args, " "), r.code, r.stdout, r.stderr)
			}
			wrote := false
			for _, f := range []string{"--out", "-o", "--csv", "--report", "--timeseries"} {
				if i := slices.Index(args, f); i >= 0 && i+1 < len(args) {
					if st, err := os.Stat(args[i+1]); err != nil || st.Size() == 0 {
						t.Errorf("%s: %s %s was not written", ex.line, f, args[i+1])
					}
					wrote = true
				}
			}
			if strings.TrimSpace(r.stdout) == "" && !wrote && drawn == 0 {
				t.Errorf("%s: printed nothing, wrote no file and drew no screen", ex.line)
			}
		})
	}
}
