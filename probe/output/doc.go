// Package output holds every output of a run, in one folder, each an implementation of
// one contract, Output: the engine hands an output every event of the run as it happens
// (engine.Observer, on the engine's goroutine: cheap, never blocking), and End once, with
// the run's report, when the run is over.
//
// The outputs and where they live:
//
//   - timeseries: the time series (--timeseries), one JSON line per second per
//     endpoint, written as the run goes; replay reads it back. TimeSeries here.
//   - promexport: tpsmon's own metrics for Prometheus (--metrics-addr). Metrics here.
//   - results: the results for programs, results.json (--out) and the CSV (--csv).
//     JSON and CSV here.
//   - report: the files people read: bench's Markdown summary (Summary), the report
//     as Markdown, HTML, SVG and PNG (--report, tpsmon report) and compare. Summary and
//     Report here.
//
// Every word a person reads is the run's judgement (model.JudgeEndpoint, computed from
// the saved report): the outputs render it and never word a verdict of their own, so
// that the screen, bench's Markdown, the reports, replay and compare say the same.
//
// Imports point one way: model <- probe <- engine <- output <- ui <- cmd. The
// subpackages import model (timeseries and promexport the engine too); the report's
// pictures take their colours from themes, the palettes the screen uses.
//
// Adding an output touches this folder: a type with Observe and End here (and a
// subpackage when it is a new format), then one line where cmd/tpsmon builds the run's
// outputs.
package output
