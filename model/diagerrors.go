package model

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The failure rules' thresholds: a kind of failure is said when at least failMin
// requests of the window met it and they are at least failShare of its requests;
// never after one error.
const (
	failMin   = 3
	failShare = 0.01
	// backHold is how long "the server is back" holds after an outage ended.
	backHold = 30 * time.Second
	// fatalMin is the requests, all refused for good (401/403/404), that make an
	// endpoint not worth loading.
	fatalMin = 5
)

// failures counts the window's requests by how they ended.
type failures struct {
	n      int
	status map[int]int
	kind   map[ErrorKind]int
	last   map[int]string // the newest message per status (0: per kind, see lastKind)
}

func countFailures(reqs []DiagRequest) failures {
	f := failures{n: len(reqs), status: map[int]int{}, kind: map[ErrorKind]int{}, last: map[int]string{}}
	for i := range reqs {
		r := &reqs[i]
		if r.Err == ErrNone {
			continue
		}
		f.kind[r.Err]++
		if r.Status != 0 {
			f.status[r.Status]++
			f.last[r.Status] = r.Msg
		}
	}
	return f
}

// said reports whether k failures of the window are worth a finding.
func (f *failures) said(k int) bool {
	return k >= failMin && float64(k) >= failShare*float64(f.n)
}

// severity is SevProblem when k of the window's requests exceed the criteria's error
// rate (5% unless the run says), else SevWarning.
func (f *failures) severity(k int, in *DiagInput) Severity {
	limit := in.ErrorRateMax
	if limit <= 0 {
		limit = DefaultSLO.ErrorRateMax
	}
	if float64(k) > limit*float64(f.n) {
		return SevProblem
	}
	return SevWarning
}

// share is "23% of requests (41 of 180)", or "all 12 requests".
func (f *failures) share(k int) string {
	if k == f.n {
		return ofRequests(k, f.n)
	}
	return diagPct(k, f.n) + " of requests (" + diagInt(k) + " of " + diagInt(f.n) + ")"
}

// diagSpan says which requests were counted, for the evidence.
func diagSpan(in *DiagInput) string {
	if len(in.Requests) == 0 {
		return ""
	}
	return "requests that ended from " + runAt(in.Start, in.Requests[0].End) + " to " + runAt(in.Start, in.Now)
}

// lastKind is the newest message of a failure of kind k.
func lastKind(reqs []DiagRequest, k ErrorKind) string {
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Err == k {
			return reqs[i].Msg
		}
	}
	return ""
}

// serverWords is the server's own message inside the client's words for an HTTP
// failure ("http 404 Not Found: The model `x` does not exist. (check ...)"), quoted.
func serverWords(msg string, status int) string {
	prefix := fmt.Sprintf("http %d %s: ", status, statusText(status))
	m, ok := strings.CutPrefix(msg, prefix)
	if !ok {
		return ""
	}
	m, _, _ = strings.Cut(m, " (check the model name")
	return `"` + strings.TrimSpace(m) + `"`
}

// DiagnoseAuth: HTTP 401 or 403: "authentication refused: HTTP 401 on all 12 requests:
// no API key was sent".
func DiagnoseAuth(in DiagInput) (Finding, bool) {
	c := countFailures(in.Requests)
	k := c.status[401] + c.status[403]
	if !c.said(k) {
		return Finding{}, false
	}
	status := 401
	if c.status[403] > c.status[401] {
		status = 403
	}
	msg := c.last[status]
	why := "the server refused the API key"
	switch {
	case strings.Contains(msg, "none was sent"):
		why = "no API key was sent"
	case strings.Contains(msg, "extra headers"):
		why = "the server refused the credentials sent in the headers or the URL"
	case status == 403:
		why = "the server refused the API key, or it may not use this model"
	}
	f := Finding{Rule: DiagAuth, Severity: SevProblem,
		Text:     fmt.Sprintf("authentication refused: HTTP %d on %s: %s", status, c.share(k), why),
		Evidence: []string{diagSpan(&in), "last error: " + msg}}
	return f, true
}

// DiagnoseNotFound: HTTP 404. When the server's /models does not list the model asked
// for (or, unknown, its message names a model): "unknown model: the server does not
// serve "m" (HTTP 404 on all 12 requests); its /models lists: a, b"; otherwise the
// path is wrong: "HTTP 404 on all 12 requests: nothing at this path ...".
func DiagnoseNotFound(in DiagInput) (Finding, bool) {
	c := countFailures(in.Requests)
	k := c.status[404]
	if !c.said(k) {
		return Finding{}, false
	}
	words := serverWords(c.last[404], 404)
	ev := []string{diagSpan(&in), "last error: " + c.last[404]}
	listed := in.Served != nil && slices.Contains(in.Served, in.Model)
	switch {
	case in.Served != nil && !listed:
		lists := "none"
		if len(in.Served) > 0 {
			lists = strings.Join(in.Served, ", ")
		}
		return Finding{Rule: DiagModel, Severity: SevProblem, Evidence: ev, Text: fmt.Sprintf(
			"unknown model: the server does not serve %q (HTTP 404 on %s); its /models lists: %s", in.Model, c.share(k), lists)}, true
	case !listed && strings.Contains(strings.ToLower(words), "model"):
		return Finding{Rule: DiagModel, Severity: SevProblem, Evidence: ev, Text: fmt.Sprintf(
			"unknown model: HTTP 404 on %s: %s", c.share(k), words)}, true
	case listed:
		return Finding{Rule: DiagNotFound, Severity: SevProblem, Evidence: ev, Text: fmt.Sprintf(
			"HTTP 404 on %s although /models lists %q: nothing at this path; check that the endpoint URL is the API base (e.g. http://host:8000/v1)", c.share(k), in.Model)}, true
	}
	return Finding{Rule: DiagNotFound, Severity: SevProblem, Evidence: ev, Text: fmt.Sprintf(
		"HTTP 404 on %s: nothing at this path; check the endpoint URL (the API base, e.g. http://host:8000/v1) and the model name", c.share(k))}, true
}

