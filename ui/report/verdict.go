package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// Verdict is what a report says first, in words.
type Verdict struct {
	Lines    []VerdictLine // one per series
	Criteria string        // the criteria, when every series used the same
	Changes  []string      // each later series against the first, at the highest level both measured
}

// VerdictLine is one series' capacity and saturation.
type VerdictLine struct {
	Label      string
	Capacity   string   // "capacity 16 users", "at least 16 users (limit not reached)", "no level meets the criteria"
	Failures   []string // per level that fails the criteria, which ones and by how much
	Saturation string
	Criteria   string // this series' criteria, when they differ between series
	Meets      bool   // some level meets the criteria
}

// VerdictOf words the verdict of every series.
func VerdictOf(series []Series) Verdict {
	var v Verdict
	same := true
	for i := range series {
		if series[i].SLO() != series[0].SLO() {
			same = false
		}
	}
	for i := range series {
		s := &series[i]
		line := VerdictLine{Label: s.Label, Saturation: saturationWords(s), Meets: s.Endpoint.Capacity.Users > 0}
		for _, l := range s.Endpoint.Levels {
			if f := Failures(l, s.SLO()); len(f) > 0 {
				line.Failures = append(line.Failures, s.Endpoint.LevelWords(l.Concurrency)+": "+strings.Join(f, ", "))
			}
		}
		switch {
		case !model.AnyMeasured(s.Endpoint.Levels):
			line.Capacity = "capacity not measured (no level got past its warm-up)"
		case s.Endpoint.Capacity.Users == 0:
			line.Capacity = "no level meets the criteria"
		case s.AtLeast():
			line.Capacity = "capacity at least " + s.Endpoint.LevelWords(s.Endpoint.Capacity.Users) + " (limit not reached)"
		default:
			line.Capacity = "capacity " + s.Endpoint.LevelWords(s.Endpoint.Capacity.Users)
		}
		if s.Endpoint.TraceMode() { // a trace replayed window by window: held or not, no capacity
			held, words := model.TraceVerdict(&s.Endpoint, s.SLO())
			line.Capacity, _, _ = strings.Cut(words, ": ")
			line.Saturation, line.Meets = "a trace replayed as recorded, its windows the levels (no ramp: no capacity nor saturation)", held
		}
		if !same {
			line.Criteria = s.SLO().String()
		}
		v.Lines = append(v.Lines, line)
	}
	if same && len(series) > 0 {
		v.Criteria = series[0].SLO().String()
	}
	for i := 1; i < len(series); i++ {
		if c := change(&series[0], &series[i]); c != "" {
			v.Changes = append(v.Changes, c)
		}
	}
	return v
}

// Failures names each criterion level l fails, with its value and the limit, e.g.
// "errors 4.55% > 1%"; none when l meets them all. The words are the Markdown's
// (model.SLO.ReportFailures), so that every report says a level's failures alike.
func Failures(l model.ReportLevel, slo model.SLO) []string { return slo.ReportFailures(&l) }

// saturationWords follows the Markdown of tpsmon bench.
func saturationWords(s *Series) string {
	if s.Endpoint.SaturationUsers != nil {
		return "saturates at " + s.Endpoint.LevelWords(*s.Endpoint.SaturationUsers) + " (doubling " + s.Endpoint.LoadWords() + " from there adds less than 10% aggregate tok/s)"
	}
	levels := s.Endpoint.Levels
	for _, l := range levels {
		for _, m := range levels {
			if l.DurationS > 0 && m.DurationS > 0 && m.Concurrency >= 2*l.Concurrency {
				return "saturation not reached (every doubling of " + s.Endpoint.LoadWords() + " added at least 10% aggregate tok/s)"
			}
		}
	}
	return "saturation not measured (no level was followed by one with twice its " + strings.TrimPrefix(s.Endpoint.LoadWords(), "the ") + ")"
}

// change compares series b with series a at the highest level both measured with a
// steady window, e.g. "after vs before at 8 users: per-user p50 26 vs 52.2 tok/s (-50.2%), ...".
func change(a, b *Series) string {
	la, lb, ok := highestCommon(a.Endpoint.Levels, b.Endpoint.Levels)
	if !ok {
		what := "number of users"
		if a.Endpoint.LoadWords() != "users" {
			what = "rate"
		}
		return fmt.Sprintf("%s vs %s: no level with the same %s in both", b.Label, a.Label, what)
	}
	capA, capB := capWords(a), capWords(b)
	return fmt.Sprintf("%s vs %s: capacity %s vs %s; at %s per-user p50 %s vs %s tok/s (%s), aggregate %s vs %s tok/s (%s), TTFT p95 %s vs %s ms (%s)",
		b.Label, a.Label, capB, capA, a.Endpoint.LevelWords(la.Concurrency),
		num(lb.UserTPS.P50), num(la.UserTPS.P50), Percent(la.UserTPS.P50, lb.UserTPS.P50),
		num(lb.AggregateTPS), num(la.AggregateTPS), Percent(la.AggregateTPS, lb.AggregateTPS),
		num(lb.TTFTMs.P95), num(la.TTFTMs.P95), Percent(la.TTFTMs.P95, lb.TTFTMs.P95))
}

// capWords is a series' capacity in a few words: "8 users", "at least 8 users", "none".
func capWords(s *Series) string {
	switch {
	case s.Endpoint.Capacity.Users == 0:
		return "none"
	case s.AtLeast():
		return "at least " + s.Endpoint.LevelWords(s.Endpoint.Capacity.Users)
	}
	return s.Endpoint.LevelWords(s.Endpoint.Capacity.Users)
}

// highestCommon finds the levels of a and b with the highest concurrency both measured
// with a steady window.
func highestCommon(a, b []model.ReportLevel) (la, lb model.ReportLevel, ok bool) {
	for _, x := range a {
		for _, y := range b {
			if x.Concurrency == y.Concurrency && x.DurationS > 0 && y.DurationS > 0 && x.Concurrency >= la.Concurrency {
				la, lb, ok = x, y, true
			}
		}
	}
	return la, lb, ok
}

// Percent is the change from a to b in percent, signed ("+12.5%", "-3%"); "-" when a is 0.
func Percent(a, b float64) string {
	if a == 0 {
		if b == 0 {
			return "0%"
		}
		return "-"
	}
	p := (b - a) / a * 100
	s := strconv.FormatFloat(p, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if p >= 0.05 {
		s = "+" + s
	}
	if s == "-0" {
		s = "0"
	}
	return s + "%"
}

// num formats a figure with at most one decimal, without a trailing ".0".
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}

// users is "1 user" or "N users".
func users(n int) string {
	if n == 1 {
		return "1 user"
	}
	return strconv.Itoa(n) + " users"
}
