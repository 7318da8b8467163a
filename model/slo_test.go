package model

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseSLO(t *testing.T) {
	tests := []struct {
		in   string
		want SLO
	}{
		{"", DefaultSLO},
		{"user_tps_p50>=30,ttft_p95<=2s,error_rate<=1%", DefaultSLO},
		{"user_tps_p50>=12.5", SLO{UserTPSMin: 12.5, TTFTP95Max: 2 * time.Second, ErrorRateMax: 0.01}},
		{"ttft_p95<=1500ms", SLO{UserTPSMin: 30, TTFTP95Max: 1500 * time.Millisecond, ErrorRateMax: 0.01}},
		{"error_rate<=0.05", SLO{UserTPSMin: 30, TTFTP95Max: 2 * time.Second, ErrorRateMax: 0.05}},
		{"error_rate<=0.5%", SLO{UserTPSMin: 30, TTFTP95Max: 2 * time.Second, ErrorRateMax: 0.005}},
		{" error_rate <= 0% , user_tps_p50 >= 0 ", SLO{UserTPSMin: 0, TTFTP95Max: 2 * time.Second, ErrorRateMax: 0}},
		{"ttft_p95<=1m,user_tps_p50>=5,", SLO{UserTPSMin: 5, TTFTP95Max: time.Minute, ErrorRateMax: 0.01}},
	}
	for _, tc := range tests {
		got, err := ParseSLO(tc.in)
		if err != nil {
			t.Errorf("ParseSLO(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseSLO(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestParseSLOFrom(t *testing.T) {
	base := SLO{UserTPSMin: 10, TTFTP95Max: 5 * time.Second, ErrorRateMax: 0.1}
	got, err := ParseSLOFrom(base, "ttft_p95<=3s")
	if want := (SLO{UserTPSMin: 10, TTFTP95Max: 3 * time.Second, ErrorRateMax: 0.1}); err != nil || got != want {
		t.Errorf("ParseSLOFrom = %+v, %v; want %+v", got, err, want)
	}
}

func TestParseSLOErrors(t *testing.T) {
	tests := []struct {
		in, term, says string
	}{
		{"user_tps_p50<=30", "user_tps_p50<=30", "minimum"},
		{"user_tps_p50>=fast", "user_tps_p50>=fast", `"fast" is not a rate`},
		{"user_tps_p50>=-3", "user_tps_p50>=-3", "not a rate"},
		{"ttft_p95>=2s", "ttft_p95>=2s", "maximum"},
		{"ttft_p95<=soon", "ttft_p95<=soon", "not a duration"},
		{"ttft_p95<=0s", "ttft_p95<=0s", "above 0"},
		{"ttft_p95<=2", "ttft_p95<=2", "with a unit"},
		{"error_rate<=5", "error_rate<=5", "not an error rate"},
		{"error_rate<=1", "error_rate<=1", "error_rate<=1%"},
		{"error_rate<=150%", "error_rate<=150%", "not an error rate"},
		{"error_rate<=x%", "error_rate<=x%", "not an error rate"},
		{"tps>=30", "tps>=30", "unknown term"},
		{"user_tps_p50=30", "user_tps_p50=30", "expected NAME>=VALUE"},
		{"user_tps_p50>=", "user_tps_p50>=", "expected NAME>=VALUE"},
		{"user_tps_p50>=30,user_tps_p50>=40", "user_tps_p50>=40", "twice"},
		{"ttft_p95<=2s;error_rate<=1%", "ttft_p95<=2s;error_rate<=1%", "not a duration"},
	}
	for _, tc := range tests {
		_, err := ParseSLO(tc.in)
		if err == nil {
			t.Errorf("ParseSLO(%q): no error", tc.in)
			continue
		}
		msg := err.Error()
		for _, want := range []string{`"` + tc.term + `"`, tc.says, sloForm} {
			if !strings.Contains(msg, want) {
				t.Errorf("ParseSLO(%q) error %q does not contain %q", tc.in, msg, want)
			}
		}
	}
}

func TestSLOStringAndReport(t *testing.T) {
	if got, want := DefaultSLO.String(), "per-user p50 >= 30 tok/s, TTFT p95 <= 2 s, errors <= 1%"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	r := DefaultSLO.Report()
	if r != (ReportSLO{UserTPSMin: 30, TTFTP95MaxMs: 2000, ErrorRateMax: 0.01}) {
		t.Errorf("Report() = %+v", r)
	}
	if r.SLO() != DefaultSLO || (ReportSLO{}).SLO() != DefaultSLO {
		t.Error("ReportSLO.SLO does not round-trip")
	}
}

func TestFormat(t *testing.T) {
	tests := []struct{ got, want string }{
		{FormatTPS(82.345), "82.3 tok/s"},
		{FormatTPS(0), "0.0 tok/s"},
		{FormatTPS(1234.7), "1235 tok/s"},
		{FormatMs(420 * time.Microsecond), "0.42 ms"},
		{FormatMs(3400 * time.Microsecond), "3.4 ms"},
		{FormatMs(340 * time.Millisecond), "340 ms"},
		{FormatMs(1240 * time.Millisecond), "1.24 s"},
		{FormatMs(12340 * time.Millisecond), "12.3 s"},
		{FormatMs(95 * time.Second), "95.0 s"},
		{FormatMs(125 * time.Second), "125 s"},
		{FormatMs(-2 * time.Second), "-2.00 s"},
		{FormatPercent(0.01), "1%"},
		{FormatPercent(0.0125), "1.25%"},
		{FormatPercent(1.0 / 3), "33.33%"},
		{FormatPercent(0.07), "7%"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestParseRatePercentIsExactDecimal checks that "p%" is the same number as the
// fraction p/100 written out, so that a level whose error rate is exactly the limit
// (7 errors in 1000 requests under error_rate<=0.7%) meets it.
func TestParseRatePercentIsExactDecimal(t *testing.T) {
	tests := []struct {
		in             string
		errors, of     int
		want           float64
		meetsAtTheEdge bool
	}{
		{"0.7%", 7, 1000, 0.007, true},
		{"1.4%", 14, 1000, 0.014, true},
		{"0.3%", 3, 1000, 0.003, true},
		{"1%", 1, 100, 0.01, true},
		{"12.5%", 1, 8, 0.125, true},
		{"5e-1%", 1, 200, 0.005, true},
		{" 2 %", 1, 50, 0.02, true},
	}
	for _, tc := range tests {
		got, err := ParseRate(tc.in)
		if err != nil {
			t.Errorf("ParseRate(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseRate(%q) = %v, want %v", tc.in, got, tc.want)
		}
		slo, err := ParseSLO("error_rate<=" + strings.TrimSpace(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		l := LevelStats{Requests: tc.of, Succeeded: tc.of - tc.errors, ErrorRate: float64(tc.errors) / float64(tc.of),
			UserTPS: Dist{Count: 1, P50: 100}, TTFT: Dist{Count: 1, P95: 100}}
		if slo.Meets(&l) != tc.meetsAtTheEdge {
			t.Errorf("%d errors in %d requests under error_rate<=%s: Meets = %v", tc.errors, tc.of, tc.in, !tc.meetsAtTheEdge)
		}
	}
	for _, bad := range []string{"101%", "-1%", "NaN%", "inf%", "%", "1e400%"} {
		if v, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) = %v, want an error", bad, v)
		}
	}
}

// TestSLOReportIsValidJSON checks that criteria that did not come through ParseSLO (a
// config file can say .nan or .inf) still give a report json.Marshal accepts.
func TestSLOReportIsValidJSON(t *testing.T) {
	for _, slo := range []SLO{
		{UserTPSMin: math.NaN(), TTFTP95Max: sec, ErrorRateMax: math.NaN()},
		{UserTPSMin: math.Inf(1), TTFTP95Max: sec, ErrorRateMax: math.Inf(-1)},
	} {
		r := slo.Report()
		if _, err := json.Marshal(r); err != nil {
			t.Errorf("%+v: %v", slo, err)
		}
		if r.UserTPSMin < 0 || math.IsNaN(r.ErrorRateMax) {
			t.Errorf("Report() = %+v", r)
		}
	}
	if r := (SLO{UserTPSMin: math.Inf(1), TTFTP95Max: sec}).Report(); r.UserTPSMin != math.MaxFloat64 {
		t.Errorf("+Inf minimum reported as %v, want the largest float", r.UserTPSMin)
	}
}
