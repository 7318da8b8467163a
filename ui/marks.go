package ui

// seriesMark is how an endpoint's curve is told apart from the others' besides its
// colour (and alone in the mono theme): the marker on its levels and its line's dash,
// shown in the legend as a sample ("━• dc  ╍▪ l4").
type seriesMark struct {
	dot  rune   // the marker on a measured level
	line string // the legend's line sample
	dash []int  // braille dots on, off, on... along the line; nil: solid
}

// seriesMarks are the endpoints' marks, in order (cycling).
var seriesMarks = []seriesMark{
	{dot: '•', line: "━"},
	{dot: '▪', line: "╍", dash: []int{4, 3}},
	{dot: '▴', line: "┅", dash: []int{1, 2}},
	{dot: '◦', line: "┉", dash: []int{6, 2, 1, 2}},
}

// markOf is endpoint i's mark.
func markOf(i int) seriesMark { return seriesMarks[i%len(seriesMarks)] }

// sample is the mark as the legend shows it: the line and the marker.
func (m seriesMark) sample() string { return m.line + string(m.dot) }

// dashOn reports whether the k-th dot along a line with dash pattern dash is drawn.
func dashOn(dash []int, k int) bool {
	if len(dash) == 0 {
		return true
	}
	period := 0
	for _, d := range dash {
		period += d
	}
	k %= period
	for i, d := range dash {
		if k < d {
			return i%2 == 0
		}
		k -= d
	}
	return true
}
