package output

import (
	"errors"
	"fmt"
	"os"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/output/promexport"
	"github.com/tpsmon/tpsmon/probe/output/timeseries"
)

// TimeSeries is the time series (--timeseries): a line per second per endpoint,
// written as the run goes (timeseries.Writer), so that a crash keeps every line up to
// the last second.
type TimeSeries struct {
	path string
	f    *os.File
	w    *timeseries.Writer
}

// OpenTimeSeries creates the file (truncated) and returns its output.
func OpenTimeSeries(path string) (*TimeSeries, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot create the file: %v", plainPathError(err))
	}
	return &TimeSeries{path: path, f: f, w: timeseries.NewWriter(f)}, nil
}

// Observe writes the line of each live tick.
func (t *TimeSeries) Observe(e *engine.Engine, ev *probe.Event) { t.w.Observe(e, ev) }

// ObserveNotice records what the live screen's status line says (engine.NoticeObserver).
func (t *TimeSeries) ObserveNotice(e *engine.Engine, n engine.Notice) { t.w.ObserveNotice(e, n) }

// Writer is the file's writer (for SetServer).
func (t *TimeSeries) Writer() *timeseries.Writer { return t.w }

// End closes the file and says how many lines it holds, or why it stopped.
func (t *TimeSeries) End(rep *model.Report) (string, error) {
	if t.f == nil {
		return "", nil
	}
	t.w.End(rep) // the run's diagnosis, on each endpoint's last line
	err := t.f.Close()
	t.f = nil
	if werr := t.w.Err(); werr != nil {
		err = werr
	}
	if err != nil {
		return "", fmt.Errorf("cannot write: %v (%d lines written)", plainPathError(err), t.w.Lines())
	}
	return fmt.Sprintf("%s (%d lines)", t.path, t.w.Lines()), nil
}

// Metrics is tpsmon's own metrics for Prometheus (--metrics-addr), served while the run
// goes.
type Metrics struct {
	x    *promexport.Exporter
	srv  *promexport.Server
	addr string
}

// ServeMetrics listens at addr (promexport.ParseAddr's form) and serves the metrics.
func ServeMetrics(addr promexport.Addr) (*Metrics, error) {
	x := promexport.New()
	srv, err := promexport.Serve(addr.HostPort, x.Registry())
	if err != nil {
		return nil, fmt.Errorf("cannot listen: %v", plainNetError(err))
	}
	return &Metrics{x: x, srv: srv, addr: srv.Addr()}, nil
}

// Addr is where the metrics are served (HOST:PORT).
func (m *Metrics) Addr() string { return m.addr }

// Observe counts the event in the metrics.
func (m *Metrics) Observe(e *engine.Engine, ev *probe.Event) { m.x.Observe(e, ev) }

// End stops the server.
func (m *Metrics) End(*model.Report) (string, error) {
	if m.srv != nil {
		m.srv.Close()
		m.srv = nil
	}
	return "", nil
}

// plainNetError is a listen error without Go's "listen tcp" prefix.
func plainNetError(err error) error {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
}
