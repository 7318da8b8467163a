package probe

import (
	"strings"
	"testing"
	"time"
)

func TestRampAt(t *testing.T) {
	r := Ramp{Levels: []int{1, 4, 2}, Hold: 10 * time.Second}
	cases := []struct {
		elapsed time.Duration
		conc    int
		index   int
		done    bool
	}{
		{-time.Second, 1, 0, false},
		{0, 1, 0, false},
		{9999 * time.Millisecond, 1, 0, false},
		{10 * time.Second, 4, 1, false},
		{19 * time.Second, 4, 1, false},
		{20 * time.Second, 2, 2, false},
		{29999 * time.Millisecond, 2, 2, false},
		{30 * time.Second, 2, 2, true},
		{time.Hour, 2, 2, true},
	}
	for _, c := range cases {
		conc, index, done := r.At(c.elapsed)
		if conc != c.conc || index != c.index || done != c.done {
			t.Errorf("At(%v) = %d, %d, %v; want %d, %d, %v", c.elapsed, conc, index, done, c.conc, c.index, c.done)
		}
	}
	if d := r.Duration(); d != 30*time.Second {
		t.Errorf("Duration = %v, want 30s", d)
	}
}

func TestRampAtDegenerate(t *testing.T) {
	cases := []struct {
		name  string
		r     Ramp
		conc  int
		index int
	}{
		{"no levels", Ramp{Hold: time.Second}, 0, -1},
		{"zero hold", Ramp{Levels: []int{3, 5}}, 5, 1},
		{"negative hold", Ramp{Levels: []int{3}, Hold: -time.Second}, 3, 0},
	}
	for _, c := range cases {
		conc, index, done := c.r.At(time.Second)
		if conc != c.conc || index != c.index || !done {
			t.Errorf("%s: At = %d, %d, %v; want %d, %d, true", c.name, conc, index, done, c.conc, c.index)
		}
	}
}

func TestDefaultRamp(t *testing.T) {
	if err := DefaultRamp.Validate(); err != nil {
		t.Fatal(err)
	}
	if c, i, done := DefaultRamp.At(35 * time.Second); c != 8 || i != 3 || done {
		t.Errorf("DefaultRamp.At(35s) = %d, %d, %v; want 8, 3, false", c, i, done)
	}
}

func TestRampValidate(t *testing.T) {
	cases := []struct {
		name string
		r    Ramp
		want []string // substrings of the error; none means valid
	}{
		{"valid", Ramp{Levels: []int{1, 2, 4}, Hold: time.Second}, nil},
		{"decreasing is fine", Ramp{Levels: []int{8, 2, 2}, Hold: time.Second}, nil},
		{"no levels", Ramp{Hold: time.Second}, []string{"no concurrency levels", "--ramp 1,2,4,8"}},
		{"zero level", Ramp{Levels: []int{1, 0, 4}, Hold: time.Second}, []string{"level 2 is 0", "at least 1"}},
		{"negative level", Ramp{Levels: []int{-3}, Hold: time.Second}, []string{"level 1 is -3"}},
		{"zero hold", Ramp{Levels: []int{1}}, []string{"hold is 0s", "--hold 15s"}},
		{"all wrong", Ramp{Levels: []int{0}, Hold: -time.Second}, []string{"level 1 is 0", "hold is -1s"}},
	}
	for _, c := range cases {
		err := c.r.Validate()
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: Validate = %v, want nil", c.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: Validate = nil, want an error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}
