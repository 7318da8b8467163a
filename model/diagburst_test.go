package model

import (
	"strings"
	"testing"
	"time"
)

// burstRun is the diagnosis input of a ramp from 1 user to 32 on the simulator's default
// profile (32 slots, prefill 0.05 ms per token, prompts of ~150 tokens), 25 s in (one
// TTFT p50 a second, the newest at Now): 20 s at 1 user, a request every 2.8 s at 19 ms
// TTFT; then the 31 new users' first requests, sent within 2.8 ms at 20 s, all admitted
// at once (no request waiting) and prefilled in one step: their first tokens come 274
// ms after sending. first gives the 31 requests' sends and TTFTs.
func burstRun(first func(k int) (time.Duration, time.Duration)) DiagInput {
	t0 := srvT0
	in := oneUserThen(0.274, 5)
	for k := range 31 {
		send, ttft := first(k)
		in.Firsts = append(in.Firsts, FirstToken{Send: t0.Add(20*time.Second + send), TTFT: ttft})
	}
	return in
}

// oneUserThen is the diagnosis input of 20 s at 1 user (a request every 2.8 s at 19 ms
// TTFT, one TTFT p50 a second) and then n seconds of TTFT p50 ttft (seconds), with no
// request waiting on the server; Now is the newest second. The caller adds the first
// tokens after 20 s.
func oneUserThen(ttft float64, n int) DiagInput {
	t0 := srvT0
	in := DiagInput{
		TTFT:   append(repeat(0.019, 20), repeat(ttft, n)...),
		Server: scriptServer(repeat(0, 20+n), repeat(0.02, 20+n), nil, allSigs),
		Now:    t0.Add(time.Duration(20+n-1) * time.Second), Start: t0,
	}
	for s := time.Duration(0); s < 20*time.Second; s += 2800 * time.Millisecond {
		in.Firsts = append(in.Firsts, FirstToken{Send: t0.Add(s), TTFT: 19 * time.Millisecond})
	}
	return in
}

// together is 31 requests sent within 2.8 ms (0.09 ms apart), their first tokens 274 ms
// later, as the simulator gives them.
func together(k int) (time.Duration, time.Duration) {
	return time.Duration(k) * 93 * time.Microsecond, 274*time.Millisecond + time.Duration(k)*10*time.Microsecond
}

// TestDiagnoseTTFTSentTogether: a level's new users, sent together and prefilled in one
// go by a server with no queue, are the server's work, not the network's: said as what
// is seen (info), with the burst's figures, never "between tpsmon and the server".
func TestDiagnoseTTFTSentTogether(t *testing.T) {
	f, ok := DiagnoseTTFT(burstRun(together))
	want := "TTFT rises to 274 ms (19 ms at low load) with no queue on the server: tpsmon sent 31 requests within 3 ms of each other, and the server prefills them together"
	if !ok || f.Rule != DiagTogether || f.Severity != SevInfo || f.Text != want {
		t.Fatalf("got %q (%s, %s, %v)\nwant %q", f.Text, f.Rule, f.Severity, ok, want)
	}
	ev := strings.Join(f.Evidence, "\n")
	for _, w := range []string{"no request waiting on the server in its last 10 scrapes",
		"31 of the 31 recent first tokens slower than 269 ms came to requests sent in bursts (4 or more, at most 25 ms apart, 10x as close as the window's sends)",
		"up to 589 ms for the most, 31 requests in 1 burst)"} {
		if !strings.Contains(ev, w) {
			t.Errorf("evidence %q does not say %q", ev, w)
		}
	}
	// On a busy machine the sends spread: 19 within 2 ms, then 12 more 17 ms later; the
	// server prefilled both sides of the gap in one step (seen under the tests' load).
	f, _ = DiagnoseTTFT(burstRun(func(k int) (time.Duration, time.Duration) {
		if k < 19 {
			return time.Duration(k) * 90 * time.Microsecond, 300 * time.Millisecond
		}
		return 19*time.Millisecond + time.Duration(k-19)*70*time.Microsecond, 282 * time.Millisecond
	}))
	if want := "tpsmon sent 31 requests within 20 ms of each other"; f.Rule != DiagTogether || !strings.Contains(f.Text, want) {
		t.Errorf("sends spread over 20 ms: %q (%s), want %q", f.Text, f.Rule, want)
	}
	fs := Diagnose(burstRun(together))
	if len(fs) != 1 || fs[0].Rule != DiagTogether {
		t.Errorf("Diagnose: %+v", fs)
	}
	// 20 s later, no first token since (answers of 11 s at 32 users, the next ones not
	// yet sent): the rise the burst made still holds in the TTFT's last seconds with a
	// first token, and it is still the burst's.
	in := burstRun(together)
	in.TTFT = append(append(repeat(0.019, 20), repeat(0.274, 10)...), repeat(0, 10)...)
	in.Server = scriptServer(repeat(0, 40), repeat(0.02, 40), nil, allSigs)
	in.Now = srvT0.Add(39 * time.Second)
	if f, _ := DiagnoseTTFT(in); f.Rule != DiagTogether {
		t.Errorf("no first token for 19 s: %q (%s)", f.Text, f.Rule)
	}
}

