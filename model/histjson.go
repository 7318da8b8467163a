package model

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Recording units of a HistJSON.
const (
	UnitMicros     = "us"     // latencies: whole microseconds
	UnitMilliRates = "mtok/s" // rates: milli-tokens/s
)

// HistJSON is a Hist as results.json carries it, so that the results of several
// processes can be merged exactly (see Merge). Count, Sum, Min, Max and Clamped are the
// Hist's exact figures in recording units (Unit); HDR is the HDR histogram in the
// standard V2 compressed form (base64 of the zlib-compressed buckets, as
// hdrhistogram-go's PackedHistogram.Encode writes it and every HdrHistogram
// implementation reads it), with the Hist's geometry: values 1 to 3.6e9 us or 1 to
// 1e9 mtok/s, 3 significant digits.
type HistJSON struct {
	Unit    string  `json:"unit"`
	Count   int64   `json:"count"`
	Sum     float64 `json:"sum"` // of the recorded values: whole units, exact below 2^53
	Min     int64   `json:"min"`
	Max     int64   `json:"max"`
	Clamped int64   `json:"clamped"`
	HDR     string  `json:"hdr"`
}

// unit is the recording unit of h's kind.
func (h *Hist) unit() string {
	if h.hi == rateHi {
		return UnitMilliRates
	}
	return UnitMicros
}

// JSON encodes h for results.json.
func (h *Hist) JSON() HistJSON {
	// Encoding into memory cannot fail (Encode never returns an error).
	b, _ := h.h.Encode()
	return HistJSON{Unit: h.unit(), Count: h.n, Sum: h.sum, Min: h.min, Max: h.max, Clamped: h.clamped, HDR: string(b)}
}

// HistFromJSON decodes a HistJSON into a Hist of its unit. It refuses an unknown unit,
// an HDR histogram that does not decode or whose geometry is not the Hist's, and
// figures that contradict its buckets (a count other than their total, a min or max
// outside the range).
func HistFromJSON(j HistJSON) (*Hist, error) {
	var h *Hist
	switch j.Unit {
	case UnitMicros:
		h = NewLatencyHist()
	case UnitMilliRates:
		h = NewRateHist()
	default:
		return nil, fmt.Errorf("unknown histogram unit %q (want %q or %q)", j.Unit, UnitMicros, UnitMilliRates)
	}
	p, err := hdrhistogram.DecodePacked([]byte(j.HDR))
	if err != nil {
		return nil, fmt.Errorf("the %s histogram does not decode: %v", j.Unit, err)
	}
	if p.LowestTrackableValue() != 1 || p.HighestTrackableValue() != h.hi || p.SignificantFigures() != sigDigits {
		return nil, fmt.Errorf("the %s histogram covers %d to %d with %d digits, not 1 to %d with %d",
			j.Unit, p.LowestTrackableValue(), p.HighestTrackableValue(), p.SignificantFigures(), h.hi, sigDigits)
	}
	if p.TotalCount() != j.Count {
		return nil, fmt.Errorf("the %s histogram holds %d values but says count %d", j.Unit, p.TotalCount(), j.Count)
	}
	if j.Count < 0 || j.Clamped < 0 || j.Clamped > j.Count || j.Min < 0 || j.Max > h.hi || (j.Count > 0 && j.Min > j.Max) {
		return nil, fmt.Errorf("the %s histogram has impossible figures (count %d, clamped %d, min %d, max %d)", j.Unit, j.Count, j.Clamped, j.Min, j.Max)
	}
	h.h = p
	h.n, h.sum, h.min, h.max, h.clamped = j.Count, j.Sum, j.Min, j.Max, j.Clamped
	return h, nil
}

// Merge adds every value of o to h, as if they had been recorded into h: counts and
// sums add, min and max are the extremes of both, and the percentiles read from the
// merged buckets are those of one Hist fed with both sets of values. Both must be of
// the same kind (latencies or rates).
func (h *Hist) Merge(o *Hist) error {
	if h.hi != o.hi {
		return fmt.Errorf("cannot merge a %s histogram into a %s one", o.unit(), h.unit())
	}
	if o.n == 0 {
		h.clamped += o.clamped
		return nil
	}
	// Same geometry and counts far below overflow: nothing is dropped.
	_ = h.h.Merge(o.h)
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	h.sum += o.sum
	h.clamped += o.clamped
	return nil
}
