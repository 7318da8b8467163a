package model

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// The word helpers: every surface (the screen, bench's Markdown, the reports, replay,
// compare) says counts, loads, durations and rates with these, so that "1 user",
// "1 request/s" and one rule for ms and s hold on every line.

// Plural is n and word, with an s unless n is 1: "1 user", "2 users", "0 requests".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// Users is "1 user" or "n users".
func Users(n int) string { return Plural(n, "user") }

// Rate is an arrival rate: "1 request/s", "8 requests/s".
func Rate(n int) string { return Plural(n, "request") + "/s" }

// LevelName names a level of load n in the run's terms: users ("8 users"), or in rate
// mode an arrival rate ("8 requests/s").
func LevelName(rate bool, n int) string {
	if rate {
		return Rate(n)
	}
	return Users(n)
}

// LevelNames names several levels at once: "16 users", "16 and 32 users", "4, 8 and
// 16 requests/s".
func LevelNames(rate bool, ns []int) string {
	switch len(ns) {
	case 0:
		return ""
	case 1:
		return LevelName(rate, ns[0])
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	unit := " users"
	if rate {
		unit = " requests/s"
	}
	return And(parts) + unit
}

// And joins words as a sentence lists them: "a", "a and b", "a, b and c".
func And(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// WindowName names window n of a trace by its span, from and to in the trace's own
// seconds: "window 2 (9.64-19.29 s of the trace)".
func WindowName(n int, from, to float64) string {
	return "window " + strconv.Itoa(n) + " (" + fmtNum(from, 2) + "-" + fmtNum(to, 2) + " s of the trace)"
}

// Names joins several names: "a", "a and b", "a, b and c".
func Names(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// LevelColumn is the heading of a table's level column: "users", "rate req/s" in rate
// mode, or "window" when the levels are windows of a trace.
func LevelColumn(rate, trace bool) string {
	switch {
	case trace:
		return "window"
	case rate:
		return "rate req/s"
	}
	return "users"
}

// LoadName is what the levels step, for "doubling users" and "doubling the rate".
func LoadName(rate bool) string {
	if rate {
		return "the rate"
	}
	return "users"
}

// Millis says a time given in milliseconds, with the one rule for ms and s that every
// line follows: below a second in ms ("0.42 ms", "3.4 ms", "340 ms"), from a second in s
// ("1.24 s", "12.3 s", "95.0 s", "125 s"); "-" when v is not a number.
func Millis(v float64) string { return millis(v, 0) }

// MillisChange says a time in a change's sentence ("TTFT p95 20.6 ms → 26.5 ms
// (+28.6%)"): by the one rule for ms and s (Millis), but with one decimal from 10 ms to a
// second, the precision of the tables' ms columns (a trailing ".0" dropped, as they drop
// it). The change beside the figures is computed from the figures themselves; said with
// Millis's whole ms, 20.6 → 26.5 ms would read "21 ms → 26 ms (+28.6%)", from which a
// reader computes +23.8%. With three significant figures from 10 ms on (and Millis's own
// from a second on), the change recomputed from what is said is within a few tenths of a
// point of the one printed.
func MillisChange(v float64) string {
	if v >= 9.95 && v < 999.5 {
		return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " ms"
	}
	return Millis(v)
}

// TPSChange says a rate in tokens/s (without its unit) in a change's sentence and
// cells with the precision of the tables' tok/s columns: one decimal, ".0" kept as the
// cells keep it ("71.0 → 71.1 tok/s (+0.1%)", never "71 → 71.1", which reads as a
// figure the tables do not show). It rounds as the cells do (strconv, the exact value).
func TPSChange(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// millis is Millis with more decimals than the rule gives (for two figures that would
// otherwise read the same).
func millis(v float64, more int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	neg := ""
	if v < 0 {
		neg, v = "-", -v
	}
	unit, x, dec := " ms", v, 0
	switch {
	case v < 0.995:
		dec = 2
	case v < 9.95:
		dec = 1
	case v < 999.5:
	default:
		unit, x = " s", v/1000
		switch {
		case x < 9.995:
			dec = 2
		case x < 99.95:
			dec = 1
		}
	}
	return neg + strconv.FormatFloat(x, 'f', dec+more, 64) + unit
}

// Limit says a limit as it was likely written: whole seconds as "2 s", other times by
// the rule without trailing zeros ("1.5 s", "500 ms").
func Limit(v float64) string {
	s := Millis(v)
	num, unit, ok := strings.Cut(s, " ")
	if !ok || !strings.Contains(num, ".") {
		return s
	}
	return strings.TrimRight(strings.TrimRight(num, "0"), ".") + " " + unit
}

// MillisApart says a time and its limit by the rule, the limit as written, and the time
// with more decimals when the two would otherwise read the same: "TTFT p95 2.004 s > 2 s",
// never "2.00 s > 2 s".
func MillisApart(v, limit float64) (string, string) {
	a, b := Millis(v), Limit(limit)
	for more := 1; more <= 4 && v != limit && sameFigure(a, b); more++ {
		a = millis(v, more)
	}
	return a, b
}

// sameFigure reports whether two figures with units read as the same number.
func sameFigure(a, b string) bool {
	na, ua, _ := strings.Cut(a, " ")
	nb, ub, _ := strings.Cut(b, " ")
	x, err1 := strconv.ParseFloat(na, 64)
	y, err2 := strconv.ParseFloat(nb, 64)
	return err1 == nil && err2 == nil && ua == ub && x == y
}

// TokPerS says a rate in tokens/s with its unit and at most one decimal: "38.6 tok/s",
// "740 tok/s" (no decimal from 100 on).
func TokPerS(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	dec := 1
	if math.Abs(v) >= 99.95 {
		dec = 0
	}
	return fmtNum(v, dec) + " tok/s"
}

// FigureApart formats a figure and the target it misses with dec decimals, or more (up
// to 6) when they would read the same, so that a failing figure is never shown rounded
// onto its target: 29.97 against 30 reads "29.97", never "30.0".
func FigureApart(v, target float64, dec int) (string, string) {
	f := func(x float64, d int) string { return strconv.FormatFloat(x, 'f', d, 64) }
	a, b := f(v, dec), f(target, dec)
	for d := dec + 1; v != target && sameFigure(a, b) && d <= 6; d++ {
		a, b = f(v, d), f(target, d)
	}
	return a, b
}

// Cell is a table cell of a figure with dec decimals; when fails is true and those
// decimals would show it at its target (a failing 29.97 tok/s against 30 as "30.0"),
// with as many more as it takes to show it apart.
func Cell(v, target float64, dec int, fails bool) string {
	if fails {
		a, _ := FigureApart(v, target, dec)
		return a
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// Duration says a length of time (a hold, a wait, an estimate) by the one rule, without
// trailing zeros as Limit: "5 s", "2.5 s", "120 s", "340 ms".
func Duration(d time.Duration) string { return Limit(float64(d) / float64(time.Millisecond)) }

// seconds is "15 s", "2.5 s".
func seconds(v float64) string { return fmtNum(v, 2) + " s" }

// TermWords names a criterion's figure in words: "per-user p50", "TTFT p95", "errors",
// "TTFO p95", "goodput".
func TermWords(term string) string {
	switch term {
	case TermUserTPS:
		return "per-user p50"
	case TermTTFT:
		return "TTFT p95"
	case TermErrorRate:
		return "errors"
	case TermTTFO:
		return "TTFO p95"
	case TermGoodput:
		return "goodput"
	}
	return term
}

// TermsWords is the terms in words, joined: "TTFT p95 and errors".
func TermsWords(terms []string) string {
	w := make([]string, len(terms))
	for i, t := range terms {
		w[i] = TermWords(t)
	}
	return And(w)
}

// IntervalLegend says what a table's "±" is, under a table that shows one.
const IntervalLegend = "±: the 95% confidence interval's half-width (distribution-free for per-user p50, a ratio estimate for aggregate tok/s)."

// PlusMinus is a table cell of a figure with its 95% interval as "±": the figure as
// Cell says it (a failing figure is never shown rounded onto its target), then the
// interval's half-width with as many decimals (Spread), "30.6 ± 0.4", "29.97 ± 0.02";
// the figure alone when Spread has nothing to say.
func PlusMinus(v float64, iv *Interval, target float64, dec int, fails bool) string {
	s := Cell(v, target, dec, fails)
	d := 0
	if _, frac, ok := strings.Cut(s, "."); ok {
		d = len(frac)
	}
	if h := Spread(v, iv, d); h != "" {
		return s + " ± " + h
	}
	return s
}

// Spread is the half-width of figure v's 95% interval (its larger distance from v) with
// dec decimals, "0.4"; "<0.1" when it is narrower than the last decimal (known that
// closely, not unknown); "" when the interval is missing, unbounded, reaches 0 or has
// no width at all (every request alike).
func Spread(v float64, iv *Interval, dec int) string {
	if iv == nil || !iv.Bounded() || iv.Lo <= 0 {
		return ""
	}
	h := strconv.FormatFloat(max(v-iv.Lo, iv.Hi-v), 'f', dec, 64)
	if x, _ := strconv.ParseFloat(h, 64); x == 0 {
		if iv.Hi <= iv.Lo { // every request alike: nothing to say beside the figure
			return ""
		}
		return "<" + strconv.FormatFloat(math.Pow10(-dec), 'f', dec, 64)
	}
	return h
}
