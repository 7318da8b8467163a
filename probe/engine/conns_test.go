package engine

import (
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// TestConnections: the connections per endpoint, decided in one place: the ramp's
// largest level of this process's share, or the users it starts at (at least 64); in
// rate mode the cap on requests in flight, else 8 per request/s of the highest rate
// (at least 64); Conns when given.
func TestConnections(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
		want int
	}{
		{"small ramp", Config{Ramp: Ramp{Levels: []int{1, 2, 4}}}, 64},
		{"large ramp", Config{Ramp: Ramp{Levels: []int{1, 256, 128}}}, 256},
		{"a shard's share", Config{Ramp: Ramp{Levels: []int{1, 400}}, Shard: &model.ReportShard{Index: 0, Count: 4}}, 100},
		{"the screen starts above the ramp", Config{Ramp: Ramp{Levels: []int{1, 64}}, Start: 100}, 100},
		{"rate mode", Config{Ramp: Ramp{Levels: []int{2, 20}}, OpenLoop: &OpenLoop{}}, 160},
		{"rate mode, low rates", Config{Ramp: Ramp{Levels: []int{2, 4}}, OpenLoop: &OpenLoop{}}, 64},
		{"rate mode with a cap", Config{Ramp: Ramp{Levels: []int{2, 200}}, OpenLoop: &OpenLoop{MaxConcurrency: 16}}, 16},
		{"given", Config{Ramp: Ramp{Levels: []int{1, 500}}, Conns: 2}, 2},
	} {
		if got := tt.cfg.Connections(); got != tt.want {
			t.Errorf("%s: %d connections, want %d", tt.name, got, tt.want)
		}
	}
}