// DiagnoseRejected: another HTTP 4xx (400, 413, 422...): "the server rejects the
// requests: HTTP 400 on all 12 requests: "max_tokens must be at least 1"".
func DiagnoseRejected(in DiagInput) (Finding, bool) {
	c := countFailures(in.Requests)
	status, k := c.top(func(s int) bool { return s >= 400 && s < 500 && s != 401 && s != 403 && s != 404 && s != 429 })
	if !c.said(k) {
		return Finding{}, false
	}
	text := fmt.Sprintf("the server rejects the requests: HTTP %d on %s", status, c.share(k))
	if w := serverWords(c.last[status], status); w != "" {
		text += ": " + w
	}
	return Finding{Rule: DiagRejected, Severity: SevProblem, Text: text,
		Evidence: []string{diagSpan(&in), "last error: " + c.last[status]}}, true
}

// top is the most frequent status that keep accepts, with its count (ties: the lower).
func (f *failures) top(keep func(int) bool) (status, count int) {
	for _, s := range slices.Sorted(maps.Keys(f.status)) {
		if keep(s) && f.status[s] > count {
			status, count = s, f.status[s]
		}
	}
	return status, count
}

// DiagnoseServerErrors: HTTP 5xx, by status: "server errors: HTTP 500 on 9% of
// requests (18 of 200)", or with several statuses "server errors: HTTP 500 on 9% (18),
// HTTP 503 on 2% (4) of 200 requests".
func DiagnoseServerErrors(in DiagInput) (Finding, bool) {
	c := countFailures(in.Requests)
	var statuses []int
	total := 0
	for s, k := range c.status {
		if s >= 500 {
			statuses = append(statuses, s)
			total += k
		}
	}
	if !c.said(total) {
		return Finding{}, false
	}
	slices.SortFunc(statuses, func(a, b int) int { return cmp.Or(cmp.Compare(c.status[b], c.status[a]), cmp.Compare(a, b)) })
	var text string
	if len(statuses) == 1 {
		text = fmt.Sprintf("server errors: HTTP %d on %s", statuses[0], c.share(total))
	} else {
		parts := make([]string, len(statuses))
		for i, s := range statuses {
			parts[i] = fmt.Sprintf("HTTP %d on %s (%s)", s, diagPct(c.status[s], c.n), diagInt(c.status[s]))
		}
		text = "server errors: " + strings.Join(parts, ", ") + " of " + Plural(c.n, "request")
	}
	return Finding{Rule: DiagServerErrors, Severity: c.severity(total, &in), Text: text,
		Evidence: []string{diagSpan(&in), "last error: " + c.last[statuses[0]]}}, true
}

// DiagnoseRateLimit: HTTP 429: "rate limited: the server answers HTTP 429 to 23% of
// requests (41 of 180) and asks to retry after 2 s" (the median Retry-After it gave),
// or "... (it gives no Retry-After)".
func DiagnoseRateLimit(in DiagInput) (Finding, bool) {
	c := countFailures(in.Requests)
	k := c.status[429]
	if !c.said(k) {
		return Finding{}, false
	}
	var waits []time.Duration
	for _, r := range in.Requests {
		if r.Status == 429 && r.RetryAfter > 0 {
			waits = append(waits, r.RetryAfter)
		}
	}
	text := "rate limited: the server answers HTTP 429 to " + c.share(k)
	ev := []string{diagSpan(&in), "last error: " + c.last[429]}
	if len(waits) > 0 {
		text += " and asks to retry after " + FormatMs(medianDuration(waits))
		ev = append(ev, fmt.Sprintf("Retry-After on %d of the %d answers", len(waits), k))
	} else {
		text += " (it gives no Retry-After)"
	}
	return Finding{Rule: DiagRateLimit, Severity: c.severity(k, &in), Text: text, Evidence: ev}, true
}

