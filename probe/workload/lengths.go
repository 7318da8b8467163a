package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// MaxLength bounds every length a distribution may ask for, in tokens.
const MaxLength = 1 << 20

// lengthForm is the accepted form of a length distribution, shown in every error.
const lengthForm = `N, uniform:LO:HI or normal:MEAN:STDEV`

// Lengths is a distribution of token counts: a fixed number, uniform between two
// bounds (both included), or normal, rounded and clipped at 1 (and at MaxLength).
type Lengths struct {
	Kind   LengthKind
	A, B   float64 // Fixed: A; Uniform: LO, HI; Normal: MEAN, STDEV
	source string
}

// LengthKind is the shape of a Lengths.
type LengthKind int

// Shapes of length distributions.
const (
	Fixed LengthKind = iota
	Uniform
	Normal
)

// Fix is the distribution that always gives n.
func Fix(n int) Lengths { return Lengths{Kind: Fixed, A: float64(n), source: strconv.Itoa(n)} }

// LengthError is a length distribution that cannot be read; it names neither a flag
// nor a config key (the caller adds which one).
type LengthError struct {
	Input string
	Why   string
}

func (e *LengthError) Error() string {
	return fmt.Sprintf("length %q: %s (accepted forms: %s)", e.Input, e.Why, lengthForm)
}

// ParseLengths reads "N" (a whole number of tokens, at least 1), "uniform:LO:HI"
// (whole numbers, 1 <= LO <= HI) or "normal:MEAN:STDEV" (MEAN >= 1, STDEV >= 0; draws
// are rounded and clipped at 1). Every number is at most MaxLength.
func ParseLengths(s string) (Lengths, error) {
	in := strings.TrimSpace(s)
	bad := func(why string) (Lengths, error) { return Lengths{}, &LengthError{Input: s, Why: why} }
	parts := strings.Split(in, ":")
	name := strings.ToLower(parts[0])
	switch {
	case len(parts) == 1:
		n, err := wholeLength(in)
		if err != nil {
			return bad(err.Error())
		}
		return Lengths{Kind: Fixed, A: float64(n), source: in}, nil
	case name == "uniform":
		if len(parts) != 3 {
			return bad("uniform takes two bounds, e.g. uniform:50:150")
		}
		lo, err := wholeLength(parts[1])
		if err != nil {
			return bad("the low bound: " + err.Error())
		}
		hi, err := wholeLength(parts[2])
		if err != nil {
			return bad("the high bound: " + err.Error())
		}
		if lo > hi {
			return bad(fmt.Sprintf("the low bound %d is above the high bound %d", lo, hi))
		}
		return Lengths{Kind: Uniform, A: float64(lo), B: float64(hi), source: in}, nil
	case name == "normal":
		if len(parts) != 3 {
			return bad("normal takes a mean and a standard deviation, e.g. normal:100:20")
		}
		mean, err := number(parts[1])
		if err != nil || mean < 1 || mean > MaxLength {
			return bad(fmt.Sprintf("the mean %q must be a number from 1 to %d", parts[1], MaxLength))
		}
		sd, err := number(parts[2])
		if err != nil || sd < 0 || sd > MaxLength {
			return bad(fmt.Sprintf("the standard deviation %q must be a number from 0 to %d", parts[2], MaxLength))
		}
		return Lengths{Kind: Normal, A: mean, B: sd, source: in}, nil
	}
	return bad(fmt.Sprintf("unknown distribution %q", parts[0]))
}

// wholeLength reads a whole number of tokens from 1 to MaxLength.
func wholeLength(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > MaxLength {
		return 0, fmt.Errorf("%q is not a whole number of tokens from 1 to %d", s, MaxLength)
	}
	return n, nil
}

func number(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a number")
	}
	return v, nil
}

// String is the distribution as ParseLengths reads it.
func (l Lengths) String() string {
	if l.source != "" {
		return l.source
	}
	switch l.Kind {
	case Uniform:
		return fmt.Sprintf("uniform:%g:%g", l.A, l.B)
	case Normal:
		return fmt.Sprintf("normal:%g:%g", l.A, l.B)
	}
	return strconv.Itoa(int(l.A))
}

// Mean is the distribution's mean before clipping (the number asked for on average).
func (l Lengths) Mean() float64 {
	if l.Kind == Uniform {
		return (l.A + l.B) / 2
	}
	return l.A
}

// Draw returns one length from r, at least 1 and at most MaxLength.
func (l Lengths) Draw(r *rand.Rand) int {
	var v float64
	switch l.Kind {
	case Uniform:
		v = l.A + float64(r.IntN(int(l.B-l.A)+1))
	case Normal:
		v = math.Round(l.A + l.B*r.NormFloat64())
	default:
		v = l.A
	}
	return int(min(max(v, 1), MaxLength))
}
