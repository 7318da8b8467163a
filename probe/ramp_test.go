package probe

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// walkStep is one thing that happens to a Walk at second sec: a steady mark (steady true)
// or a call to Next, with what Next must return.
type walkStep struct {
	sec     float64
	steady  bool
	conc    int
	changed bool
	done    bool
}

func TestWalk(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	r := Ramp{Levels: []int{1, 4, 8}, Hold: 10 * time.Second}
	tests := []struct {
		name  string
		steps []walkStep
	}{
		{"the hold counts from the steady moment, not from the change", []walkStep{
			{sec: 0, steady: true},
			{sec: 9.9, conc: 1},
			{sec: 10, conc: 4, changed: true},
			{sec: 25, conc: 4}, // still warming up: level 1's requests are in flight
			{sec: 26, steady: true},
			{sec: 35.9, conc: 4},
			{sec: 36, conc: 8, changed: true},
			{sec: 36.5, steady: true},
			{sec: 46.5, conc: 8, done: true},
			{sec: 60, conc: 8, done: true},
		}},
		{"a warm-up longer than MaxWarmup starts the hold anyway", []walkStep{
			{sec: 29.9, conc: 1},
			{sec: 39.9, conc: 1},
			{sec: 40, conc: 4, changed: true},
		}},
		{"only the first steady mark of a level counts", []walkStep{
			{sec: 2, steady: true},
			{sec: 5, steady: true},
			{sec: 12, conc: 4, changed: true},
		}},
		{"a mark from before the level began counts from its beginning", []walkStep{
			{sec: 0, steady: true},
			{sec: 10, conc: 4, changed: true},
			{sec: 3, steady: true}, // a stale state of the previous segment
			{sec: 20, conc: 8, changed: true},
		}},
	}
	for _, tc := range tests {
		w := r.Walk(t0)
		for i, st := range tc.steps {
			if st.steady {
				w.MarkSteady(at(st.sec))
				continue
			}
			conc, changed, done := w.Next(at(st.sec))
			if conc != st.conc || changed != st.changed || done != st.done {
				t.Errorf("%s: step %d: Next(%vs) = %d, %v, %v; want %d, %v, %v",
					tc.name, i, st.sec, conc, changed, done, st.conc, st.changed, st.done)
			}
		}
	}
}

func TestWalkLeft(t *testing.T) {
	t0 := time.Unix(1000, 0)
	w := Ramp{Levels: []int{2, 4}, Hold: 10 * time.Second}.Walk(t0)
	if idx, c := w.Level(); idx != 0 || c != 2 {
		t.Errorf("Level() = %d, %d; want 0, 2", idx, c)
	}
	if warming, _ := w.Left(t0.Add(time.Second)); !warming {
		t.Error("Left before the steady mark: want warming")
	}
	w.MarkSteady(t0.Add(2 * time.Second))
	if warming, left := w.Left(t0.Add(5 * time.Second)); warming || left != 7*time.Second {
		t.Errorf("Left(5s) = %v, %v; want false, 7s", warming, left)
	}
}

func TestWalkEmpty(t *testing.T) {
	w := Ramp{}.Walk(time.Unix(0, 0))
	if c, changed, done := w.Next(time.Unix(5, 0)); c != 0 || changed || !done {
		t.Errorf("empty plan: Next = %d, %v, %v; want 0, false, true", c, changed, done)
	}
	if idx, c := w.Level(); idx != -1 || c != 0 {
		t.Errorf("empty plan: Level = %d, %d; want -1, 0", idx, c)
	}
}

func TestDefaultRamp(t *testing.T) {
	if want := []int{1, 2, 4, 8, 16, 32, 64}; !slices.Equal(DefaultRamp.Levels, want) || DefaultRamp.Hold != 10*time.Second {
		t.Errorf("DefaultRamp = %+v, want %v held 10s", DefaultRamp, want)
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