// TestDiagnoseTTFTSentTogetherAdmitted: one scrape caught the burst waiting for its
// admission (the server takes new requests in at its next step): no lasting queue (under
// one waiting on average over the last 5 scrapes), no more waiting than the burst; said
// with the scrape. More waiting than the burst is not its admission: not explained.
func TestDiagnoseTTFTSentTogetherAdmitted(t *testing.T) {
	in := burstRun(together)
	in.Server[19].Waiting = 23
	f, ok := DiagnoseTTFT(in)
	want := "TTFT rises to 274 ms (19 ms at low load) with no lasting queue on the server (at most 23 waiting, at 1 of its last 10 scrapes): tpsmon sent 31 requests within 3 ms of each other, and the server prefills them together"
	if !ok || f.Rule != DiagTogether || f.Text != want {
		t.Errorf("got %q (%s, %v)\nwant %q", f.Text, f.Rule, ok, want)
	}
	if ev := strings.Join(f.Evidence, "\n"); !strings.Contains(ev, "waiting on the server: under 1 on average over its last 5 scrapes, at most 23 in its last 10, no more than the burst") {
		t.Errorf("evidence %q", ev)
	}
	in.Server[19].Waiting = 40
	if f, ok := DiagnoseTTFT(in); ok {
		t.Errorf("40 waiting for a burst of 31: %q (%s)", f.Text, f.Rule)
	}
}

