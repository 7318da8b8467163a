package ui

import (
	"bytes"
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
	"github.com/tpsmon/tpsmon/probe/output/report"
	"github.com/tpsmon/tpsmon/probe/output/results"
)

// snapshotMsg reports where a snapshot was written, or why it was not.
type snapshotMsg struct {
	path   string
	err    error
	svgErr error // the JSON and Markdown were written, the SVG picture was not
}

// snapshotCmd writes the report as JSON, its Markdown summary and an SVG picture of the
// degradation curve (probe/output/report) to timestamped files in dir (off the Update goroutine:
// the report is a copy that nothing else touches).
func snapshotCmd(dir string, r *model.Report, now time.Time) tea.Cmd {
	return func() tea.Msg {
		path, err := writeSnapshot(dir, r, now)
		if err != nil {
			return snapshotMsg{err: err}
		}
		return snapshotMsg{path: path, svgErr: writeSnapshotSVG(strings.TrimSuffix(path, ".json")+".svg", r)}
	}
}

// writeSnapshotSVG writes the report's picture (verdict, curve, levels) as SVG, atomically.
func writeSnapshotSVG(path string, r *model.Report) error {
	run, err := report.NewRun(filepath.Base(strings.TrimSuffix(path, ".svg")+".json"), r)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, "svg", []*report.Run{run}); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes(), 0o644)
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
	js, err := results.JSON(r)
	if err != nil {
		return "", err
	}
	stem := filepath.Join(abs, "tpsmon-"+now.Format("20060102-150405"))
	for n := 1; n <= 100; n++ {
		base := stem
		if n > 1 {
			base = fmt.Sprintf("%s-%d", stem, n)
		}
		err := atomicfile.WriteNew(base+".json", js, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cannot write snapshot %s: %w", base+".json", err)
		}
		if err := atomicfile.Write(base+".md", []byte(report.Summary(r)), 0o644); err != nil {
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

// saySnapshot says where a snapshot was written; on a narrow screen it keeps the file
// name and cuts leading directories.
func (m *root) saySnapshot(msg snapshotMsg) {
	if msg.svgErr != nil {
		room := m.lay.Width - len("snapshot saved:  (+ .md; no SVG: )") - len(msg.svgErr.Error())
		m.say(true, "snapshot saved: %s (+ .md; no SVG: %v)", shortenPath(msg.path, room), msg.svgErr)
		return
	}
	room := m.lay.Width - len("snapshot saved:  (+ .md, .svg)")
	m.say(false, "snapshot saved: %s (+ .md, .svg)", shortenPath(msg.path, room))
}
