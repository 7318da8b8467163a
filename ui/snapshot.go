package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/atomicfile"
)

// snapshotMsg reports where a snapshot was written, or why it was not.
type snapshotMsg struct {
	path string
	err  error
}

// snapshotCmd writes the report as JSON and its Markdown summary to timestamped files in
// dir (off the Update goroutine: the report is a copy that nothing else touches).
func snapshotCmd(dir string, r *model.Report, now time.Time) tea.Cmd {
	return func() tea.Msg {
		path, err := writeSnapshot(dir, r, now)
		return snapshotMsg{path: path, err: err}
	}
}

// writeSnapshot writes tpsmon-YYYYMMDD-HHMMSS.json and .md into dir and returns the
// JSON file's absolute path (what the status line shows, openable from any directory).
// A snapshot taken in the same second as an earlier one gets a -2, -3 ... suffix
// instead of overwriting it. Each file appears whole or not at all (probe/atomicfile).
func writeSnapshot(dir string, r *model.Report, now time.Time) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("cannot resolve snapshot directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("cannot create snapshot directory %s: %w", abs, err)
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	stem := filepath.Join(abs, "tpsmon-"+now.Format("20060102-150405"))
	for n := 1; n <= 100; n++ {
		base := stem
		if n > 1 {
			base = fmt.Sprintf("%s-%d", stem, n)
		}
		err := atomicfile.WriteNew(base+".json", append(js, '\n'), 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cannot write snapshot %s: %w", base+".json", err)
		}
		if err := atomicfile.Write(base+".md", []byte(model.Markdown(r)), 0o644); err != nil {
			return "", fmt.Errorf("cannot write snapshot summary %s: %w", base+".md", err)
		}
		return base + ".json", nil
	}
	return "", fmt.Errorf("cannot write snapshot: %s.json and 99 numbered variants exist in %s", stem, abs)
}

// shortenPath fits path into w cells by replacing leading directories with "…"
// ("…/bench/tpsmon-….json"); the file name is always kept whole.
func shortenPath(path string, w int) string {
	if ansi.StringWidth(path) <= w {
		return path
	}
	sep := string(filepath.Separator)
	parts := strings.Split(path, sep)
	out := parts[len(parts)-1]
	for i := len(parts) - 2; i >= 0; i-- {
		next := parts[i] + sep + out
		if ansi.StringWidth("…"+sep+next) > w {
			break
		}
		out = next
	}
	return "…" + sep + out
}
