package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/atomicfile"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output/report"
	"github.com/tpsmon/tpsmon/probe/output/results"
)

// atEnd is an output that does nothing as the run goes and writes itself at its end.
type atEnd struct{}

// Observe does nothing: the file is written from the report, at the end.
func (atEnd) Observe(*engine.Engine, *probe.Event) {}

// file writes data to path atomically: a run cut while writing leaves the old file
// whole. It says the path, or why it could not.
func file(path string, data []byte, err error, what string) (string, error) {
	if err == nil {
		err = atomicfile.Write(path, data, 0o644)
	}
	if err != nil {
		return "", fmt.Errorf("cannot write %s: %v", what, plainPathError(err))
	}
	return path, nil
}

// plainPathError is err without the operation and path of an *fs.PathError (the
// message names the file already).
func plainPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// JSONFile is results.json (--out): the report as JSON.
type JSONFile struct {
	atEnd
	Path string
}

// End writes the report.
func (f JSONFile) End(rep *model.Report) (string, error) {
	if rep == nil {
		return "", nil
	}
	data, err := results.JSON(rep)
	return file(f.Path, data, err, "the results")
}

// CSVFile is the CSV of the levels (--csv).
type CSVFile struct {
	atEnd
	Path string
}

// End writes the CSV.
func (f CSVFile) End(rep *model.Report) (string, error) {
	if rep == nil {
		return "", nil
	}
	return file(f.Path, []byte(results.CSV(rep)), nil, "the results")
}

// ReportFile is a report people read (--report): HTML, SVG, PNG or Markdown, by the
// file's extension (report.FormatOf). Run names the run in it.
type ReportFile struct {
	atEnd
	Path, Run string
}

// End writes the report.
func (f ReportFile) End(rep *model.Report) (string, error) {
	if rep == nil {
		return "", nil
	}
	format, err := report.FormatOf(f.Path)
	var buf bytes.Buffer
	if err == nil {
		var run *report.Run
		if run, err = report.NewRun(f.Run, rep); err == nil {
			err = report.Write(&buf, format, []*report.Run{run})
		}
	}
	return file(f.Path, buf.Bytes(), err, "the report")
}

// Summary is bench's Markdown (report.Summary) on a stream: stdout.
type Summary struct {
	atEnd
	W io.Writer
}

// End writes the summary; it says nothing of it (the reader sees it).
func (s Summary) End(rep *model.Report) (string, error) {
	if rep == nil {
		return "", nil
	}
	_, err := io.WriteString(s.W, report.Summary(rep))
	return "", err
}
