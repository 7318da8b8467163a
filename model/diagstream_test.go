package model

import (
	"strings"
	"testing"
	"time"
)

func TestDiagnoseStalls(t *testing.T) {
	// A third of the answers pause once for 4 s; their chunks otherwise come every 25 ms.
	rs := reqs(10, 60, func(i int, r *DiagRequest) {
		r.TypicalGap = 25 * time.Millisecond
		r.MaxGap = 60 * time.Millisecond
		if i%3 == 0 {
			r.MaxGap = 4 * time.Second
		}
	})
	f, ok := DiagnoseStalls(diagIn(rs))
	want := "answers pause mid-stream: 33% of requests (20 of 60) paused, typically for 4.00 s (their chunks otherwise come every 25 ms)"
	if !ok || f.Rule != DiagStall || f.Text != want {
		t.Errorf("got %+v\nwant %q", f, want)
	}
	// Gaps of 300 ms at 40 ms typical (a prefill of a new request slowing the batch):
	// under the 500 ms floor, not a stall. Nor 2 s gaps in a stream whose chunks come
	// every 400 ms (5x its own gap).
	for name, f := range map[string]func(int, *DiagRequest){
		"prefill hiccups": func(i int, r *DiagRequest) { r.TypicalGap, r.MaxGap = 40*time.Millisecond, 300*time.Millisecond },
		"slow stream":     func(i int, r *DiagRequest) { r.TypicalGap, r.MaxGap = 400*time.Millisecond, 2*time.Second },
	} {
		if got, ok := DiagnoseStalls(diagIn(reqs(10, 60, f))); ok {
			t.Errorf("%s: %q", name, got.Text)
		}
	}
}

func TestDiagnoseBuffered(t *testing.T) {
	// A buffering proxy: the first token comes with the last, 2.1 s after sending.
	rs := reqs(10, 40, func(i int, r *DiagRequest) {
		r.TTFT, r.E2E = 2100*time.Millisecond, 2101*time.Millisecond
		r.TypicalGap, r.MaxGap = 10*time.Microsecond, 200*time.Microsecond
	})
	fs := Diagnose(diagIn(rs))
	want := "answers arrive in one burst: every token of all 40 requests came at once, 2.10 s after sending (chunk gaps 0.01 ms): " +
		"a proxy or the server buffers the stream; per-user tok/s means nothing here, and TTFT is the whole answer's time"
	if len(fs) != 1 || fs[0].Rule != DiagBuffered || fs[0].Text != want || fs[0].Severity != SevProblem {
		t.Errorf("got %+v\nwant %q", fs, want)
	}
	// A fast healthy stream: 256 tokens in 0.9 s after a 100 ms TTFT.
	healthy := reqs(10, 40, func(i int, r *DiagRequest) {
		r.TTFT, r.E2E, r.TypicalGap = 100*time.Millisecond, time.Second, 3500*time.Microsecond
	})
	if fs := Diagnose(diagIn(healthy)); len(fs) != 0 {
		t.Errorf("healthy: %+v", fs)
	}
}

func TestDiagnosePrefillFit(t *testing.T) {
	// Prompts of 100 to 2,000 tokens; TTFT = 20 ms + 3 ms per token, a little noise.
	rs := reqs(10, 60, func(i int, r *DiagRequest) {
		r.PromptTokens = 100 + (i*37)%1901
		noise := time.Duration((i%7)-3) * 5 * time.Millisecond
		r.TTFT = 20*time.Millisecond + time.Duration(r.PromptTokens)*3*time.Millisecond + noise
		r.E2E = r.TTFT + 2*time.Second
	})
	f, ok := DiagnosePrefill(diagIn(rs))
	if !ok || f.Rule != DiagPrefill || !strings.HasPrefix(f.Text, "slow prefill: TTFT grows 3.0 ms per prompt token (fit over 60 requests with prompts of ") {
		t.Fatalf("got %+v", f)
	}
	// The same spread on a fast prefill (0.05 ms per token: 100 ms at most): healthy.
	fast := reqs(10, 60, func(i int, r *DiagRequest) {
		r.PromptTokens = 100 + (i*37)%1901
		r.TTFT = 20*time.Millisecond + time.Duration(r.PromptTokens)*50*time.Microsecond
	})
	if f, ok := DiagnosePrefill(diagIn(fast)); ok {
		t.Errorf("fast prefill: %q", f.Text)
	}
}

// TestDiagnoseSlowPrefillIsNotTheNetwork: slow prefill on loopback with long prompts of
// one length, TTFT rising with load and no queue on the server, once sent the on-call
// engineer to the network. The prefill explains it: no "look between".
func TestDiagnoseSlowPrefillIsNotTheNetwork(t *testing.T) {
	rs := reqs(10, 30, func(i int, r *DiagRequest) {
		r.PromptTokens = 1030
		r.TTFT = 3100 * time.Millisecond
		r.E2E = r.TTFT + 3*time.Second
	})
	in := diagIn(rs)
	in.TTFT = []float64{1.2, 1.3, 2.5, 3, 3.1, 3.1, 3.2}
	in.BaseTTFT = 1.2
	in.Server = scriptServer(repeat(0, 7), repeat(0.4, 7), nil, allSigs)
	fs := Diagnose(in)
	if len(fs) != 1 || fs[0].Rule != DiagPrefill ||
		fs[0].Text != "TTFT is 3.10 s with no queue on the server and prompts of 1,030 tokens: likely slow prefill (3.0 ms per prompt token); prompts of varied length would confirm it" {
		t.Errorf("got %+v", fs)
	}
	// The same rise with short prompts: nothing explains it, and the server has no
	// queue: look between tpsmon and the server.
	for i := range in.Requests {
		in.Requests[i].PromptTokens = 128
	}
	fs = Diagnose(in)
	if len(fs) != 1 || fs[0].Rule != DiagNoQueue {
		t.Errorf("short prompts: %+v, want the no-queue finding", fs)
	}
}

