package model

import (
	"maps"
	"math"
)

// errorRate is the failures charged to the endpoint over the requests that could be:
// client failures (tpsmon's own limits) are in neither. 0 when nothing could be charged.
func errorRate(requests int, errors map[ErrorKind]int) float64 {
	if charged, n := chargedCounts(requests, errors); n > 0 {
		return float64(charged) / float64(n)
	}
	return 0
}

// judgedCounts are the level's requests and failures its error rate is judged on: those
// that ended while it was held, its cool-down left out (withoutCooldown).
func (l *level) judgedCounts() (int, map[ErrorKind]int) {
	return withoutCooldown(l.requests, l.errors, l.cooldown+l.coolWarm, l.coolErrors)
}

// withoutCooldown is requests and errors less the cool-down's (cool requests, coolErrs
// of them failed): what ended while the level was held, as the level rule judged it
// when it ended the level. A request still in flight then ends at another load, after
// the level was judged and used; its outcome, like its latency, must not move the
// figures the level was judged on (a stop rule's 3 of 14 failed read 3 of 30 once the
// 16 streams in flight ended; one that stopped 32 users during their warm-up at 5 of 22
// read 5 of 41).
func withoutCooldown(requests int, errors map[ErrorKind]int, cool int, coolErrs map[ErrorKind]int) (int, map[ErrorKind]int) {
	if cool == 0 && len(coolErrs) == 0 {
		return requests, errors
	}
	out := maps.Clone(errors)
	for k, n := range coolErrs {
		out[k] -= n
	}
	return requests - cool, out
}

// chargedCounts are the failures charged to the endpoint and the requests they are
// counted against (requests less tpsmon's own client failures): the error rate's
// numerator and denominator.
func chargedCounts(requests int, errors map[ErrorKind]int) (charged, n int) {
	client := 0
	for k, c := range errors {
		switch {
		case k.Charged():
			charged += c
		case k == ErrClient:
			client += c
		}
	}
	return charged, requests - client
}

// WilsonLower is the lower end of the Wilson score interval of a proportion of k in n
// at z standard deviations (z 2.576: 99% two-sided): the smallest true rate that k in n
// does not make unlikely. 0 when n is 0.
func WilsonLower(k, n int, z float64) float64 {
	if n <= 0 {
		return 0
	}
	p, nf, z2 := float64(k)/float64(n), float64(n), z*z
	center := p + z2/(2*nf)
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return max(0, (center-half)/(1+z2/nf))
}
