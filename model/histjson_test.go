package model

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestHistEncodeRoundTrip: a Hist written to JSON and read back gives the same Dist
// and encodes to the same bytes.
func TestHistEncodeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lat, rate := NewLatencyHist(), NewRateHist()
	for range 3000 {
		lat.RecordDuration(time.Duration(math.Exp(r.NormFloat64()+math.Log(250)) * float64(time.Millisecond)))
		rate.RecordRate(20 + 40*r.Float64())
	}
	lat.RecordDuration(-time.Second) // clamped
	rate.RecordRate(2 * RateMax)     // clamped
	for _, h := range []*Hist{lat, rate, NewLatencyHist()} {
		j := h.JSON()
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		var back HistJSON
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		g, err := HistFromJSON(back)
		if err != nil {
			t.Fatalf("%s: %v", j.Unit, err)
		}
		if g.Dist() != h.Dist() {
			t.Errorf("%s: Dist after a round trip\n got %+v\nwant %+v", j.Unit, g.Dist(), h.Dist())
		}
		if g.JSON() != j {
			t.Errorf("%s: the round trip changed the encoding", j.Unit)
		}
	}
	if len(lat.JSON().HDR) > 4000 {
		t.Errorf("3000 latencies encode to %d bytes: not compact", len(lat.JSON().HDR))
	}
}

// TestHistMergeEqualsOneHist: two Hists fed with two halves of a set of values, merged
// through JSON, equal one Hist fed with the whole set: same Dist (every percentile,
// count, mean, min, max) and the same encoding.
func TestHistMergeEqualsOneHist(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, b, all := NewLatencyHist(), NewLatencyHist(), NewLatencyHist()
	for i := range 5001 {
		d := time.Duration(math.Exp(r.NormFloat64()*0.7+math.Log(400)) * float64(time.Millisecond))
		if i%3 == 0 { // uneven halves, different ranges
			d *= 3
			a.RecordDuration(d)
		} else {
			b.RecordDuration(d)
		}
		all.RecordDuration(d)
	}
	ga, err := HistFromJSON(a.JSON())
	if err != nil {
		t.Fatal(err)
	}
	gb, err := HistFromJSON(b.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if err := ga.Merge(gb); err != nil {
		t.Fatal(err)
	}
	if got, want := ga.Dist(), all.Dist(); got != want {
		t.Errorf("merged Dist\n got %+v\nwant %+v", got, want)
	}
	if ga.JSON() != all.JSON() {
		t.Error("the merged Hist encodes differently from one Hist fed with both sets")
	}
	// Merging into an empty Hist copies; merging an empty one changes nothing.
	e := NewLatencyHist()
	if err := e.Merge(all); err != nil || e.Dist() != all.Dist() {
		t.Errorf("merge into empty: %v %+v", err, e.Dist())
	}
	if err := e.Merge(NewLatencyHist()); err != nil || e.Dist() != all.Dist() {
		t.Errorf("merge of empty: %v %+v", err, e.Dist())
	}
	if err := e.Merge(NewRateHist()); err == nil {
		t.Error("a rate Hist merged into a latency Hist")
	}
}

func TestHistFromJSONRefuses(t *testing.T) {
	h := NewLatencyHist()
	h.RecordDuration(time.Second)
	h.RecordDuration(2 * time.Second)
	good := h.JSON()
	tests := []struct {
		name string
		edit func(*HistJSON)
		want string
	}{
		{"unknown unit", func(j *HistJSON) { j.Unit = "ms" }, "unknown histogram unit"},
		{"not base64", func(j *HistJSON) { j.HDR = "%%%" }, "does not decode"},
		{"empty", func(j *HistJSON) { j.HDR = "" }, "does not decode"},
		{"geometry of the other kind", func(j *HistJSON) { j.Unit = UnitMilliRates }, "covers 1 to 3600000000"},
		{"count", func(j *HistJSON) { j.Count = 3 }, "holds 2 values but says count 3"},
		{"min above max", func(j *HistJSON) { j.Min = j.Max + 1 }, "impossible"},
		{"clamped above count", func(j *HistJSON) { j.Clamped = 5 }, "impossible"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := good
			tc.edit(&j)
			_, err := HistFromJSON(j)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