// TestDiagnoseTTFTNotSentTogether: the same rise is still "between tpsmon and the
// server" when the requests' sends do not explain it: sent apart; sent together but
// slower than prefilling them all may take (31 x 19 ms = 589 ms: a delay on top of the
// burst); too few sent together for their prefill to reach the rise; the slow first
// tokens of requests sent alone; or no send times at all (a producer that does not say).
func TestDiagnoseTTFTNotSentTogether(t *testing.T) {
	cases := map[string]func(k int) (time.Duration, time.Duration){
		"sent 100 ms apart": func(k int) (time.Duration, time.Duration) {
			return time.Duration(k) * 100 * time.Millisecond, 274 * time.Millisecond
		},
		"slower than their prefill": func(k int) (time.Duration, time.Duration) {
			d, _ := together(k)
			return d, 774 * time.Millisecond
		},
		"three at a time": func(k int) (time.Duration, time.Duration) {
			return time.Duration(k/3)*300*time.Millisecond + time.Duration(k%3)*time.Millisecond, 274 * time.Millisecond
		},
		"a quarter sent apart": func(k int) (time.Duration, time.Duration) {
			if k < 8 {
				return time.Second + time.Duration(k)*100*time.Millisecond, 274 * time.Millisecond
			}
			return together(k)
		},
	}
	for name, first := range cases {
		f, ok := DiagnoseTTFT(burstRun(first))
		if !ok || f.Rule != DiagNoQueue || !strings.HasSuffix(f.Text, "the time is spent between tpsmon and the server (network, proxy, gateway)") {
			t.Errorf("%s: got %q (%s, %v), want the time between tpsmon and the server", name, f.Text, f.Rule, ok)
		}
	}
	in := burstRun(together)
	in.Firsts = nil
	if f, _ := DiagnoseTTFT(in); f.Rule != DiagNoQueue {
		t.Errorf("no send times: %q (%s)", f.Text, f.Rule)
	}
	// A burst 16 s before now, its first tokens before those of the recent TTFT (the
	// trailing 10 s of its last 5 seconds), explains none of the slow first tokens of
	// requests sent alone since.
	in = burstRun(together)
	for s := 25 * time.Second; s < 28*time.Second; s += 500 * time.Millisecond {
		in.Firsts = append(in.Firsts, FirstToken{Send: srvT0.Add(s), TTFT: 300 * time.Millisecond})
	}
	in.TTFT = append(in.TTFT, repeat(0.3, 12)...)
	in.Server = scriptServer(repeat(0, 37), repeat(0.02, 37), nil, allSigs)
	in.Now = srvT0.Add(36 * time.Second)
	if f, _ := DiagnoseTTFT(in); f.Rule != DiagNoQueue {
		t.Errorf("an old burst, a slow network since: %q (%s)", f.Text, f.Rule)
	}
	// Rate mode at 1,000 requests/s: sends 1 ms apart are the load's own spacing, not
	// requests sent together, however long their run.
	in = burstRun(together)
	in.Firsts = in.Firsts[:len(in.Firsts)-31]
	for k := range 4000 {
		in.Firsts = append(in.Firsts, FirstToken{Send: srvT0.Add(20*time.Second + time.Duration(k)*time.Millisecond), TTFT: 274 * time.Millisecond})
	}
	if f, _ := DiagnoseTTFT(in); f.Rule != DiagNoQueue {
		t.Errorf("1,000 requests/s: %q (%s)", f.Text, f.Rule)
	}
	// A queue is still a queue, whatever the sends.
	in = burstRun(together)
	in.Server = scriptServer(repeat(6, 20), repeat(0.5, 20), nil, allSigs)
	if f, _ := DiagnoseTTFT(in); f.Rule != DiagQueue {
		t.Errorf("with 6 waiting: %q (%s)", f.Text, f.Rule)
	}
}

// TestDiagRecorderFirsts: the recorder keeps the newest first tokens, says those that
// came since a moment, oldest first, and forgets them on Reset.
func TestDiagRecorderFirsts(t *testing.T) {
	r := NewDiagRecorder()
	var sends []time.Time
	var ttfts []time.Duration
	for k := range diagKeep + 10 {
		sends = append(sends, srvT0.Add(time.Duration(k)*time.Millisecond))
		ttfts = append(ttfts, 5*time.Millisecond)
	}
	r.AddFirsts(sends[:100], ttfts[:100])
	r.AddFirsts(sends[100:], ttfts[100:])
	r.AddFirsts(sends[:3], ttfts[:2]) // not paired: nothing
	all := r.FirstsSince(time.Time{})
	if len(all) != diagKeep || !all[0].Send.Equal(sends[10]) || !all[len(all)-1].Send.Equal(sends[len(sends)-1]) {
		t.Fatalf("kept %d, from %v to %v", len(all), all[0].Send, all[len(all)-1].Send)
	}
	// the first token of the request sent at k ms came at k+5 ms
	if got := r.FirstsSince(srvT0.Add(time.Duration(diagKeep+5) * time.Millisecond)); len(got) != 10 || !got[0].Send.Equal(sends[diagKeep]) {
		t.Errorf("since %d ms: %d, first sent at %v", diagKeep+5, len(got), got[0].Send)
	}
	r.Reset()
	if got := r.FirstsSince(time.Time{}); len(got) != 0 {
		t.Errorf("after Reset: %d", len(got))
	}
	r.AddFirsts(sends[:2], ttfts[:2])
	if got := r.FirstsSince(time.Time{}); len(got) != 2 || !got[0].Send.Equal(sends[0]) {
		t.Errorf("after Reset and 2 more: %+v", got)
	}
}
