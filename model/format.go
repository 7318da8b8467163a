package model

import (
	"math"
	"strconv"
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

// fmtNum formats v rounded to at most dec decimals, without trailing zeros.
func fmtNum(v float64, dec int) string {
	return strconv.FormatFloat(round(v, dec), 'f', -1, 64)
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
