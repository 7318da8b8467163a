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
	also   string // the other files, as the status line names them: ".md, .svg"
	err    error
	svgErr error // the JSON and Markdown were written, the SVG picture was not
}

// snapshotCmd writes the reports (one per mode the session measured: Engine.Reports) as
// JSON, their Markdown summary and an SVG picture of each degradation curve
// (probe/output/report) to timestamped files in dir (off the Update goroutine: the
// reports are copies that nothing else touches).
func snapshotCmd(dir string, rs []*model.Report, now time.Time) tea.Cmd {
	return func() tea.Msg {
		files, err := writeSnapshot(dir, rs, now)
		if err != nil {
			return snapshotMsg{err: err}
		}
		msg := snapshotMsg{path: files.json[0], also: ".md, .svg"}
		if len(rs) > 1 { // the summary holds every mode: name it first
			msg.path, msg.also = files.md, "-users.json, -rate.json and their .svg"
		}
		for i, r := range rs {
			if err := writeSnapshotSVG(strings.TrimSuffix(files.json[i], ".json")+".svg", r); err != nil && msg.svgErr == nil {
				msg.svgErr = err
			}
		}
		return msg
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

// snapshotFiles are the absolute paths a snapshot wrote: one JSON per report, and the
// Markdown summary of them all.
type snapshotFiles struct {
	json []string
	md   string
}

// writeSnapshot writes tpsmon-YYYYMMDD-HHMMSS.json and .md into dir: the JSON of the
// one report, or of each mode a session measured (-users.json and -rate.json), and one
// Markdown summary of them all (report.Summaries). A snapshot taken in the same second
// as an earlier one gets a -2, -3 ... suffix instead of overwriting it. Each file
// appears whole or not at all (probe/atomicfile).
func writeSnapshot(dir string, rs []*model.Report, now time.Time) (snapshotFiles, error) {
	var files snapshotFiles
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return files, fmt.Errorf("cannot resolve snapshot directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return files, fmt.Errorf("cannot create snapshot directory %s: %w", abs, err)
	}
	js := make([][]byte, len(rs))
	for i, r := range rs {
		if js[i], err = results.JSON(r); err != nil {
			return files, err
		}
	}
	stem := filepath.Join(abs, "tpsmon-"+now.Format("20060102-150405"))
	for n := 1; n <= 100; n++ {
		base := stem
		if n > 1 {
			base = fmt.Sprintf("%s-%d", stem, n)
		}
		if _, err := os.Stat(base + ".md"); err == nil {
			continue // an earlier snapshot of the other modes has this name
		}
		names := []string{base + ".json"}
		if len(rs) > 1 {
			names = nil
			for _, r := range rs {
				names = append(names, base+"-"+modeSuffix(r)+".json")
			}
		}
		err := atomicfile.WriteNew(names[0], js[0], 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return files, fmt.Errorf("cannot write snapshot %s: %w", names[0], err)
		}
		for i := 1; i < len(rs); i++ {
			if err := atomicfile.Write(names[i], js[i], 0o644); err != nil {
				return files, fmt.Errorf("cannot write snapshot %s: %w", names[i], err)
			}
		}
		files.json, files.md = names, base+".md"
		if err := atomicfile.Write(files.md, []byte(report.Summaries(rs)), 0o644); err != nil {
			return files, fmt.Errorf("cannot write snapshot summary %s: %w", files.md, err)
		}
		return files, nil
	}
	return files, fmt.Errorf("cannot write snapshot: %s.json and 99 numbered variants exist in %s", stem, abs)
}

// modeSuffix names the mode of a report's levels in a file name: "users" or "rate".
func modeSuffix(r *model.Report) string {
	if r.Settings.Mode == "rate" {
		return "rate"
	}
	return "users"
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
	also := msg.also
	if also == "" {
		also = ".md, .svg"
	}
	if msg.svgErr != nil {
		also = strings.TrimSuffix(strings.TrimSuffix(also, ", .svg"), " and their .svg")
		room := m.lay.Width - len("snapshot saved:  (+ ; no SVG: )") - len(also) - len(msg.svgErr.Error())
		m.say(true, "snapshot saved: %s (+ %s; no SVG: %v)", shortenPath(msg.path, room), also, msg.svgErr)
		return
	}
	room := m.lay.Width - len("snapshot saved:  (+ )") - len(also)
	m.say(false, "snapshot saved: %s (+ %s)", shortenPath(msg.path, room), also)
}
