package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseSLO parses capacity criteria such as "user_tps_p50>=30,ttft_p95<=2s,error_rate<=1%".
// ttfo_p95 (time to first answer token, for reasoning models: "ttfo_p95<=10s") adds a
// fourth criterion, off by default. Any subset of the terms may be given, in any order; the others keep their
// DefaultSLO values, and an empty string gives DefaultSLO. ttft_p95 takes a Go
// duration with its unit ("2s", "1500ms"; a bare number is refused); error_rate takes a
// percentage ("1%") or a fraction ("0.01"). Errors name the bad term and show the
// accepted form.
func ParseSLO(s string) (SLO, error) { return ParseSLOFrom(DefaultSLO, s) }

// ParseSLOFrom is ParseSLO with the terms not given taken from base (e.g. the criteria
// of a config file that a --slo flag overrides).
func ParseSLOFrom(base SLO, s string) (SLO, error) {
	slo := base
	seen := map[string]bool{}
	for _, raw := range strings.Split(s, ",") {
		term := strings.TrimSpace(raw)
		if term == "" {
			continue
		}
		name, op, val, ok := splitTerm(term)
		if !ok {
			return SLO{}, sloErr(term, "expected NAME>=VALUE or NAME<=VALUE")
		}
		if seen[name] {
			return SLO{}, sloErr(term, name+" is given twice")
		}
		seen[name] = true
		switch name {
		case "user_tps_p50":
			if op != ">=" {
				return SLO{}, sloErr(term, "per-user tok/s is a minimum: use user_tps_p50>=30")
			}
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return SLO{}, sloErr(term, fmt.Sprintf("%q is not a rate in tok/s: use user_tps_p50>=30", val))
			}
			slo.UserTPSMin = v
		case "ttft_p95":
			if op != "<=" {
				return SLO{}, sloErr(term, "TTFT is a maximum: use ttft_p95<=2s")
			}
			d, err := parseMs(val)
			if err != nil {
				return SLO{}, sloErr(term, fmt.Sprintf("%q is not a duration with a unit: use ttft_p95<=2s or ttft_p95<=1500ms", val))
			}
			if d <= 0 {
				return SLO{}, sloErr(term, "the TTFT limit must be above 0: use ttft_p95<=2s")
			}
			slo.TTFTP95Max = d
		case "ttfo_p95":
			if op != "<=" {
				return SLO{}, sloErr(term, "TTFO is a maximum: use ttfo_p95<=10s")
			}
			d, err := parseMs(val)
			if err != nil {
				return SLO{}, sloErr(term, fmt.Sprintf("%q is not a duration with a unit: use ttfo_p95<=10s or ttfo_p95<=8000ms", val))
			}
			if d <= 0 {
				return SLO{}, sloErr(term, "the TTFO limit must be above 0: use ttfo_p95<=10s")
			}
			slo.TTFOP95Max = d
		case "error_rate":
			if op != "<=" {
				return SLO{}, sloErr(term, "the error rate is a maximum: use error_rate<=1%")
			}
			r, err := ParseRate(val)
			if err != nil {
				return SLO{}, sloErr(term, fmt.Sprintf("%q is not an error rate: use error_rate<=1%% or error_rate<=0.01", val))
			}
			slo.ErrorRateMax = r
		case "goodput":
			if op != ">=" {
				return SLO{}, sloErr(term, "goodput is a minimum: use goodput>=95%")
			}
			r, err := ParseRate(val)
			if err != nil {
				return SLO{}, sloErr(term, fmt.Sprintf("%q is not a share of requests: use goodput>=95%% or goodput>=0.95", val))
			}
			slo.GoodputMin = r
		default:
			return SLO{}, sloErr(term, fmt.Sprintf("unknown term %q: the terms are user_tps_p50, ttft_p95, error_rate, goodput and ttfo_p95", name))
		}
	}
	return slo, nil
}

func sloErr(term, why string) error {
	return fmt.Errorf("slo term %q: %s (accepted form: %s)", term, why, sloForm)
}

// splitTerm splits "name>=value" or "name<=value", tolerating spaces around the operator.
func splitTerm(term string) (name, op, val string, ok bool) {
	i := strings.IndexAny(term, "<>=")
	if i <= 0 || i+2 > len(term) {
		return "", "", "", false
	}
	op = term[i : i+2]
	if op != ">=" && op != "<=" {
		return "", "", "", false
	}
	name = strings.TrimSpace(term[:i])
	val = strings.TrimSpace(term[i+2:])
	if name == "" || val == "" {
		return "", "", "", false
	}
	return name, op, val, true
}

// parseMs reads a Go duration. A bare number is refused: "2" is as likely meant as
// seconds as milliseconds, and a wrong guess silently changes the capacity.
func parseMs(s string) (time.Duration, error) {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, fmt.Errorf("no unit")
	}
	return time.ParseDuration(s)
}

// ParseRate reads a rate written "1%" or "0.01" into a fraction in [0, 1].
func ParseRate(s string) (float64, error) {
	div := 1
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, div = strings.TrimSpace(t), 100
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("not a number")
	}
	if div == 100 {
		v = percent(v)
	} else if v >= 1 {
		// "1" is as likely meant as 1% as 100%: a wrong guess silently accepts every level.
		return 0, fmt.Errorf("ambiguous: write a percentage such as 1%% or a fraction below 1 such as 0.01")
	}
	if v < 0 || v > 1 {
		return 0, fmt.Errorf("out of range")
	}
	return v, nil
}

// percent is v/100 as the float nearest to the decimal value: the float division is
// sometimes one unit off (0.7/100 = 0.006999999999999999), which would fail a level
// whose error rate is exactly the limit (7 errors in 1000 requests under 0.7%).
// It shifts the decimal exponent of v's shortest representation instead.
func percent(v float64) float64 {
	m, e, ok := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
	if !ok {
		return v / 100
	}
	x, err := strconv.Atoi(e)
	if err != nil {
		return v / 100
	}
	r, err := strconv.ParseFloat(m+"e"+strconv.Itoa(x-2), 64)
	if err != nil {
		return v / 100
	}
	return r
}

// sloForm is the accepted form of an SLO, shown in every parse error.
const sloForm = `user_tps_p50>=30,ttft_p95<=2s,error_rate<=1%`
