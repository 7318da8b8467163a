package settings

import (
	"net/http"
	"testing"
	"time"
)

// TestApplyPrecedence: a value the higher layer sets replaces the lower one's, an unset
// one keeps it, in every group; maps merge key by key, the higher layer's keys
// winning, without changing either layer's map; what is not a setting stays the base's.
func TestApplyPrecedence(t *testing.T) {
	def := flagOrigin(Default, "hold")
	file := Origin{Layer: File, Where: "config c.yaml: line 3: ramp.hold", WriteAs: "hold: "}
	flag := flagOrigin(Flag, "hold")
	var base, fromFile, given Settings
	base.Ramp.Hold = val(15*time.Second, def)
	base.Workload.MaxTokens = val("256", flagOrigin(Default, "max-tokens"))
	fromFile.Ramp.Hold = val(time.Second, file)
	fromFile.Endpoint.Headers = val(http.Header{"X-Team": {"perf"}, "X-Keep": {"1"}}, file)
	given.Ramp.Hold = val(2*time.Second, flag)
	given.Endpoint.Headers = val(http.Header{"X-Team": {"infra"}}, flag)

	s := Apply(base, fromFile)
	if s.Ramp.Hold.V != time.Second || s.Ramp.Hold.From != file || s.Workload.MaxTokens.V != "256" {
		t.Errorf("file over defaults: hold %v from %q, max tokens %q", s.Ramp.Hold.V, s.Ramp.Hold.From.Where, s.Workload.MaxTokens.V)
	}
	s = Apply(s, given)
	if s.Ramp.Hold.V != 2*time.Second || !s.Ramp.Hold.Given() || s.Workload.MaxTokens.Given() {
		t.Errorf("flags over the file: hold %v from %q", s.Ramp.Hold.V, s.Ramp.Hold.From.Where)
	}
	h := s.Endpoint.Headers.V
	if h.Get("X-Team") != "infra" || h.Get("X-Keep") != "1" || len(h) != 2 {
		t.Errorf("headers merged: %v, want X-Team from the flag and X-Keep from the file", h)
	}
	if fromFile.Endpoint.Headers.V.Get("X-Team") != "perf" || len(given.Endpoint.Headers.V) != 1 {
		t.Error("merging changed a layer's map")
	}
	own := Endpoint{Where: "config c.yaml: line 2: endpoints[0]", URL: val("http://h:1", file)}
	if e := Apply(Apply(Endpoint{}, own), Endpoint{Model: val("m", flagOrigin(Flag, "model"))}); e.Where != "" || e.URL.V != "http://h:1" || e.Model.V != "m" {
		t.Errorf("an endpoint's Where is not a setting (the base's stays): %+v", e)
	}
}

// TestAbove: a value is above another when written in a higher layer; an unset value
// is below every layer.
func TestAbove(t *testing.T) {
	levels, rates := val("1,2", flagOrigin(Flag, "ramp")), val("4", Origin{Layer: File})
	if !levels.above(rates) || rates.above(levels) || levels.above(levels) || !rates.above(Value[int]{}) || (Value[int]{}).above(rates) {
		t.Error("above does not order the layers")
	}
}
