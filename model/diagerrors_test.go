package model

import (
	"strings"
	"testing"
	"time"
)

var diagT0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// reqs is n requests ending one every 100 ms from second `at` of the run, each made by f.
func reqs(at float64, n int, f func(i int, r *DiagRequest)) []DiagRequest {
	out := make([]DiagRequest, n)
	for i := range out {
		end := diagT0.Add(time.Duration((at + 0.1*float64(i)) * float64(time.Second)))
		out[i] = DiagRequest{Send: end.Add(-2 * time.Second), End: end, Answered: true, Chunks: 100,
			TTFT: 50 * time.Millisecond, E2E: 2 * time.Second, MaxGap: 40 * time.Millisecond, TypicalGap: 20 * time.Millisecond}
		if f != nil {
			f(i, &out[i])
		}
	}
	return out
}

// failEvery makes every k-th request fail with status (and the client's words).
func failEvery(k, status int, msg string) func(int, *DiagRequest) {
	return func(i int, r *DiagRequest) {
		if i%k == 0 {
			r.Err, r.Status, r.Msg, r.Chunks = HTTPError(status), status, msg, 0
		}
	}
}

func diagIn(rs []DiagRequest) DiagInput {
	return DiagInput{Requests: rs, Start: diagT0, Now: rs[len(rs)-1].End, Model: "m"}
}

func TestDiagnoseHTTPFailures(t *testing.T) {
	cases := []struct {
		name string
		in   DiagInput
		kind string
		sev  Severity
		text string
	}{
		{"auth, no key", diagIn(reqs(10, 12, failEvery(1, 401, "http 401 Unauthorized: the server wants an API key and none was sent: set it"))),
			DiagAuth, SevProblem, "authentication refused: HTTP 401 on all 12 requests: no API key was sent"},
		{"auth, wrong key", diagIn(reqs(10, 12, failEvery(1, 401, "http 401 Unauthorized: the server refused the API key (or its permissions): set it"))),
			DiagAuth, SevProblem, "authentication refused: HTTP 401 on all 12 requests: the server refused the API key"},
		{"forbidden", diagIn(reqs(10, 12, failEvery(1, 403, "http 403 Forbidden: the server refused the API key (or its permissions)"))),
			DiagAuth, SevProblem, "authentication refused: HTTP 403 on all 12 requests: the server refused the API key, or it may not use this model"},
		{"rate limited", diagIn(reqs(10, 100, failEvery(4, 429, "http 429 Too Many Requests: slow down"))),
			DiagRateLimit, SevProblem, "rate limited: the server answers HTTP 429 to 25% of requests (25 of 100) (it gives no Retry-After)"},
		{"server errors", diagIn(reqs(10, 200, failEvery(50, 500, "http 500 Internal Server Error: boom"))),
			DiagServerErrors, SevProblem, "server errors: HTTP 500 on 2% of requests (4 of 200)"},
		{"server errors within the criteria", func() DiagInput {
			in := diagIn(reqs(10, 200, failEvery(50, 500, "http 500 Internal Server Error: boom")))
			in.ErrorRateMax = 0.05
			return in
		}(), DiagServerErrors, SevWarning, "server errors: HTTP 500 on 2% of requests (4 of 200)"},
		{"rejected", diagIn(reqs(10, 6, failEvery(1, 400, "http 400 Bad Request: max_tokens must be at least 1, got 0"))),
			DiagRejected, SevProblem, `the server rejects the requests: HTTP 400 on all 6 requests: "max_tokens must be at least 1, got 0"`},
	}
	for _, c := range cases {
		fs := Diagnose(c.in)
		if len(fs) == 0 || fs[0].Rule != c.kind || fs[0].Text != c.text || fs[0].Severity != c.sev {
			t.Errorf("%s: got %+v\nwant %s %s %q", c.name, fs, c.kind, c.sev, c.text)
		}
	}
}

func TestDiagnoseRetryAfterAndStatuses(t *testing.T) {
	rs := reqs(10, 100, func(i int, r *DiagRequest) {
		switch {
		case i%5 == 0:
			r.Err, r.Status, r.RetryAfter = HTTPError(429), 429, 2*time.Second
		case i%10 == 1:
			r.Err, r.Status = HTTPError(500), 500
		case i%25 == 2:
			r.Err, r.Status = HTTPError(503), 503
		}
	})
	got := map[string]string{}
	for _, f := range Diagnose(diagIn(rs)) {
		got[f.Rule] = f.Text
	}
	if w := "rate limited: the server answers HTTP 429 to 20% of requests (20 of 100) and asks to retry after 2.00 s"; got[DiagRateLimit] != w {
		t.Errorf("429: %q, want %q", got[DiagRateLimit], w)
	}
	if w := "server errors: HTTP 500 on 10% (10), HTTP 503 on 4% (4) of 100 requests"; got[DiagServerErrors] != w {
		t.Errorf("5xx: %q, want %q", got[DiagServerErrors], w)
	}
}

