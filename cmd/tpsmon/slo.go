package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// sloSyntax is shown with every --slo error.
const sloSyntax = `write e.g. --slo "user_tps_p50>=30,ttft_p95<=2s,error_rate<=1%"`

// parseSLO parses the --slo criteria over base: each comma-separated term sets one
// criterion, the others keep their value in base.
//
//	user_tps_p50>=30   per-user tokens/s p50 at least 30 (user_tps is the same)
//	ttft_p95<=2s       TTFT p95 at most 2 s (a Go duration: 2s, 1500ms)
//	error_rate<=1%     at most 1% of requests failed (1% or 0.01)
//
// TODO(merge): use model.ParseSLO if the model package provides one.
func parseSLO(s string, base model.SLO) (model.SLO, error) {
	slo := base
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		if term == "" {
			continue
		}
		i := strings.IndexAny(term, "<>=")
		if i <= 0 {
			return slo, fmt.Errorf("--slo: %q has no comparison; %s", term, sloSyntax)
		}
		key := strings.TrimSpace(term[:i])
		rest := term[i:]
		op := rest[:1]
		if len(rest) > 1 && rest[1] == '=' {
			op = rest[:2]
		}
		val := strings.TrimSpace(rest[len(op):])
		switch key {
		case "user_tps_p50", "user_tps":
			if op != ">=" && op != ">" {
				return slo, fmt.Errorf("--slo: %q: per-user tokens/s is a minimum, use >=; %s", term, sloSyntax)
			}
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || v < 0 {
				return slo, fmt.Errorf("--slo: %q: %q is not a number of tokens/s; %s", term, val, sloSyntax)
			}
			slo.UserTPSMin = v
		case "ttft_p95":
			if op != "<=" && op != "<" {
				return slo, fmt.Errorf("--slo: %q: TTFT p95 is a maximum, use <=; %s", term, sloSyntax)
			}
			d, err := time.ParseDuration(val)
			if err != nil || d <= 0 {
				return slo, fmt.Errorf("--slo: %q: %q is not a duration with a unit such as 2s or 500ms", term, val)
			}
			slo.TTFTP95Max = d
		case "error_rate":
			if op != "<=" && op != "<" {
				return slo, fmt.Errorf("--slo: %q: the error rate is a maximum, use <=; %s", term, sloSyntax)
			}
			r, err := parseRate(val)
			if err != nil {
				return slo, fmt.Errorf("--slo: %q: %v", term, err)
			}
			slo.ErrorRateMax = r
		default:
			return slo, fmt.Errorf("--slo: unknown criterion %q; the criteria are user_tps_p50, ttft_p95 and error_rate; %s", key, sloSyntax)
		}
	}
	return slo, nil
}

// parseRate parses "1%" or "0.01" into a fraction in [0, 1].
func parseRate(val string) (float64, error) {
	pct := strings.HasSuffix(val, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64)
	if err == nil && pct {
		v /= 100
	}
	if err != nil || v < 0 || v > 1 {
		return 0, fmt.Errorf("%q is not a rate; write a percentage such as 1%% or a fraction such as 0.01", val)
	}
	return v, nil
}
