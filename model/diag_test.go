package model

import (
	"strings"
	"testing"
	"time"
)

// scriptServer builds a server series from per-second waiting, KV and generated tok/s.
func scriptServer(waiting, kv, genTPS []float64, has ServerSignal) []ServerPoint {
	out := make([]ServerPoint, len(waiting))
	for i := range waiting {
		out[i] = ServerPoint{Time: srvT0.Add(time.Duration(i) * time.Second), Waiting: waiting[i], Has: has}
		if kv != nil {
			out[i].KV = kv[i]
		}
		if genTPS != nil && i > 0 {
			out[i].GenTPS, out[i].Rate = genTPS[i], true
		}
	}
	return out
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

const allSigs = SigRunning | SigWaiting | SigKV | SigGenerated | SigPreemptions

func TestDiagnoseQueue(t *testing.T) {
	// 64 users on 32 slots: TTFT climbs from 40 ms to seconds while 14 requests wait.
	in := DiagInput{
		TTFT:     []float64{0.04, 0.05, 0.3, 0.9, 1.6, 2.2, 2.5, 2.6, 2.4, 2.5},
		BaseTTFT: 0.04,
		Server: scriptServer(
			[]float64{0, 0, 4, 9, 12, 14, 15, 13, 14, 14},
			[]float64{0.5, 0.6, 0.8, 0.9, 0.95, 0.97, 0.97, 0.96, 0.97, 0.97}, nil, allSigs),
	}
	f, ok := DiagnoseTTFT(in)
	want := "TTFT rises to 2.50 s (40 ms at low load) because requests queue on the server (14 waiting, KV 97%)"
	if !ok || f.Rule != DiagQueue || f.Text != want || f.Severity != SevWarning || len(f.Evidence) != 2 {
		t.Errorf("got %q (%v), want %q", f.Text, ok, want)
	}
	// Without a KV gauge (TGI, llama.cpp) the line names only the queue.
	in.Server = scriptServer(repeat(14, 10), nil, nil, SigRunning|SigWaiting)
	if f, _ := DiagnoseTTFT(in); f.Text != "TTFT rises to 2.50 s (40 ms at low load) because requests queue on the server (14 waiting)" {
		t.Errorf("without KV: %q", f.Text)
	}
}

func TestDiagnoseNoQueue(t *testing.T) {
	// TTFT rises but the server never has a request waiting: the delay is before it.
	in := DiagInput{
		TTFT:   []float64{0.05, 0.05, 0.06, 0.8, 1.1, 1.3, 1.2, 1.4},
		Server: scriptServer(repeat(0, 8), repeat(0.3, 8), nil, allSigs),
	}
	f, ok := DiagnoseTTFT(in)
	if !ok || f.Rule != DiagNoQueue || f.Text != "TTFT rises to 1.20 s (50 ms at low load) with no queue on the server: the time is spent between tpsmon and the server (network, proxy, gateway)" {
		t.Errorf("got %+v %v", f, ok)
	}
}

func TestDiagnoseQueueThatComesAndGoes(t *testing.T) {
	// KV pressure: preemptions fill and empty the queue; the last scrape may show none.
	// The line says the recent average, never "0 waiting".
	in := DiagInput{
		TTFT:   []float64{0.05, 0.05, 2, 2.5, 3, 3, 3, 3, 3, 3},
		Server: scriptServer([]float64{0, 0, 9, 12, 10, 12, 0, 6, 0, 8}, repeat(0.97, 10), nil, allSigs),
	}
	// recent 5: 12, 0, 6, 0, 8 -> 5.2
	if f, ok := DiagnoseTTFT(in); !ok || f.Text != "TTFT rises to 3.00 s (50 ms at low load) because requests queue on the server (5 waiting, KV 97%)" {
		t.Errorf("got %q %v", f.Text, ok)
	}
}

func TestDiagnoseNoQueueWaitsForTheTTFTWindow(t *testing.T) {
	// The queue drained 6 s ago; the live TTFT (a 10 s trailing window) still shows it.
	// That is not "no queue": no line until 10 scrapes without a waiting request.
	in := DiagInput{
		TTFT:   []float64{0.05, 0.05, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
		Server: scriptServer([]float64{0, 0, 20, 20, 20, 20, 0, 0, 0, 0, 0, 0}, nil, nil, SigWaiting),
	}
	if f, ok := DiagnoseTTFT(in); ok {
		t.Errorf("a queue 6 s ago: got %q", f.Text)
	}
}

func TestDiagnoseTTFTQuiet(t *testing.T) {
	cases := map[string]DiagInput{
		// Flat TTFT: nothing to explain, even with a queue.
		"flat": {TTFT: repeat(0.2, 10), BaseTTFT: 0.2, Server: scriptServer(repeat(5, 10), nil, nil, SigWaiting)},
		// Doubles, but by less than 250 ms: noise at this scale.
		"small rise": {TTFT: []float64{0.02, 0.02, 0.05, 0.06, 0.05, 0.06, 0.05}, Server: scriptServer(repeat(5, 7), nil, nil, SigWaiting)},
		// A queue that comes and goes (mean below one request): not clear enough.
		"thin queue": {TTFT: []float64{0.05, 1, 1, 1, 1, 1}, Server: scriptServer([]float64{0, 0, 0, 0, 0, 1}, nil, nil, SigWaiting)},
		"no ttft":    {TTFT: repeat(0, 10), Server: scriptServer(repeat(9, 10), nil, nil, SigWaiting)},
	}
	for name, in := range cases {
		if f, ok := DiagnoseTTFT(in); ok {
			t.Errorf("%s: got %q, want no line", name, f.Text)
		}
	}
	// A rise, but no waiting gauge (or no server view): what tpsmon sees, and that it
	// cannot tell where the time goes.
	for name, in := range map[string]DiagInput{
		"no waiting gauge": {TTFT: []float64{0.05, 1, 1, 1, 1, 1}, Server: scriptServer(repeat(0, 6), nil, nil, SigGenerated)},
		"no server":        {TTFT: []float64{0.05, 1, 1, 1, 1, 1}},
	} {
		f, ok := DiagnoseTTFT(in)
		want := "TTFT rises to 1.00 s (50 ms at low load); without the server's queue (its /metrics) tpsmon cannot tell whether requests wait on the server or before it"
		if !ok || f.Rule != DiagTTFTRise || f.Text != want || f.Severity != SevInfo {
			t.Errorf("%s: got %+v, want %q", name, f, want)
		}
	}
}

func TestDiagnoseCrossCheck(t *testing.T) {
	cases := []struct {
		name     string
		server   float64
		received float64
		rule     string
		text     string
	}{
		{"other traffic", 1610, 700, DiagOtherTraffic, "another client uses the server: it generates 2.3x the tokens tpsmon receives (1610 against 700 tok/s)"},
		{"one replica of several", 420, 700, DiagFewerTokens, "the server reports 0.6x what tpsmon receives: its /metrics may cover one replica of several"},
		{"tpsmon idle", 300, 0, DiagOtherTraffic, "another client uses the server: it generates 300 tok/s while tpsmon receives none"},
		{"within 10%", 750, 700, "", ""},
		{"both idle", 0, 0, "", ""},
	}
	for _, c := range cases {
		in := DiagInput{Pairs: pairs(c.server, c.received, 10)}
		f, ok := DiagnoseCrossCheck(in)
		if ok != (c.rule != "") || f.Rule != c.rule || f.Text != c.text {
			t.Errorf("%s: got %+v (%v), want %q", c.name, f, ok, c.text)
		}
	}
	// Too few rate intervals (server just started answering): no claim.
	short := DiagInput{Pairs: pairs(900, 100, 4)}
	if f, ok := DiagnoseCrossCheck(short); ok {
		t.Errorf("with 2 rate intervals: %q", f.Text)
	}
}

// pairs is n seconds both sides saw, at server and received tok/s.
func pairs(server, received float64, n int) []TokenPair {
	out := make([]TokenPair, n)
	for i := range out {
		out[i] = TokenPair{Server: server, Received: received}
	}
	return out
}

func TestDiagnoseCPU(t *testing.T) {
	if f, ok := DiagnoseCPU(DiagInput{CPU: 1.9, Cores: 2}); !ok || f.Text != "tpsmon may be the limit: it uses 190% CPU" {
		t.Errorf("190%% of 2 cores: %+v %v", f, ok)
	}
	for _, in := range []DiagInput{{CPU: 1.5, Cores: 2}, {CPU: 1.9, Cores: 8}, {CPU: 3}} {
		if f, ok := DiagnoseCPU(in); ok {
			t.Errorf("%+v: got %q, want no line", in, f.Text)
		}
	}
}

func TestDiagnoseCPUSchedulingDelay(t *testing.T) {
	in := DiagInput{CPU: 0.2, Cores: 8, Sched: 25 * time.Millisecond}
	if f, ok := DiagnoseCPU(in); !ok || f.Text != "tpsmon may be the limit: its readers wait 25 ms to run" {
		t.Errorf("readers 25 ms late: %+v %v", f, ok)
	}
	in.Sched = 5 * time.Millisecond
	if f, ok := DiagnoseCPU(in); ok {
		t.Errorf("readers 5 ms late: got %q, want no line", f.Text)
	}
}

func TestDiagnoseOrder(t *testing.T) {
	in := DiagInput{
		TTFT: []float64{0.04, 0.05, 0.9, 1.6, 2.2, 2.5, 2.6}, BaseTTFT: 0.04,
		Pairs:  pairs(1150, 500, 7),
		Server: scriptServer(repeat(14, 7), repeat(0.97, 7), repeat(1150, 7), allSigs),
		CPU:    1.9, Cores: 2,
	}
	var rules []string
	for _, f := range Diagnose(in) {
		rules = append(rules, f.Rule)
	}
	if got := strings.Join(rules, ","); got != "client-cpu,server-queue,other-traffic" {
		t.Errorf("rules %s, want client-cpu, then the queue, then the cross-check", got)
	}
}

func TestDiagWindow(t *testing.T) {
	var buckets []Bucket
	var server []ServerPoint
	for i := range 20 {
		start := srvT0.Add(time.Duration(i) * time.Second)
		buckets = append(buckets, Bucket{Start: start, Width: time.Second, AggregateTPS: float64(i),
			TTFTP50: time.Duration(i) * 100 * time.Millisecond, HasTTFT: i%2 == 0})
		server = append(server, ServerPoint{Time: start.Add(500 * time.Millisecond), Waiting: float64(i), Has: SigWaiting})
	}
	in := DiagWindow(buckets, server, 10*time.Second, 40*time.Millisecond, 1.2, 2)
	if len(in.TTFT) != 10 || len(in.Pairs) != 0 {
		t.Errorf("client window %v, pairs %v: want the last 10 seconds, no pair without a counter rate", in.TTFT, in.Pairs)
	}
	if in.TTFT[0] != 1.0 || in.TTFT[1] != 0 {
		t.Errorf("TTFT %v: want the p50 in seconds, 0 where the bucket has none", in.TTFT[:2])
	}
	if len(in.Server) != 10 || in.Server[0].Waiting != 10 {
		t.Errorf("server window %d points from %v, want 10 from the 10th", len(in.Server), in.Server[0].Waiting)
	}
	if in.BaseTTFT != 0.04 || in.CPU != 1.2 || in.Cores != 2 {
		t.Errorf("base/cpu/cores %v %v %v", in.BaseTTFT, in.CPU, in.Cores)
	}
	if got := DiagWindow(nil, server, time.Minute, 0, 0, 0); got.Server != nil {
		t.Error("no buckets: server points taken without a client window")
	}
}

func TestDiagWindowLeavesOutSecondsWithoutScrapes(t *testing.T) {
	// 20 s at 500 tok/s on both sides, but the server was down for seconds 5 to 14:
	// tpsmon received nothing then, and no scrape answered. The cross-check must
	// compare the seconds both sides saw, not call the gap other traffic.
	var buckets []Bucket
	var server []ServerPoint
	for i := range 20 {
		start := srvT0.Add(time.Duration(i) * time.Second)
		down := i >= 5 && i < 15
		b := Bucket{Start: start, Width: time.Second, AggregateTPS: 500}
		if down {
			b.AggregateTPS = 0
		} else {
			server = append(server, ServerPoint{Time: start.Add(time.Second), GenTPS: 500, Rate: i != 15, Has: SigGenerated})
		}
		buckets = append(buckets, b)
	}
	in := DiagWindow(buckets, server, 30*time.Second, 0, 0, 0)
	if len(in.Pairs) != 8 { // 4 intervals before the outage, 4 after: the one across it has no rate (the counter restarted)
		t.Fatalf("pairs %v: want the 8 intervals both sides saw", in.Pairs)
	}
	if f, ok := DiagnoseCrossCheck(in); ok {
		t.Errorf("an outage read as %q", f.Text)
	}
}

// TestDiagWindowLeavesOutPausedSeconds: a pause (and the second after it) is in neither
// side of the cross-check: the false alarm "0.62x ... another client or a proxy" came
// from seconds in which tpsmon was paused.
func TestDiagWindowLeavesOutPausedSeconds(t *testing.T) {
	var buckets []Bucket
	var server []ServerPoint
	for i := range 30 {
		start := srvT0.Add(time.Duration(i) * time.Second)
		paused := i >= 10 && i < 20
		b := Bucket{Start: start, Width: time.Second, AggregateTPS: 500, Paused: paused}
		gen := 500.0
		switch {
		case paused:
			b.AggregateTPS, gen = 0, 0
		case i == 20: // tpsmon resumes: its streams start while the server's counter lags
			b.AggregateTPS, gen = 100, 400
		}
		buckets = append(buckets, b)
		server = append(server, ServerPoint{Time: start.Add(time.Second), GenTPS: gen, Rate: true, Has: SigGenerated})
	}
	in := DiagWindow(buckets, server, 30*time.Second, 0, 0, 0)
	if len(in.Pairs) != 18 { // 29 intervals less the 10 paused and the one after
		t.Fatalf("%d pairs, want the 18 intervals neither paused nor just after a pause", len(in.Pairs))
	}
	if f, ok := DiagnoseCrossCheck(in); ok {
		t.Errorf("a pause read as %q", f.Text)
	}
}

// TestDiagWindowBurstsAreNotOtherTraffic: answers that arrive in bursts (a buffering
// proxy: 900 tokens every third second) against a server generating 300 tok/s
// steadily, scraped half a second off the buckets: the intervals weigh the buckets by
// overlap, so no burst is lost and the two sides agree.
func TestDiagWindowBurstsAreNotOtherTraffic(t *testing.T) {
	var buckets []Bucket
	var server []ServerPoint
	for i := range 30 {
		start := srvT0.Add(time.Duration(i) * time.Second)
		b := Bucket{Start: start, Width: time.Second}
		if i%3 == 2 {
			b.AggregateTPS = 900
		}
		buckets = append(buckets, b)
		server = append(server, ServerPoint{Time: start.Add(1300 * time.Millisecond), GenTPS: 300, Rate: true, Has: SigGenerated})
	}
	in := DiagWindow(buckets, server, 30*time.Second, 0, 0, 0)
	if f, ok := DiagnoseCrossCheck(in); ok {
		t.Errorf("bursts read as %q (%d pairs)", f.Text, len(in.Pairs))
	}
}

// TestFindingOutweighs: a later holding replaces a finding's words when it is graver,
// or as grave and at least as strong; a finding no figure measures keeps its latest.
func TestFindingOutweighs(t *testing.T) {
	q := func(sev Severity, n float64) Finding { return Finding{Rule: DiagQueue, Severity: sev, Strength: n} }
	for _, c := range []struct {
		was, now Finding
		want     bool
	}{
		{q(SevWarning, 14), q(SevWarning, 2), false},
		{q(SevWarning, 2), q(SevWarning, 14), true},
		{q(SevWarning, 14), q(SevWarning, 14), true},
		{q(SevWarning, 14), q(SevProblem, 1), true},
		{q(SevProblem, 1), q(SevWarning, 14), false},
		{Finding{Rule: DiagStall}, Finding{Rule: DiagStall}, true},
	} {
		if got := c.was.Outweighs(c.now); got != c.want {
			t.Errorf("%+v then %+v: outweighs %v, want %v", c.was, c.now, got, c.want)
		}
	}
}

// TestCrossCheckWaitsOutBufferedAnswers: the first seconds behind a buffering proxy (as
// `tpsmon sim --buffer-answers` at 1 user): two answers ended, each in one burst 2.8 s
// after it was sent, too few for DiagnoseBuffered, while the server's steady 90 tok/s
// meets tpsmon's 51 over 5 s. The cross-check waits: no "another client uses the server".
func TestCrossCheckWaitsOutBufferedAnswers(t *testing.T) {
	burst := func(i int) DiagRequest {
		send := srvT0.Add(time.Duration(i) * 2800 * time.Millisecond)
		return DiagRequest{Send: send, End: send.Add(2800 * time.Millisecond), Chunks: 256,
			TTFT: 2799 * time.Millisecond, E2E: 2800 * time.Millisecond, TypicalGap: time.Microsecond}
	}
	in := DiagInput{Pairs: pairs(90, 51, 5), Requests: []DiagRequest{burst(0), burst(1)}}
	for _, f := range Diagnose(in) {
		if f.Rule == DiagOtherTraffic || f.Rule == DiagFewerTokens {
			t.Errorf("answers in one burst read as %q", f.Text)
		}
	}
	// The same seconds with answers that streamed: the gap is other traffic.
	in.Requests = []DiagRequest{{Chunks: 256, TTFT: 20 * time.Millisecond, E2E: 2800 * time.Millisecond, TypicalGap: 11 * time.Millisecond}}
	if f, ok := DiagnoseCrossCheck(in); !ok || f.Rule != DiagOtherTraffic {
		t.Errorf("streamed answers: %+v, %v; want other traffic", f, ok)
	}
}
