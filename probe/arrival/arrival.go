// Package arrival paces the requests of rate mode (open loop): requests start at a
// rate regardless of how long answers take. The pacing policy is a small pure type in
// the spirit of vegeta's lib/pacer.go: it reads no clock and starts no goroutine, so it
// is tested with a virtual clock. The dispatcher that uses it owns the clock:
//
//	for hits := uint64(0); ; hits++ {
//		wait, stop := s.Pace(time.Since(start), hits)
//		if stop {
//			break
//		}
//		sleep(wait) // wake early when the rate changes, and ask again
//		due := s.Due(hits)
//		// ... take a place under the concurrency cap; the request's t_send comes after it.
//		// Client-side wait = time.Since(start) - due: measured apart, never inside TTFT.
//	}
//
// Poisson arrivals draw exponential gaps from a seeded source (the default: a service
// with many independent clients sees such arrivals); constant arrivals are evenly
// spaced. A rate change takes effect at once for the arrival not yet due.
package arrival

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Pacer decides when the next arrival is due, like vegeta's Pacer: given the time
// elapsed since the start and the arrivals already dispatched (hits), it returns how
// long to wait before dispatching the next one, or stop when there is none.
// Implementations need not be safe for concurrent use: one dispatcher owns a Pacer.
type Pacer interface {
	Pace(elapsed time.Duration, hits uint64) (wait time.Duration, stop bool)
	// Rate is the rate asked for now, in arrivals per second.
	Rate() float64
}

// Never is the wait returned while the rate is 0: no arrival is due until the rate
// changes (the dispatcher should wake on a rate change, not sleep this long).
const Never = time.Duration(math.MaxInt64)

// Kind is how arrivals are spaced.
type Kind int

// Kinds of arrivals.
const (
	Poisson  Kind = iota // exponential gaps, seeded: the inter-arrival CV is about 1
	Constant             // evenly spaced: the inter-arrival CV is 0
)

// String is the name ParseKind accepts.
func (k Kind) String() string {
	if k == Constant {
		return "constant"
	}
	return "poisson"
}

// KindError is returned by ParseKind for a name it does not know.
type KindError struct{ Name string }

func (e *KindError) Error() string {
	return fmt.Sprintf("unknown arrival kind %q: use poisson or constant", e.Name)
}

// kinds are every Kind, the default first.
var kinds = []Kind{Poisson, Constant}

// Names are the names ParseKind accepts, the default first (for help and completion).
func Names() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	return names
}

// ParseKind reads a name of Names (or "" for the default, Poisson), in any case.
func ParseKind(s string) (Kind, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "" {
		return Poisson, nil
	}
	for _, k := range kinds {
		if name == k.String() {
			return k, nil
		}
	}
	return Poisson, &KindError{Name: s}
}

// RateError is returned for a rate that cannot be paced (negative, NaN or infinite).
type RateError struct{ Rate float64 }

func (e *RateError) Error() string {
	return fmt.Sprintf("arrival rate %v is not a number of requests per second of 0 or more", e.Rate)
}

// CheckRate refuses a negative, NaN or infinite rate. 0 is allowed: no arrivals.
func CheckRate(r float64) error {
	if r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return &RateError{Rate: r}
	}
	return nil
}

// Schedule is a Pacer of Poisson or constant arrivals at a rate that may change. It
// plans one arrival at a time, from the previous one (or from the start, or from a
// rate change), so that a rate change only moves the arrival not yet dispatched.
type Schedule struct {
	kind  Kind
	rate  float64
	rng   *rand.Rand
	limit uint64 // stop after this many arrivals (0 = never)

	idx     uint64        // the arrival `due` is planned for
	due     time.Duration // when arrival idx is due, counted from the start
	planned bool          // due is planned for idx
	base    time.Duration // what arrival idx is planned from: the previous arrival, or a start
	hasPrev bool          // base is a previous arrival (a constant arrival then comes a gap later)
}

// New returns a schedule of kind at rate arrivals per second (0 = none until SetRate),
// drawing Poisson gaps from seed. It panics on a rate CheckRate refuses: check first.
// The first constant arrival is due at once; the first Poisson arrival one drawn gap in.
func New(kind Kind, rate float64, seed uint64) *Schedule {
	if err := CheckRate(rate); err != nil {
		panic(err)
	}
	return &Schedule{kind: kind, rate: rate, rng: rand.New(rand.NewPCG(seed, 0xa441a1))}
}

