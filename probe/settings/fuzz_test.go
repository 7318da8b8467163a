package settings

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/tpsmon/tpsmon/model"
)

// FuzzParseSLO: --slo never panics, and what it accepts is a criterion a report can
// carry: finite, not negative, a rate within [0, 1], and marshalable to JSON.
func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"", "user_tps_p50>=30,ttft_p95<=2s,error_rate<=1%", "user_tps_p50>=inf",
		"ttft_p95<=0s", "error_rate<=NaN", "error_rate <= 150%", "user_tps_p50>=1e309", "ttft_p95<=-1ms", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := model.ParseSLO(s)
		if err != nil {
			return
		}
		u, e := slo.UserTPSMin, slo.ErrorRateMax
		if math.IsNaN(u) || math.IsInf(u, 0) || u < 0 || math.IsNaN(e) || e < 0 || e > 1 || slo.TTFTP95Max <= 0 {
			t.Fatalf("ParseSLO(%q) accepted %+v", s, slo)
		}
		if _, err := json.Marshal(slo.Report()); err != nil {
			t.Fatalf("ParseSLO(%q) = %+v, whose report does not marshal: %v", s, slo, err)
		}
	})
}

// FuzzParseRamp: --ramp never panics; it accepts only levels of at least 1, one per
// comma-separated term, and its error names the flag.
func FuzzParseRamp(f *testing.F) {
	for _, s := range []string{"1,2,4,8", "", "0", "1,,2", " 3 , 4 ", "-1", "1e3", "99999999999999999999", "0x10", "+5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		levels, err := parseRamp(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--ramp") {
				t.Fatalf("parseRamp(%q): %v does not name --ramp", s, err)
			}
			return
		}
		if len(levels) != strings.Count(s, ",")+1 {
			t.Fatalf("parseRamp(%q) = %v: not one level per term", s, levels)
		}
		for _, l := range levels {
			if l < 1 {
				t.Fatalf("parseRamp(%q) = %v: a level below 1", s, levels)
			}
		}
	})
}

// validFieldValue reports whether v can be sent as an HTTP header value (RFC 9110:
// no control character but a tab), as net/http's client checks before sending.
func validFieldValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// FuzzParseHeader: --header never panics; what it accepts net/http can send; its
// error never shows the value (it may be a token).
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer sk-123456", "X-Team:perf", ": v", "no colon", "X Y: v",
		"X: a\r\nInjected: 1", "X: \x00", "Ä: v", "X:", "X: a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h := http.Header{}
		err := parseHeader(s, h)
		name, value, _ := strings.Cut(s, ":")
		value = strings.TrimSpace(value)
		if err != nil {
			msg := err.Error()
			if len(value) >= 6 && !strings.Contains(name, value) && strings.Contains(msg, value) {
				t.Fatalf("parseHeader(%q): %q shows the value", s, msg)
			}
			return
		}
		if len(h) != 1 {
			t.Fatalf("parseHeader(%q) accepted it but added %d headers", s, len(h))
		}
		for k, vs := range h {
			if !validHeaderName(k) {
				t.Fatalf("parseHeader(%q) accepted the name %q", s, k)
			}
			for _, v := range vs {
				if !validFieldValue(v) {
					t.Fatalf("parseHeader(%q) accepted the value %q, which net/http refuses to send", s, v)
				}
			}
		}
	})
}

// FuzzLoadConfig: a config file never panics the loader; every error names the file;
// what it accepts resolves to capacity criteria a report can carry.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"endpoints:\n  - name: a\n    url: http://127.0.0.1:8000/v1\n    headers: {X-Team: perf}\n    extra_body: {temperature: 0}\n",
		"workload: {max_tokens: 256, prompt_tokens: 128, ignore_eos: true, timeout: 60s}\nramp: {levels: [1, 2, 4], hold: 15s}\n",
		"slo: {user_tps_p50_min: .inf, ttft_p95_max: 2s, error_rate_max: 1%}\n",
		"slo: {user_tps_p50_min: 30, error_rate_max: .nan}\n",
		"ramp: {levels: [1, 0]}\n", "- a\n", "", "# only a comment\n", "endpoints: [{url: [}\n",
		"a: &x [*x]\n", "workload:\n\tmax_tokens: 3\n", "endpoints:\n  - api_key_env: sk-secret\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return // syntaxLine reparses prefixes: keep each input quick
		}
		cfg, err := parseConfig("fuzz.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "config fuzz.yaml: ") {
				t.Fatalf("error does not name the file: %q", err)
			}
			return
		}
		for i := range cfg.Endpoints {
			_ = cfg.where(i)
		}
		var crit model.SLO
		layer, err := cfg.layer()
		if err == nil {
			crit, err = slo(layer.SLO)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "config fuzz.yaml: ") {
				t.Fatalf("slo: error does not name the file: %q", err)
			}
			return
		}
		u, e := crit.UserTPSMin, crit.ErrorRateMax
		if math.IsNaN(u) || math.IsInf(u, 0) || u < 0 || math.IsNaN(e) || e < 0 || e > 1 || crit.TTFTP95Max <= 0 {
			t.Fatalf("config %q accepted the criteria %+v", data, crit)
		}
	})
}