// TestDiagnoseNeverAfterOneError: one or two failures of a kind say nothing; nor does
// a kind under 1% of the requests.
func TestDiagnoseNeverAfterOneError(t *testing.T) {
	for name, rs := range map[string][]DiagRequest{
		"one 500":      reqs(10, 10, func(i int, r *DiagRequest) { failEvery(100, 500, "x")(i, r) }),
		"two 429":      reqs(10, 10, func(i int, r *DiagRequest) { failEvery(5, 429, "x")(i, r) }),
		"3 in 400 cut": reqs(10, 400, func(i int, r *DiagRequest) { failEvery(150, 500, "x")(i, r) }),
	} {
		if fs := Diagnose(diagIn(rs)); len(fs) != 0 {
			t.Errorf("%s: %+v, want nothing", name, fs)
		}
	}
}

func TestDiagnoseNotFound(t *testing.T) {
	msg := "http 404 Not Found: The model `gpt-x` does not exist. (check the model name and the endpoint URL)"
	in := diagIn(reqs(10, 12, failEvery(1, 404, msg)))
	in.Model = "gpt-x"
	in.Served = []string{"sim-14b-h100", "sim-8b"}
	f, ok := DiagnoseNotFound(in)
	if want := `unknown model: the server does not serve "gpt-x" (HTTP 404 on all 12 requests); its /models lists: sim-14b-h100, sim-8b`; !ok || f.Rule != DiagModel || f.Text != want {
		t.Errorf("listed elsewhere: %+v, want %q", f, want)
	}
	in.Served = nil // /models unknown: the server's own words name the model
	if f, _ := DiagnoseNotFound(in); f.Rule != DiagModel || f.Text != "unknown model: HTTP 404 on all 12 requests: \"The model `gpt-x` does not exist.\"" {
		t.Errorf("no list: %+v", f)
	}
	in.Served = []string{"gpt-x"} // served, yet 404: the path is wrong
	in.Requests = reqs(10, 12, failEvery(1, 404, "http 404 Not Found: nothing at this path: check"))
	if f, _ := DiagnoseNotFound(in); f.Rule != DiagNotFound || !strings.Contains(f.Text, `although /models lists "gpt-x": nothing at this path`) {
		t.Errorf("wrong path: %+v", f)
	}
	if !Fatal(in.Requests) || Fatal(in.Requests[:4]) {
		t.Error("Fatal: 12 404s are fatal, 4 too few to say")
	}
	mixed := reqs(10, 12, failEvery(2, 401, "x"))
	if Fatal(mixed) {
		t.Error("Fatal: half the requests succeed")
	}
}

func TestDiagnoseCutStreamErrorsTimeouts(t *testing.T) {
	rs := reqs(10, 100, func(i int, r *DiagRequest) {
		switch i % 10 {
		case 3:
			r.Err, r.Msg, r.Chunks = ErrTruncated, "truncated: the stream ended without finish_reason or [DONE] after 37 chunks", 37
		case 6:
			if i < 60 {
				r.Err, r.Msg = ErrStream, "stream_error: simulated engine failure"
			}
		case 8:
			if i < 40 {
				r.Err, r.Msg = ErrTimeout, "timeout: the stream went quiet for 60s after 12 chunks"
			}
		}
	})
	got := map[string]string{}
	for _, f := range Diagnose(diagIn(rs)) {
		got[f.Rule] = f.Text
	}
	want := map[string]string{
		DiagCut:         "streams cut mid-answer: 10% of requests (10 of 100) ended without a finish_reason or [DONE], typically after 37 chunks",
		DiagStreamError: `errors inside the stream: the server ended 6% of streams (6 of 100) with an error event: "simulated engine failure"`,
		DiagTimeout:     "timeouts: 4% of requests (4 of 100) got no token for the whole timeout",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q\nwant %q", k, got[k], w)
		}
	}
}

