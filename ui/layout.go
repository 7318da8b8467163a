package ui

// layout is the screen's arithmetic: every panel's height (0 = hidden) and width.
type layout struct {
	Width, Height int
	Header        int
	Series        int
	Server        int // the server's view, tpsmon's own load and the diagnosis (withServer)
	Curve, CurveW int
	Table, TableW int
	Beside        bool // the table sits right of the curve
	Status        int
	Help          int
	Gap           int // blank lines between sections
}

// besideW is the narrowest screen on which the level table sits beside the curve.
const besideW = 120

// computeLayout splits a w x h screen. helpH is the help footer's wanted height (1 for
// the short help). Space is given in this order, so a small screen loses panels from
// the end: header, help, status, the three series, the curve, the level table.
func computeLayout(w, h, helpH int) layout {
	l := layout{Width: w, Height: h}
	if w <= 0 || h <= 0 {
		return l
	}
	rest := h
	take := func(want int) int {
		n := min(max(want, 0), rest)
		rest -= n
		return n
	}
	l.Header = take(map[bool]int{true: 2, false: 1}[h >= 10])
	l.Help = take(min(helpH, max(h/3, 1)))
	switch {
	case h >= 34:
		l.Status = take(3)
	case h >= 14:
		l.Status = take(2)
	default:
		l.Status = take(1)
	}
	if h >= 36 {
		l.Gap = 1
		rest -= 3
	}
	if w >= seriesCols {
		l.Series = take(min(max(rest/4, 3), 11))
	} else {
		per := min(max((rest-14)/3, 1), 4)
		l.Series = take(3 * per)
	}
	body := rest
	l.CurveW = w
	switch {
	case body < 2:
		// nothing more fits
	case w >= besideW:
		l.Beside = true
		l.TableW = tableWidth()
		l.CurveW = w - l.TableW - 2
		l.Curve, l.Table = body, body
	case body >= 12:
		l.Table = max(body*2/5, 4)
		l.Curve = body - l.Table
		l.TableW = w
	default:
		l.Curve = body
	}
	if l.Curve == 0 && l.Table == 0 {
		// the unused lines go back to the series
		l.Series += body
	}
	return l
}
