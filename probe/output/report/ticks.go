package report

import (
	"strconv"

	"gonum.org/v1/plot"
)

// linearTicks is a tick at each x of a linear axis (a trace's windows), at most about
// ten of them labelled.
func linearTicks(xs []float64) []plot.Tick {
	step := 1 + len(xs)/10
	ticks := make([]plot.Tick, len(xs))
	for i, x := range xs {
		ticks[i].Value = x
		if i%step == 0 || i == len(xs)-1 {
			ticks[i].Label = strconv.FormatFloat(x, 'f', -1, 64)
		}
	}
	return ticks
}

// xTicks is a tick at each level, labelled where the label has room on a log axis: a
// level at least minLabelRatio times the previous label's, and the last level (the label
// before it left out when too close). Levels the capacity's bisection added between the
// ramp's (16, 19, 22, 23, 25, 32) would otherwise print over each other.
func xTicks(xs []float64) []plot.Tick {
	const minLabelRatio = 1.45
	ticks := make([]plot.Tick, len(xs))
	last := -1 // the index of the last label
	for i, x := range xs {
		ticks[i].Value = x
		if last < 0 || x >= minLabelRatio*xs[last] {
			ticks[i].Label, last = strconv.FormatFloat(x, 'f', -1, 64), i
		}
	}
	if n := len(xs) - 1; n > 0 && last != n {
		if last > 0 && xs[n] < minLabelRatio*xs[last] {
			ticks[last].Label = ""
		}
		ticks[n].Label = strconv.FormatFloat(xs[n], 'f', -1, 64)
	}
	return ticks
}
