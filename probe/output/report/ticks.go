package report

import (
	"math"
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

// xTicks is a tick at each level, labelled where the label has room on a log axis: at
// least labelRatio(xs) times the labels beside it. The last level is labelled first,
// then the ramp's levels in order, then those the capacity's bisection added (added)
// where room is left: the ramp's own levels (1, 4, 16, 32) keep their labels beside
// the added (13, 14), which took 16's place, and the added between the ramp's (16, 19,
// 22, 23, 25, 32) do not print over each other.
func xTicks(xs []float64, added map[float64]bool) []plot.Tick {
	ticks := make([]plot.Tick, len(xs))
	for i, x := range xs {
		ticks[i].Value = x
	}
	if len(xs) == 0 {
		return ticks
	}
	ratio := labelRatio(xs)
	room := func(x float64) bool {
		for _, t := range ticks {
			if t.Label != "" && max(x/t.Value, t.Value/x) < ratio {
				return false
			}
		}
		return true
	}
	label := func(i int) {
		if room(xs[i]) {
			ticks[i].Label = strconv.FormatFloat(xs[i], 'f', -1, 64)
		}
	}
	label(len(xs) - 1)
	for _, bisected := range []bool{false, true} {
		for i, x := range xs {
			if added[x] == bisected {
				label(i)
			}
		}
	}
	return ticks
}

// labelRatio is how far apart (as a ratio) two labels of a log axis over xs stand at
// least: 1.45 over 1 to 32 users, where the small charts have about 30 points an
// octave; less over a narrower span (1.19 over 2 to 8 requests/s), never under 1.15.
func labelRatio(xs []float64) float64 {
	span := xs[len(xs)-1] * 1.3 * 1.3 / xs[0] // the axis, padded as newPlot pads it
	return max(1.15, math.Pow(span, 0.093))
}
