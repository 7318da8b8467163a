package settings

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// kind is how a flag of type T reads and shows its value: its type as the help names it
// (pflag's names: "string", "int", "uint64", "bool", "duration", "stringArray"), its
// parser, whose error says what is wanted (pflag adds the flag and the value), and how
// a value is shown.
type kind[T any] struct {
	typ   string
	parse func(s string) (T, error)
	show  func(T) string
}

var (
	text  = kind[string]{typ: "string", parse: func(s string) (string, error) { return s, nil }, show: func(s string) string { return s }}
	whole = kind[int]{typ: "int", parse: func(s string) (int, error) {
		n, err := strconv.ParseInt(s, 0, strconv.IntSize)
		if err != nil {
			return 0, fmt.Errorf("want a whole number such as 8")
		}
		return int(n), nil
	}, show: strconv.Itoa}
	boolean = kind[bool]{typ: "bool", parse: func(s string) (bool, error) {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return false, fmt.Errorf("want true or false")
		}
		return b, nil
	}, show: strconv.FormatBool}
	duration = kind[time.Duration]{typ: "duration", parse: func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("want a duration with a unit such as 15s or 500ms")
		}
		return d, nil
	}, show: time.Duration.String}
	// seedKind is --seed's: any uint64, 0 meaning a new random seed.
	seedKind = kind[uint64]{typ: "uint64", parse: func(s string) (uint64, error) {
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			return 0, fmt.Errorf("want a whole number from 0 to 18446744073709551615 (2^64-1), the same one to send the same requests again; 0 or no --seed draws a new seed each run")
		}
		return n, nil
	}, show: func(n uint64) string { return strconv.FormatUint(n, 10) }}
	decimal = kind[float64]{typ: "float64", parse: func(s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("want a number such as 0.05")
		}
		return v, nil
	}, show: func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }}
	whole64 = kind[int64]{typ: "int64", parse: func(s string) (int64, error) {
		n, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			return 0, fmt.Errorf("want a whole number such as 42")
		}
		return n, nil
	}, show: func(n int64) string { return strconv.FormatInt(n, 10) }}
	// lines is a repeatable flag: each use adds one value.
	lines = kind[[]string]{typ: "stringArray", parse: func(s string) ([]string, error) { return []string{s}, nil },
		show: func(v []string) string { return fmt.Sprint(v) }}
)

// flagValue is the pflag.Value of one flag: parsing its text sets the Value it is
// bound to, given at the flag.
type flagValue[T any] struct {
	v    *Value[T]
	name string
	k    kind[T]
}

// Set parses s; a repeatable flag adds it to the values given before.
func (f *flagValue[T]) Set(s string) error {
	x, err := f.k.parse(s)
	if err != nil {
		return err
	}
	if old, ok := any(f.v.V).([]string); ok && f.v.Given() { // a repeated flag adds up
		x = any(append(old, any(x).([]string)...)).(T)
	}
	*f.v = val(x, flagOrigin(Flag, f.name))
	return nil
}

// String is the value as the flag shows it.
func (f *flagValue[T]) String() string { return f.k.show(f.v.V) }

// Type is the type's name in the help.
func (f *flagValue[T]) Type() string { return f.k.typ }

// bind registers the flag --name on fs: what it parses goes to given, and def becomes
// its default in defaults (an origin naming the flag, for messages) and in the help.
func bind[T any](fs *pflag.FlagSet, given, defaults *Value[T], k kind[T], name string, def T, usage string) {
	*defaults = val(def, flagOrigin(Default, name))
	fl := fs.VarPF(&flagValue[T]{v: given, name: name, k: k}, name, "", usage)
	fl.DefValue = k.show(def)
	if reflect.ValueOf(def).IsZero() {
		fl.DefValue = "" // the help says no default, as it does for pflag's own zero defaults
	}
	if k.typ == "bool" {
		fl.NoOptDefVal = "true"
	}
}
