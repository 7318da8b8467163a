package model

import (
	"strings"
	"testing"
	"time"
)

// splitRun is the diagnosis input of the ramp of burstRun whose 31 new users, sent
// together at 20 s, the server admitted in two groups: 18 prefilled at once (first
// tokens 300 ms after sending), the 13 others waiting for that prefill, then their own
// (520 ms). From then on the users run in two groups in step, a round every 4 s from 24
// s: 18 sent within 1.6 ms, their first tokens 320 ms later; 13 sent within 1.2 ms, gap
// after the first group, each first token ttft after its send. No scrape caught a
// request waiting. 36 s in, the recent TTFT is the rounds of 24, 28 and 32 s.
func splitRun(gap, ttft time.Duration) DiagInput {
	t0 := srvT0
	in := oneUserThen(0.45, 17)
	for k := range 31 {
		d := 300 * time.Millisecond
		if k >= 18 {
			d = 520 * time.Millisecond
		}
		in.Firsts = append(in.Firsts, FirstToken{Send: t0.Add(20*time.Second + time.Duration(k)*90*time.Microsecond), TTFT: d})
	}
	for round := 24 * time.Second; round < 36*time.Second; round += 4 * time.Second {
		for k := range 18 {
			in.Firsts = append(in.Firsts, FirstToken{Send: t0.Add(round + time.Duration(k)*90*time.Microsecond), TTFT: 320 * time.Millisecond})
		}
		for k := range 13 {
			in.Firsts = append(in.Firsts, FirstToken{Send: t0.Add(round + gap + time.Duration(k)*90*time.Microsecond), TTFT: ttft})
		}
	}
	return in
}

// TestDiagnoseTTFTSentTogetherSplit: users that run in two groups in step, the second
// sent 40 ms after the first while the first still waits for its prefill, their first
// tokens 560 ms after sending: more than the second group's own prefill may take (13 x
// 19 ms = 247 ms), within that of the 31 requests ahead of them (589 ms). The server's
// own work, said as the two bursts, never as the network.
func TestDiagnoseTTFTSentTogetherSplit(t *testing.T) {
	f, ok := DiagnoseTTFT(splitRun(40*time.Millisecond, 560*time.Millisecond))
	want := "TTFT rises to 450 ms (19 ms at low load) with no queue on the server: tpsmon sent 31 requests in 2 bursts within 42 ms, and the server prefills them burst after burst"
	if !ok || f.Rule != DiagTogether || f.Severity != SevInfo || f.Text != want {
		t.Fatalf("got %q (%s, %s, %v)\nwant %q", f.Text, f.Rule, f.Severity, ok, want)
	}
	ev := strings.Join(f.Evidence, "\n")
	for _, w := range []string{
		"93 of the 93 recent first tokens slower than 269 ms came to requests sent in bursts",
		"none later than prefilling the requests ahead of each may take (those of its burst and of earlier bursts still without a first token when it was sent, x the low-load TTFT: up to 589 ms for the most, 31 requests in 2 bursts)"} {
		if !strings.Contains(ev, w) {
			t.Errorf("evidence %q does not say %q", ev, w)
		}
	}
}

// TestDiagnoseTTFTNotSentTogetherSplit: the same two groups are still "between tpsmon
// and the server" when the first group's prefill does not explain the second's first
// tokens: slower than prefilling all 31 may take (800 ms against 589 ms: a delay on
// top), or sent 400 ms after the first group, whose first tokens had all come by then
// (nothing of tpsmon's was ahead of them but their own 13: 247 ms).
func TestDiagnoseTTFTNotSentTogetherSplit(t *testing.T) {
	for name, in := range map[string]DiagInput{
		"slower than the 31's prefill":        splitRun(40*time.Millisecond, 800*time.Millisecond),
		"after the first group's first token": splitRun(400*time.Millisecond, 560*time.Millisecond),
	} {
		f, ok := DiagnoseTTFT(in)
		if !ok || f.Rule != DiagNoQueue || !strings.HasSuffix(f.Text, "the time is spent between tpsmon and the server (network, proxy, gateway)") {
			t.Errorf("%s: got %q (%s, %v), want the time between tpsmon and the server", name, f.Text, f.Rule, ok)
		}
	}
}