// TestDiagnoseOutage: failures to connect in a row for seconds after the server had
// answered say "down"; once it answers again, "back" holds only while most answers
// since succeed; streams cut as it went down belong to the outage, not to "cut".
func TestDiagnoseOutage(t *testing.T) {
	rec := NewDiagRecorder()
	at := func(s float64) time.Time { return diagT0.Add(time.Duration(s * float64(time.Second))) }
	add := func(s float64, err ErrorKind, status int, msg string) {
		rec.Add(&Sample{Send: at(s - 0.05), Headers: headersIf(status != 0 || err == ErrNone || err == ErrTruncated, at(s-0.04)),
			End: at(s), Err: err, Status: status, ErrMsg: msg, Chunks: 50})
	}
	for s := 0.0; s < 20; s += 0.5 {
		add(s, ErrNone, 200, "")
	}
	add(20.1, ErrTruncated, 200, "truncated: cut")
	add(20.1, ErrTruncated, 200, "truncated: cut")
	add(20.2, ErrTruncated, 200, "truncated: cut")
	refused := "connect: connection refused 127.0.0.1:8000: is the server running on that port?"
	add(20.2, ErrConnect, 0, refused)
	add(20.3, ErrConnect, 0, refused)
	in := func(now float64) DiagInput {
		in := DiagInput{Requests: rec.Since(at(now - 30)), Start: diagT0, Now: at(now)}
		if o, _ := rec.Outage(at(now)); o.Failed > 0 {
			in.Outage = &o
		}
		in.Ended, in.Answers, in.OKs = rec.Ended()
		return in
	}
	if fs := Diagnose(in(20.5)); len(fs) != 0 {
		t.Errorf("two refusals in 0.3 s: %+v, want nothing yet", fs)
	}
	for s := 20.5; s < 30; s += 0.5 {
		add(s, ErrConnect, 0, refused)
	}
	fs := Diagnose(in(29.9))
	if len(fs) != 1 || fs[0].Rule != DiagDown || fs[0].Severity != SevProblem ||
		fs[0].Text != "the server is down: connections refused for 10 s, 21 requests in a row (its last answer at 20 s)" {
		t.Fatalf("down: %+v", fs)
	}
	add(30.2, ErrNone, 200, "")
	fs = Diagnose(in(30.5))
	if len(fs) != 1 || fs[0].Rule != DiagBack || fs[0].Severity != SevInfo ||
		fs[0].Text != "the server is back after 10 s down: requests succeed again since 30 s (connections refused from 20 s, 21 requests failed)" {
		t.Fatalf("back: %+v", fs)
	}
	// Back, but most answers since fail: not "back".
	for s := 30.4; s < 32; s += 0.2 {
		add(s, HTTPError(500), 500, "http 500 Internal Server Error")
	}
	for _, f := range Diagnose(in(32)) {
		if f.Rule == DiagBack {
			t.Errorf("back beside %d failures of %d answers: %q", 8, 9, f.Text)
		}
	}
	ended, _, _ := rec.Ended()
	rep := OutageFindings(diagT0, at(60), ended, nil)
	if len(rep) != 1 || rep[0].Text != "the server was down for 10 s: connections refused from 20 s to 30 s, 21 requests failed" ||
		rep[0].FirstS != 20.2 || rep[0].LastS != 30.2 {
		t.Errorf("report: %+v", rep)
	}
}

func headersIf(ok bool, t time.Time) time.Time {
	if ok {
		return t
	}
	return time.Time{}
}

// TestDiagnoseCannotReach: a server never reached is not "down" (it never answered):
// tpsmon says it cannot reach it.
func TestDiagnoseCannotReach(t *testing.T) {
	rec := NewDiagRecorder()
	for i := range 10 {
		end := diagT0.Add(time.Duration(i) * 400 * time.Millisecond)
		rec.Add(&Sample{Send: end, End: end, Err: ErrConnect, ErrMsg: "connect: connection refused 127.0.0.1:9: is the server running on that port?"})
	}
	now := diagT0.Add(4 * time.Second)
	o, ok := rec.Outage(now)
	if !ok {
		t.Fatal("no outage after 10 refusals over 3.6 s")
	}
	f, _ := DiagnoseOutage(DiagInput{Outage: &o, Start: diagT0, Now: now})
	if f.Text != "tpsmon cannot reach the server: connections refused for 4 s, 10 requests in a row" {
		t.Errorf("never reached: %q", f.Text)
	}
}
