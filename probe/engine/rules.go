package engine

import (
	"fmt"
	"math"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// The auto-ramp's stop rules (the same on the screen and in bench).
const (
	// StopErrorRate stops the ramp when the current level's error rate is above it...
	StopErrorRate = 0.05
	// MinStopRequests ... once at least this many requests ended in the level...
	MinStopRequests = 10
	// StopConfidenceZ ... and the rate is above StopErrorRate with 99% confidence: the
	// lower end of the rate's Wilson interval at this z is above it. One unlucky error
	// among the first requests does not end a ramp: 1 failure in 10 (10%) does not stop
	// it, 3 in 10 do, and so do 15 in 150. Without it a server that fails 4% of its
	// requests stopped most ramps at their second level on a single error.
	StopConfidenceZ = 2.576
	// StopTTFTFactor stops the ramp when the level's TTFT p95 is above this many times the
	// TTFT target, once it has half the steady requests the level rule asks for.
	StopTTFTFactor = 2
)

// Stop is why a stop rule ended the ramp at a level.
type Stop struct {
	Users     int
	Requests  int           // the requests the rule judged: ended ones (errors), steady ones (TTFT)
	ErrorRate float64       // > StopErrorRate when the errors stopped it
	TTFTP95   time.Duration // > StopTTFTFactor x Target when the TTFT stopped it
	Target    time.Duration
}

// String says why, in words: "errors 7.6% > 5% (26 requests)" or "TTFT p95 4.2 s > 2 x
// 2 s (32 steady requests)" (model's one rule for ms and s). The level's row may move on afterwards: the requests still
// in flight when the ramp stopped end in it.
func (s Stop) String() string {
	if s.TTFTP95 > 0 {
		return fmt.Sprintf("TTFT p95 %s > %d x %s (%d steady requests)", model.Millis(ms(s.TTFTP95)), StopTTFTFactor,
			model.Limit(ms(s.Target)), s.Requests)
	}
	return fmt.Sprintf("errors %s > %s (%d requests)", model.FormatPercent(s.ErrorRate), model.FormatPercent(StopErrorRate), s.Requests)
}

// checkStop applies the stop rules to l, the row of the level being held at users.
func checkStop(l *model.LevelStats, users int, slo model.SLO) (Stop, bool) {
	if l == nil {
		return Stop{}, false
	}
	if failed, judged := l.Charged(); endedCount(l) >= MinStopRequests && l.ErrorRate > StopErrorRate &&
		model.WilsonLower(failed, judged, StopConfidenceZ) > StopErrorRate {
		return Stop{Users: users, Requests: endedCount(l), ErrorRate: l.ErrorRate}, true
	}
	target := slo.TTFTP95Max
	if target <= 0 || target >= time.Duration(math.MaxInt64/StopTTFTFactor) {
		return Stop{}, false
	}
	p95 := time.Duration(l.TTFT.P95 * float64(time.Millisecond))
	if l.TTFT.Count > 0 && 2*steadyCount(l) >= MinSteady(users) && p95 > StopTTFTFactor*target {
		return Stop{Users: users, Requests: steadyCount(l), TTFTP95: p95, Target: target}, true
	}
	return Stop{}, false
}