// WithLimit makes the schedule stop after n arrivals (0 = never) and returns it.
func (s *Schedule) WithLimit(n uint64) *Schedule { s.limit = n; return s }

// WithPhase delays the first constant arrival to d and returns the schedule (shards
// use it so that their constant arrivals interleave; Poisson arrivals ignore it).
func (s *Schedule) WithPhase(d time.Duration) *Schedule {
	if s.kind == Constant && !s.planned && s.idx == 0 {
		s.base = max(d, 0)
	}
	return s
}

// Rate returns the rate asked for now.
func (s *Schedule) Rate() float64 { return s.rate }

// Kind returns how the arrivals are spaced.
func (s *Schedule) Kind() Kind { return s.kind }

// Pace implements Pacer: the wait until arrival number hits (0-based) is due, 0 when it
// is already late (an open loop catches up), Never while the rate is 0.
func (s *Schedule) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if s.limit > 0 && hits >= s.limit {
		return 0, true
	}
	due := s.Due(hits)
	if due == Never {
		return Never, false
	}
	return max(due-elapsed, 0), false
}

// Due returns when arrival number hits is due, counted from the start (Never while the
// rate is 0). Arrivals are asked for in order: asking for hits counts every earlier
// arrival as dispatched. The time an arrival really left minus its Due is the wait it
// spent on the client's side (the concurrency cap was full).
func (s *Schedule) Due(hits uint64) time.Duration {
	if hits < s.idx {
		return s.base // already dispatched: the latest arrival known
	}
	for s.planned && s.idx < hits { // arrival idx was dispatched
		s.base, s.hasPrev, s.planned = s.due, true, false
		s.idx++
		if s.idx < hits {
			s.due = s.plan()
			s.planned = s.rate > 0
		}
	}
	if s.rate <= 0 {
		s.idx = max(s.idx, hits)
		return Never
	}
	if !s.planned {
		s.idx = max(s.idx, hits)
		s.due, s.planned = s.plan(), true
	}
	return s.due
}

// plan is when arrival idx is due, planned from base at the current rate (above 0).
func (s *Schedule) plan() time.Duration {
	if s.rate <= 0 {
		return Never
	}
	if s.kind == Constant && !s.hasPrev {
		return s.base
	}
	return s.base + s.gap()
}

// gap is one inter-arrival time at the current rate: 1/rate, or an exponential draw.
func (s *Schedule) gap() time.Duration {
	mean := float64(time.Second) / s.rate
	if s.kind == Constant {
		return time.Duration(math.Round(mean))
	}
	return time.Duration(math.Round(s.rng.ExpFloat64() * mean))
}

// SetRate changes the rate at elapsed. The arrival not yet dispatched is planned again:
// a Poisson arrival at elapsed plus a fresh exponential gap (arrivals have no memory);
// a constant one a new gap after the previous arrival, or at elapsed when that is past.
// Rate 0 stops arrivals until the next SetRate. It refuses what CheckRate refuses.
func (s *Schedule) SetRate(rate float64, elapsed time.Duration) error {
	if err := CheckRate(rate); err != nil {
		return err
	}
	s.rate, s.planned = rate, false
	if rate <= 0 {
		return nil
	}
	if s.kind == Poisson {
		s.base = max(s.base, elapsed)
	}
	s.due, s.planned = max(s.plan(), elapsed), true
	return nil
}

// Split divides rate over shards: rate/shards each (the shards' arrivals add up to
// rate). It returns nil when shards < 1.
func Split(rate float64, shards int) []float64 {
	if shards < 1 {
		return nil
	}
	out := make([]float64, shards)
	for i := range out {
		out[i] = rate / float64(shards)
	}
	return out
}

// Shard is shard i's schedule of a run at rate over shards: rate/shards, its own
// Poisson stream (seed mixed with i), and for constant arrivals a phase of i/rate, so
// that the shards' arrivals interleave evenly instead of arriving together.
func Shard(kind Kind, rate float64, seed uint64, i, shards int) *Schedule {
	shards = max(shards, 1)
	s := New(kind, rate/float64(shards), seed^(uint64(i)*0x9e3779b97f4a7c15))
	if rate > 0 {
		s.WithPhase(time.Duration(math.Round(float64(i) * float64(time.Second) / rate)))
	}
	return s
}