// TestDiagnoseHealthy: a healthy window says nothing.
func TestDiagnoseHealthy(t *testing.T) {
	in := diagIn(reqs(10, 200, nil))
	in.TTFT = repeat(0.05, 30)
	in.Server = scriptServer(repeat(0, 30), repeat(0.4, 30), repeat(800, 30), allSigs)
	in.Pairs = pairs(800, 790, 25)
	if fs := Diagnose(in); len(fs) != 0 {
		t.Errorf("healthy: %+v", fs)
	}
}

func TestDiagnoseKV(t *testing.T) {
	srv := scriptServer(repeat(3, 10), repeat(0.99, 10), repeat(700, 10), allSigs)
	for i := range srv {
		srv[i].Preempted = 4
	}
	srv[0].Rate = false
	f, ok := DiagnoseKV(DiagInput{Server: srv, Preempted: 52})
	if !ok || f.Text != "the KV cache is full (99%): the server preempts 4.0 sequences/s (52 since the start)" {
		t.Errorf("got %+v", f)
	}
	for i := range srv {
		srv[i].Preempted = 0
	}
	if f, ok := DiagnoseKV(DiagInput{Server: srv, Preempted: 52}); ok {
		t.Errorf("no preemption in the last 10 s: %q", f.Text)
	}
}

// TestDiagnoseRanks: several causes at once, the most telling first.
func TestDiagnoseRanks(t *testing.T) {
	rs := reqs(10, 100, func(i int, r *DiagRequest) {
		switch {
		case i%4 == 0:
			r.Err, r.Status = HTTPError(429), 429
		case i%10 == 1:
			r.MaxGap = 4 * time.Second
		}
	})
	in := diagIn(rs)
	in.TTFT = []float64{0.05, 0.05, 1, 2, 2.5, 2.5, 2.5}
	in.Server = scriptServer(repeat(12, 7), repeat(0.97, 7), nil, allSigs)
	var kinds []string
	for _, f := range Diagnose(in) {
		kinds = append(kinds, f.Rule)
	}
	if got := strings.Join(kinds, ","); got != "rate-limited,server-queue,stalls" {
		t.Errorf("ranked %s", got)
	}
}

// TestDiagnoseVariedPromptsTooFewForAFit: slow prefill, prompts of 100 to 2,000 tokens,
// too few requests for a fit yet: what tpsmon sees ("likely slow prefill", the range),
// never the network; once the TTFT is under the floor of a slow prefill, it says it
// cannot tell.
func TestDiagnoseVariedPromptsTooFewForAFit(t *testing.T) {
	rs := reqs(10, 6, func(i int, r *DiagRequest) {
		r.PromptTokens = []int{150, 1900, 900, 1700, 400, 1200}[i]
		r.TTFT = time.Duration(r.PromptTokens) * 3 * time.Millisecond
	})
	in := diagIn(rs)
	in.TTFT, in.BaseTTFT = []float64{0.45, 2, 3, 3.5, 3.6, 3.6}, 0.45
	in.Server = scriptServer(repeat(0, 6), repeat(0.3, 6), nil, allSigs)
	fs := Diagnose(in)
	if len(fs) != 1 || fs[0].Rule != DiagPrefill ||
		fs[0].Text != "TTFT is 3.15 s with no queue on the server and prompts of 150 to 1,900 tokens (median 1,050): likely slow prefill (3.0 ms per prompt token); more requests would allow a fit of TTFT against prompt length" {
		t.Errorf("got %+v", fs)
	}
	for _, f := range fs {
		if f.Rule == DiagNoQueue {
			t.Errorf("pointed at the network: %q", f.Text)
		}
	}
}

// TestLevelLeavesBurstsOutOfPerUser: answers that arrive whole have no per-user tok/s:
// the level leaves them out, counts them, and the criteria say why it cannot judge.
func TestLevelLeavesBurstsOutOfPerUser(t *testing.T) {
	tr := NewTracker(TrackerOptions{})
	tr.UpdateSegment(Segment{ID: 1, Concurrency: 2, Open: true, Start: diagT0, SteadyAt: diagT0, End: diagT0.Add(20 * time.Second)})
	for i := range 20 {
		send := diagT0.Add(time.Duration(i) * time.Second)
		g := new(GapSketch)
		for range 63 {
			g.Add(5 * time.Microsecond)
		}
		first := send.Add(2 * time.Second)
		tr.AddSample(&Sample{Concurrency: 2, Send: send, Headers: first, First: first, Last: first.Add(time.Millisecond),
			End: first.Add(time.Millisecond), Tokens: 64, Chunks: 64, Gaps: g, Status: 200, Finish: "length"})
	}
	l, _ := tr.Level(2)
	if l.Bursts != 20 || l.UserTPS.Count != 0 || l.TPOT.Count != 0 || l.TTFT.Count != 20 {
		t.Fatalf("bursts %d, per-user %d, TPOT %d, TTFT %d: want 20 bursts kept out of per-user and TPOT", l.Bursts, l.UserTPS.Count, l.TPOT.Count, l.TTFT.Count)
	}
	if rl := l.Report(); rl.UserTPSBursts != 20 {
		t.Errorf("report: %d bursts", rl.UserTPSBursts)
	}
	why := strings.Join(DefaultSLO.Failures(&l), "; ")
	if !strings.Contains(why, "per-user tok/s means nothing: the answers arrive in one burst") {
		t.Errorf("failures: %s", why)
	}
}