// DiagnoseCut: streams that ended without finish_reason or [DONE] (outside an
// outage): "streams cut mid-answer: 5% of requests (9 of 180) ended without a
// finish_reason or [DONE], typically after 37 chunks".
func DiagnoseCut(in DiagInput) (Finding, bool) {
	spans := outageSpans(&in)
	var chunks []float64
	for _, r := range in.Requests {
		if r.Err == ErrTruncated && !inOutage(spans, r.End) {
			chunks = append(chunks, float64(r.Chunks))
		}
	}
	c := failures{n: len(in.Requests)}
	k := len(chunks)
	if !c.said(k) {
		return Finding{}, false
	}
	return Finding{Rule: DiagCut, Severity: c.severity(k, &in),
		Text: fmt.Sprintf("streams cut mid-answer: %s ended without a finish_reason or [DONE], typically after %.0f chunks",
			c.share(k), diagMedian(chunks)),
		Evidence: []string{diagSpan(&in), "last error: " + lastKind(in.Requests, ErrTruncated)}}, true
}

// DiagnoseStreamErrors: in-band error events: "errors inside the stream: the server
// ended 4% of streams (7 of 180) with an error event: "engine failure"".
func DiagnoseStreamErrors(in DiagInput) (Finding, bool) {
	c := countFailures(in.Requests)
	k := c.kind[ErrStream]
	if !c.said(k) {
		return Finding{}, false
	}
	msg := lastKind(in.Requests, ErrStream)
	text := fmt.Sprintf("errors inside the stream: the server ended %s with an error event", streamsShare(k, c.n))
	if m, ok := strings.CutPrefix(msg, "stream_error: "); ok && !strings.HasPrefix(m, "the server sent") {
		text += `: "` + m + `"`
	}
	return Finding{Rule: DiagStreamError, Severity: c.severity(k, &in), Text: text,
		Evidence: []string{diagSpan(&in), "last error: " + msg}}, true
}

// streamsShare is "4% of streams (7 of 180)", or "all 12 streams".
func streamsShare(k, n int) string {
	if k == n {
		return strings.Replace(ofRequests(k, n), "request", "stream", 1)
	}
	return diagPct(k, n) + " of streams (" + diagInt(k) + " of " + diagInt(n) + ")"
}

// DiagnoseTimeouts: requests cut by the timeout (outside an outage): "timeouts: 3% of
// requests (5 of 180) went quiet for the whole timeout", or got no answer within it.
func DiagnoseTimeouts(in DiagInput) (Finding, bool) {
	spans := outageSpans(&in)
	quiet, none := 0, 0
	for _, r := range in.Requests {
		switch {
		case r.Err != ErrTimeout:
		case r.Answered:
			quiet++
		case !inOutage(spans, r.End):
			none++
		}
	}
	c := failures{n: len(in.Requests)}
	k := quiet + none
	if !c.said(k) {
		return Finding{}, false
	}
	what := "got no token for the whole timeout"
	if none > quiet {
		what = "got no answer within the timeout"
	}
	return Finding{Rule: DiagTimeout, Severity: c.severity(k, &in), Text: fmt.Sprintf("timeouts: %s %s", c.share(k), what),
		Evidence: []string{diagSpan(&in), "last error: " + lastKind(in.Requests, ErrTimeout)}}, true
}

// DiagnoseProtocol: answers that cannot be read as a stream: "the server's answers
// cannot be read as a stream: all 12 requests: <the client's words>".
func DiagnoseProtocol(in DiagInput) (Finding, bool) {
	c := countFailures(in.Requests)
	k := c.kind[ErrProtocol]
	if !c.said(k) {
		return Finding{}, false
	}
	msg := lastKind(in.Requests, ErrProtocol)
	return Finding{Rule: DiagProtocol, Severity: c.severity(k, &in),
		Text:     fmt.Sprintf("the server's answers cannot be read as a stream: %s", c.share(k)),
		Evidence: []string{diagSpan(&in), "last error: " + msg}}, true
}

// DiagnoseClientErrors: requests that failed on tpsmon's side (no file descriptor, no
// memory): "tpsmon's own limits: 12 requests failed on tpsmon's side (...)".
func DiagnoseClientErrors(in DiagInput) (Finding, bool) {
	c := countFailures(in.Requests)
	k := c.kind[ErrClient]
	if !c.said(k) {
		return Finding{}, false
	}
	msg := lastKind(in.Requests, ErrClient)
	return Finding{Rule: DiagClientErrors, Severity: SevWarning,
		Text:     fmt.Sprintf("tpsmon's own limits: %s failed on tpsmon's side, not the server's", c.share(k)),
		Evidence: []string{diagSpan(&in), "last error: " + msg}}, true
}

// Fatal reports whether every one of the window's requests (at least 5) was refused
// for good: HTTP 401, 403 or 404. Loading such an endpoint more only adds failures.
func Fatal(reqs []DiagRequest) bool {
	if len(reqs) < fatalMin {
		return false
	}
	for i := range reqs {
		if s := reqs[i].Status; s != 401 && s != 403 && s != 404 {
			return false
		}
	}
	return true
}

// statusText is net/http's status text, without importing net/http into model.
func statusText(code int) string {
	if t, ok := statusTexts[code]; ok {
		return t
	}
	return strconv.Itoa(code)
}

var statusTexts = map[int]string{
	400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
	408: "Request Timeout", 409: "Conflict", 413: "Request Entity Too Large", 415: "Unsupported Media Type",
	422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented",
	502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
}
