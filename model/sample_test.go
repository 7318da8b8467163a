package model

import (
	"testing"
	"time"
)

// t0 is the fake clock's origin; at(d) is d after it.
var t0 = time.Unix(0, 0)

func at(d time.Duration) time.Time { return t0.Add(d) }

func TestSampleMetrics(t *testing.T) {
	s := time.Second
	ms := time.Millisecond
	tests := []struct {
		name       string
		s          Sample
		ttft, ttfo time.Duration
		hasTTFT    bool
		hasTTFO    bool
		e2e        time.Duration
		hasE2E     bool
		tps        float64
		hasTPS     bool
		tpot       time.Duration
	}{
		{
			name: "N=11 over 1 s",
			s:    Sample{Send: at(0), First: at(200 * ms), FirstAnswer: at(200 * ms), Last: at(1200 * ms), Tokens: 11},
			ttft: 200 * ms, hasTTFT: true, ttfo: 200 * ms, hasTTFO: true,
			e2e: 1200 * ms, hasE2E: true, tps: 10, hasTPS: true, tpot: 100 * ms,
		},
		{
			name: "N=1: no decode rate",
			s:    Sample{Send: at(0), First: at(300 * ms), FirstAnswer: at(300 * ms), Last: at(300 * ms), Tokens: 1},
			ttft: 300 * ms, hasTTFT: true, ttfo: 300 * ms, hasTTFO: true, e2e: 300 * ms, hasE2E: true,
		},
		{
			name: "N=0: no token at all",
			s:    Sample{Send: at(0), Headers: at(50 * ms)},
		},
		{
			name: "t_last == t_first with N=5",
			s:    Sample{Send: at(0), First: at(s), FirstAnswer: at(s), Last: at(s), Tokens: 5},
			ttft: s, hasTTFT: true, ttfo: s, hasTTFO: true, e2e: s, hasE2E: true,
		},
		{
			name: "reasoning model: TTFO after TTFT",
			s:    Sample{Send: at(0), First: at(100 * ms), FirstAnswer: at(2100 * ms), Last: at(4100 * ms), Tokens: 201},
			ttft: 100 * ms, hasTTFT: true, ttfo: 2100 * ms, hasTTFO: true,
			e2e: 4100 * ms, hasE2E: true, tps: 50, hasTPS: true, tpot: 20 * ms,
		},
		{
			name: "reasoning only, no answer token",
			s:    Sample{Send: at(0), First: at(100 * ms), Last: at(1100 * ms), Tokens: 101},
			ttft: 100 * ms, hasTTFT: true, e2e: 1100 * ms, hasE2E: true, tps: 100, hasTPS: true, tpot: 10 * ms,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d, ok := tc.s.TTFT(); d != tc.ttft || ok != tc.hasTTFT {
				t.Errorf("TTFT = %v, %v; want %v, %v", d, ok, tc.ttft, tc.hasTTFT)
			}
			if d, ok := tc.s.TTFO(); d != tc.ttfo || ok != tc.hasTTFO {
				t.Errorf("TTFO = %v, %v; want %v, %v", d, ok, tc.ttfo, tc.hasTTFO)
			}
			if d, ok := tc.s.E2E(); d != tc.e2e || ok != tc.hasE2E {
				t.Errorf("E2E = %v, %v; want %v, %v", d, ok, tc.e2e, tc.hasE2E)
			}
			if v, ok := tc.s.UserTPS(); v != tc.tps || ok != tc.hasTPS {
				t.Errorf("UserTPS = %v, %v; want %v, %v", v, ok, tc.tps, tc.hasTPS)
			}
			if d, ok := tc.s.TPOT(); d != tc.tpot || ok != tc.hasTPS {
				t.Errorf("TPOT = %v, %v; want %v, %v", d, ok, tc.tpot, tc.hasTPS)
			}
		})
	}
}

func TestSampleTokenSourceAndOK(t *testing.T) {
	if got := (&Sample{Usage: true}).TokenSource(); got != SourceUsage {
		t.Errorf("usage sample: %q", got)
	}
	if got := (&Sample{}).TokenSource(); got != SourceChunks {
		t.Errorf("chunk sample: %q", got)
	}
	if !(&Sample{}).OK() || (&Sample{Err: HTTPError(429)}).OK() {
		t.Error("OK is wrong")
	}
	if HTTPError(503) != "http_503" {
		t.Errorf("HTTPError(503) = %q", HTTPError(503))
	}
}
