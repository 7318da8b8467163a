package engine

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe/client"
)

func TestDefaults(t *testing.T) {
	if want := []int{1, 2, 4, 8, 16, 32, 64}; !slices.Equal(DefaultRamp.Levels, want) || DefaultRamp.Hold != 10*time.Second {
		t.Errorf("DefaultRamp = %+v, want %v held 10s", DefaultRamp, want)
	}
	for _, tt := range []struct{ hold, max, want time.Duration }{
		{10 * time.Second, 0, 120 * time.Second},
		{time.Minute, 0, 4 * time.Minute},
		{10 * time.Second, 30 * time.Second, 30 * time.Second},
	} {
		if got := (Ramp{Hold: tt.hold, MaxHold: tt.max}).MaxHoldOr(); got != tt.want {
			t.Errorf("hold %v max %v: MaxHoldOr = %v, want %v", tt.hold, tt.max, got, tt.want)
		}
	}
	for users, want := range map[int]int{1: 20, 10: 20, 11: 22, 64: 128} {
		if got := MinSteady(users); got != want {
			t.Errorf("MinSteady(%d) = %d, want %d", users, got, want)
		}
	}
}

func TestRampValidate(t *testing.T) {
	err := Ramp{Levels: []int{0, 2, -1}, Hold: 0, MaxHold: -1}.Validate()
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ce *client.FieldError
		if !errors.As(e, &ce) {
			t.Fatalf("%v is not a FieldError", e)
		}
		fields = append(fields, ce.Field)
	}
	if want := []string{FieldRamp, FieldRamp, FieldHold, FieldMaxHold}; !slices.Equal(fields, want) {
		t.Errorf("fields %v, want %v (%v)", fields, want, err)
	}
	if err := (Ramp{Levels: []int{1}, Hold: time.Second}).Validate(); err != nil {
		t.Errorf("a good plan: %v", err)
	}
}

func TestWalkObserve(t *testing.T) {
	w := Ramp{Levels: []int{2, 4}, Hold: 10 * time.Second}.Walk(t0)
	w.Observe(&model.Segment{Open: true, Concurrency: 1, SteadyAt: at(time.Second)}) // another level's state
	if p := w.Progress(at(2*time.Second), LevelState{}); !p.Warming {
		t.Error("a state of another level made this one steady")
	}
	w.Observe(&model.Segment{Open: true, Concurrency: 2, SteadyAt: at(-time.Second)}) // before the level began
	if p := w.Progress(at(3*time.Second), LevelState{}); p.Warming || p.Left != 7*time.Second {
		t.Errorf("progress %+v; want steady since the level began, 7 s left", p)
	}
	e := Ramp{}.Walk(t0)
	if c, changed, done := e.Next(at(time.Second), LevelState{}); c != 0 || changed || !done {
		t.Errorf("empty plan: Next = %d, %v, %v", c, changed, done)
	}
}
