package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTTY is a terminal stand-in: keys are read from keys, the screen written to screen.
type fakeTTY struct {
	keys   io.Reader
	mu     sync.Mutex
	screen bytes.Buffer
	closed bool
}

func (f *fakeTTY) Read(p []byte) (int, error) { return f.keys.Read(p) }
func (f *fakeTTY) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.screen.Write(p)
}
func (f *fakeTTY) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

// TestScreenDrawsOnTTY: `tpsmon > run.md` draws the screen on the terminal and leaves
// only the summary on stdout.
func TestScreenDrawsOnTTY(t *testing.T) {
	tty, code, stdout, stderr := screenOnTTY(1500*time.Millisecond, "--profile", "fast")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "| users |") {
		t.Errorf("stdout holds no level table:\n%s", stdout.String())
	}
	if strings.Contains(stdout.String(), "\x1b[") {
		t.Errorf("stdout holds escape sequences (the screen was drawn there):\n%q", stdout.String())
	}
	tty.mu.Lock()
	defer tty.mu.Unlock()
	if tty.screen.Len() == 0 || !tty.closed {
		t.Errorf("terminal: %d bytes drawn, closed %v; want the screen drawn and the terminal closed", tty.screen.Len(), tty.closed)
	}
}

// screenOnTTY runs plain tpsmon with args on a fake terminal and presses q after wait:
// the terminal, the exit code, stdout and stderr.
func screenOnTTY(wait time.Duration, args ...string) (tty *fakeTTY, code int, stdout, stderr *bytes.Buffer) {
	keysR, keysW := io.Pipe()
	tty = &fakeTTY{keys: keysR}
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	a := &app{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr,
		getenv:  func(string) string { return "" },
		openTTY: func() (io.ReadWriteCloser, error) { return tty, nil }}
	go func() {
		time.Sleep(wait)
		_, _ = keysW.Write([]byte("q"))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code = a.execute(ctx, args)
	_ = keysW.Close()
	return tty, code, stdout, stderr
}

// TestNoTTYAtAll: with neither stdin/stdout nor a controlling terminal, exit 2 as before.
func TestNoTTYAtAll(t *testing.T) {
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv:  func(string) string { return "" },
		openTTY: func() (io.ReadWriteCloser, error) { return nil, errors.New("no such device") }}
	if code := a.execute(context.Background(), nil); code != exitUsage || !strings.Contains(stderr.String(), "needs a terminal") {
		t.Errorf("exit %d, stderr %q; want 2 and the no-terminal message", code, stderr.String())
	}
}

// TestScreenTimeSeriesEndsOnTheRunsDiagnosis: the live screen's --timeseries ends, as
// bench's does, with each endpoint's end line: what the run's judgement said of its
// diagnosis (replay ends on it, not on the last second's findings).
func TestScreenTimeSeriesEndsOnTheRunsDiagnosis(t *testing.T) {
	ts := filepath.Join(t.TempDir(), "run.jsonl")
	_, code, _, stderr := screenOnTTY(2500*time.Millisecond, "--profile", "fast", "--timeseries", ts)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	data, err := os.ReadFile(ts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var last struct {
		End          bool                           `json:"end"`
		RunDiagnosis []struct{ Kind, Words string } `json:"run_diagnosis"`
		Endpoint     string                         `json:"endpoint"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	said := regexp.MustCompile(`^nothing wrong seen \(\d+ requests\)$`)
	if len(lines) < 2 || !last.End || last.Endpoint != "simulator" || len(last.RunDiagnosis) != 1 ||
		last.RunDiagnosis[0].Kind != "nothing-wrong" || !said.MatchString(last.RunDiagnosis[0].Words) {
		t.Errorf("%d lines, the last %s; want the seconds, then the simulator's end line: \"nothing wrong seen (N requests)\"", len(lines), lines[len(lines)-1])
	}
	if !strings.Contains(stderr.String(), "wrote "+ts) {
		t.Errorf("stderr does not say the time series was written:\n%s", stderr.String())
	}
}
