package ui

import (
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

func TestErrorWindowLastMinute(t *testing.T) {
	t0 := time.Unix(0, 0)
	var w errorWindow
	tot := map[model.ErrorKind]int{model.ErrTimeout: 5}
	w.Add(t0, tot)
	if r := w.Recent(tot); r[model.ErrTimeout] != 5 {
		t.Fatalf("first minute: recent %v, want the totals", r)
	}
	for s := 1; s <= 90; s++ {
		if s == 70 {
			tot = map[model.ErrorKind]int{model.ErrTimeout: 5, model.HTTPError(500): 3}
		}
		w.Add(t0.Add(time.Duration(s)*time.Second), tot)
	}
	r := w.Recent(tot)
	if r[model.ErrTimeout] != 0 || r[model.HTTPError(500)] != 3 {
		t.Errorf("after 90 s: recent %v, want http_500 3 only (the timeouts are older than a minute)", r)
	}
	w.Add(t0.Add(91*time.Second), map[model.ErrorKind]int{}) // `c` reset the totals
	if r := w.Recent(map[model.ErrorKind]int{model.ErrTimeout: 1}); r[model.ErrTimeout] != 1 {
		t.Errorf("after a reset: recent %v, want timeout 1", r)
	}
}
