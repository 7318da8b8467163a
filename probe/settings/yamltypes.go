package settings

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/arrival"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
	"github.com/tpsmon/tpsmon/probe/workload"
	"go.yaml.in/yaml/v3"
)

// The config file's value types: each refuses a bad value at its line, saying what is
// wanted, as the flag of the same setting would.

// apiName is one of client.APIs.
type apiName string

func (a *apiName) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || !slices.Contains(client.APIs(), n.Value) {
		return lineError(n, "want %s, got %q%s", client.APIWords, n.Value, client.APIHint(n.Value))
	}
	*a = apiName(n.Value)
	return nil
}

// envName is the name of an environment variable (the key itself never goes in the file).
type envName string

func (e *envName) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return lineError(n, "%s", client.KeyEnvHint)
	}
	if client.CheckKeyEnv(n.Value) != nil {
		return lineError(n, "%s", client.KeyEnvHint)
	}
	*e = envName(n.Value)
	return nil
}

// posInt is a whole number of at least 1.
type posInt int

func (p *posInt) UnmarshalYAML(n *yaml.Node) error {
	v, err := wholeAtLeast(n, 1, "a whole number of at least 1")
	*p = posInt(v)
	return err
}

// Int is p as an int.
func (p posInt) Int() int { return int(p) }

// wholeAtLeast reads n as a whole number of at least lo; want says what is wanted.
func wholeAtLeast(n *yaml.Node, lo int, want string) (int, error) {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < lo {
		return 0, lineError(n, "want %s, got %q", want, n.Value)
	}
	return v, nil
}

// posDur is a positive Go duration such as 15s or 500ms.
type posDur time.Duration

func (p *posDur) UnmarshalYAML(n *yaml.Node) error {
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		return lineError(n, "want a duration with a unit such as 15s or 500ms, got %q", n.Value)
	}
	*p = posDur(d)
	return nil
}

// Duration is p as a time.Duration.
func (p posDur) Duration() time.Duration { return time.Duration(p) }

// capInt is a whole number of 0 or more (max_concurrency: 0 is no cap).
type capInt int

func (c *capInt) UnmarshalYAML(n *yaml.Node) error {
	v, err := wholeAtLeast(n, 0, "0 (no cap) or a whole number of requests in flight such as 64")
	*c = capInt(v)
	return err
}

// Int is c as an int.
func (c capInt) Int() int { return int(c) }

// rateList is rate mode's arrival rates, judged as --rate's are (parseRates): a list,
// or one rate (or "2,4,8" as --rate takes it), each a whole number of requests/s from
// 1 to 10000. text is the list as --rate takes it.
type rateList struct{ text string }

func (r *rateList) UnmarshalYAML(n *yaml.Node) error {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var parts []string
	for _, it := range items {
		if _, err := parseRates(it.Value); it.Kind != yaml.ScalarNode || err != nil {
			return lineError(it, "want a rate of requests per second (a whole number from 1 to 10000) or a list of them such as [2, 4, 8, 16], got %q", it.Value)
		}
		parts = append(parts, it.Value)
	}
	if len(parts) == 0 {
		return lineError(n, "want at least one rate of requests per second, such as [2, 4, 8, 16]")
	}
	r.text = strings.Join(parts, ",")
	return nil
}

// arrivalKind is how rate mode's arrivals are spaced, as --arrival takes it.
type arrivalKind string

func (a *arrivalKind) UnmarshalYAML(n *yaml.Node) error {
	if _, err := arrival.ParseKind(n.Value); n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "want poisson or constant, got %q", n.Value)
	}
	*a = arrivalKind(n.Value)
	return nil
}

// sloNumber is a number (model.SLO.Validate, called by slo, judges its value as --slo's
// is judged).
type sloNumber float64

func (v *sloNumber) UnmarshalYAML(n *yaml.Node) error {
	var f float64
	if n.Kind != yaml.ScalarNode || n.Decode(&f) != nil {
		return lineError(n, "want a number of tok/s such as 30, got %q", n.Value)
	}
	*v = sloNumber(f)
	return nil
}

// rate is a fraction in [0, 1], written 0.01 or "1%".
type rate float64

func (r *rate) UnmarshalYAML(n *yaml.Node) error {
	v, err := model.ParseRate(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "want a fraction such as 0.01 or a percentage such as 1%%, got %q", n.Value)
	}
	*r = rate(v)
	return nil
}

// lengthSpec is a length: a number of tokens, or a distribution as the flags take it
// (uniform:LO:HI, normal:MEAN:STDEV).
type lengthSpec struct{ text string }

func (s *lengthSpec) UnmarshalYAML(n *yaml.Node) error {
	if _, err := workload.ParseLengths(n.Value); n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "want a number of tokens, uniform:LO:HI or normal:MEAN:STDEV, got %q", n.Value)
	}
	s.text = n.Value
	return nil
}

// String is the length as the flags take it.
func (s lengthSpec) String() string { return s.text }

// settle is what the live screen holds after its ramp: capacity, 0 or a number of users.
type settle int

func (v *settle) UnmarshalYAML(n *yaml.Node) error {
	x, err := parseSettle(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "%s, got %q", settleWant, n.Value)
	}
	*v = settle(x)
	return nil
}

// String is the settle value as --settle takes it.
func (v settle) String() string {
	if v == engine.SettleCapacity {
		return "capacity"
	}
	return strconv.Itoa(int(v))
}

// seed is the workload's seed: a whole number, 0 meaning a new random seed.
type seed uint64

func (v *seed) UnmarshalYAML(n *yaml.Node) error {
	x, err := strconv.ParseUint(n.Value, 10, 64)
	if n.Kind != yaml.ScalarNode || err != nil {
		return lineError(n, "want a whole number of 0 or more (0: a new random seed each run), got %q", n.Value)
	}
	*v = seed(x)
	return nil
}

// lineError is a decoding error at n's line, gathered by yaml.v3 with the others.
// configError replaces the column mark with the key's path.
func lineError(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: @%d: ", n.Line, n.Column) + fmt.Sprintf(format, args...)}}
}
