package model

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// FormatTPS formats a rate in tokens/s for people: "82.3 tok/s", "1250 tok/s"
// (one decimal below 1000), "-" when the value is not a number.
func FormatTPS(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	if math.Abs(v) < 1000 {
		return strconv.FormatFloat(v, 'f', 1, 64) + " tok/s"
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " tok/s"
}

// FormatMs formats a latency for people by the one rule (Millis): "0.42 ms", "3.4 ms",
// "340 ms", "1.24 s", "12.3 s", "95.0 s", "125 s".
func FormatMs(d time.Duration) string { return Millis(ms(d)) }

// FormatPercent formats a fraction as a percentage with at most two decimals:
// 0.01 -> "1%", 0.0125 -> "1.25%", 1.0/3 -> "33.33%".
func FormatPercent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmtNum(f*100, 2) + "%"
}

// fmtNum formats v rounded to at most dec decimals, without trailing zeros. It rounds
// as the tables' cells do (strconv, the exact value: 23.15 is 23.1499... and reads
// 23.1), so that a sentence never says 23.2 tok/s of a level its row shows at 23.1.
func fmtNum(v float64, dec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', max(dec, 0), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// round rounds v to dec decimals (half away from zero).
func round(v float64, dec int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow10(dec)
	r := math.Round(v*p) / p
	if r == 0 {
		return 0 // no "-0"
	}
	return r
}
