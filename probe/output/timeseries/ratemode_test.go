package timeseries

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/arrival"
	"github.com/tpsmon/tpsmon/probe/client"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// rateBenchTo runs a short rate-mode bench (10 then 20 requests/s) over one fake
// endpoint with a time series written to path, and reads it back.
func rateBenchTo(t *testing.T, path string) *Series {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewWriter(f)
	cfg := engine.Config{
		Endpoints: []client.Endpoint{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}},
		Ramp:      engine.Ramp{Levels: []int{10, 20}, Hold: 300 * time.Millisecond},
		FullRamp:  true,
		Drain:     time.Second,
		OpenLoop:  &engine.OpenLoop{Arrival: "constant"},
		NewStreamer: func(client.Endpoint, int) (probe.Streamer, error) {
			return &fake{tokens: 10, gap: 3 * time.Millisecond}, nil
		},
		PoolOptions: []probe.Option{probe.WithTickEvery(50 * time.Millisecond), probe.WithOpenLoop(arrival.Constant, 1, 0)},
		Observers:   []engine.Observer{w},
	}
	e, err := engine.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWriterSaysTheRateInRateMode: in rate mode every line says the target rate
// (target_rate, capacity_rate), the ramp and the levels their rates, in requests/s.
func TestWriterSaysTheRateInRateMode(t *testing.T) {
	s := rateBenchTo(t, filepath.Join(t.TempDir(), "ts.jsonl"))
	rates, ramp := map[int]bool{}, false
	for i, l := range s.Lines {
		if l.TargetRate == nil || *l.TargetRate != l.TargetUsers || l.CapacityRate == nil || *l.CapacityRate != l.Capacity {
			t.Fatalf("line %d: target_rate %v capacity_rate %v, want the rate (%d, %d)", i+1, l.TargetRate, l.CapacityRate, l.TargetUsers, l.Capacity)
		}
		if l.Ramp != nil {
			ramp = true
			if l.Ramp.Rate == nil || *l.Ramp.Rate != l.Ramp.Users {
				t.Errorf("line %d: ramp rate %v, want %d", i+1, l.Ramp.Rate, l.Ramp.Users)
			}
		}
		for _, lv := range l.Levels {
			if lv.Rate == nil || *lv.Rate != lv.Users {
				t.Fatalf("line %d: level %d has rate %v", i+1, lv.Users, lv.Rate)
			}
			rates[*lv.Rate] = true
		}
	}
	if !ramp || !rates[10] || !rates[20] {
		t.Errorf("ramp seen %v, level rates %v: want 10 and 20 requests/s", ramp, rates)
	}
}

// TestWriterLeavesTheRateOutInUsersMode: users-mode lines carry no rate key.
func TestWriterLeavesTheRateOutInUsersMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ts.jsonl")
	benchTo(t, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(`"target_rate"`)) || bytes.Contains(data, []byte(`"rate"`)) || bytes.Contains(data, []byte(`"capacity_rate"`)) {
		t.Error("a users-mode line carries a rate key")
	}
}
