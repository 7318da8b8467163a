package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestSLOTTFO(t *testing.T) {
	slo, err := ParseSLO("ttfo_p95<=10s")
	if err != nil || slo.TTFOP95Max != 10*time.Second || slo.TTFTP95Max != DefaultSLO.TTFTP95Max {
		t.Fatalf("ParseSLO(ttfo_p95<=10s) = %+v, %v", slo, err)
	}
	for _, bad := range []string{"ttfo_p95>=10s", "ttfo_p95<=10", "ttfo_p95<=0s"} {
		if _, err := ParseSLO(bad); err == nil || !strings.Contains(err.Error(), "ttfo_p95") {
			t.Errorf("ParseSLO(%q): err %v, want one naming the term", bad, err)
		}
	}
	if err := (SLO{UserTPSMin: 1, TTFTP95Max: time.Second, TTFOP95Max: -time.Second}).Validate(); err == nil {
		t.Error("Validate accepts a negative TTFO limit")
	}
	l := lvl(8, 60, 300, 0, 480)
	l.TTFO = Dist{Count: 40, P95: 12000}
	if !DefaultSLO.Meets(&l) {
		t.Error("without a TTFO criterion, a slow TTFO fails the level")
	}
	if slo.Meets(&l) {
		t.Error("TTFO p95 12 s meets ttfo_p95<=10s")
	}
	if why := slo.Failures(&l); len(why) != 1 || why[0] != "TTFO p95 12.0 s > 10 s" {
		t.Errorf("Failures = %q", why)
	}
	l.TTFO = Dist{}
	if why := slo.Failures(&l); len(why) != 1 || !strings.Contains(why[0], "no TTFO measured") {
		t.Errorf("Failures without TTFO = %q", why)
	}
	if s := slo.String(); !strings.HasSuffix(s, ", TTFO p95 <= 10 s") {
		t.Errorf("String = %q", s)
	}
	b, _ := json.Marshal(slo.Report())
	var back ReportSLO
	if err := json.Unmarshal(b, &back); err != nil || back.SLO() != slo {
		t.Errorf("JSON %s round trip = %+v, want %+v", b, back.SLO(), slo)
	}
	if b, _ := json.Marshal(DefaultSLO.Report()); strings.Contains(string(b), "ttfo") {
		t.Errorf("the default SLO's JSON names ttfo: %s", b)
	}
}
