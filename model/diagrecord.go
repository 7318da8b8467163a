package model

import (
	"slices"
	"strings"
	"time"
)

// DiagRequest is one ended request as the diagnosis reads it: how it ended and the few
// times that tell a stall, a burst or a slow prefill.
type DiagRequest struct {
	Send, End    time.Time
	Err          ErrorKind // ErrNone on success
	Status       int       // HTTP status, 0 when no response arrived
	Answered     bool      // response headers arrived
	Msg          string    // a failure's words (the client's, secrets removed)
	RetryAfter   time.Duration
	PromptTokens int // usage.prompt_tokens, 0 when not reported
	Chunks       int // token-bearing events received
	TTFT, E2E    time.Duration
	MaxGap       time.Duration // the longest gap between two chunks
	TypicalGap   time.Duration // the request's median chunk gap (0: unknown)
}

// DiagRequestOf is what the diagnosis keeps of s.
func DiagRequestOf(s *Sample) DiagRequest {
	d := DiagRequest{Send: s.Send, End: s.End, Err: s.Err, Status: s.Status, Answered: !s.Headers.IsZero(),
		RetryAfter: s.RetryAfter, PromptTokens: s.PromptTokens, Chunks: s.Chunks, MaxGap: s.MaxGap,
		TypicalGap: s.Gaps.Median()}
	if !s.OK() {
		d.Msg = s.ErrMsg
	}
	d.TTFT, _ = s.TTFT()
	d.E2E, _ = s.E2E()
	return d
}

// unreachable reports whether the request failed to reach the server at all: no
// connection, or no answer within the timeout. A run of these is an outage.
func (d *DiagRequest) unreachable() bool {
	return d.Err == ErrConnect || d.Err == ErrTimeout && !d.Answered
}

// Outage is a run of requests that could not reach the server, in a row: from the first
// failure to the sending of the first request the server answered again (To zero while
// it lasts).
type Outage struct {
	From, To time.Time
	Last     time.Time // when the newest of the failures ended
	Failed   int       // requests that failed to reach the server
	Cause    string    // what they met, in words: "connections refused"
	Msg      string    // the newest failure's words
	// Answered says the server had answered before the outage began (else tpsmon never
	// reached it); LastOK is its last successful answer then.
	Answered bool
	LastOK   time.Time
}

// The outage rule: at least outageMin failures in a row over at least outageSpan.
const (
	outageMin  = 3
	outageSpan = 2 * time.Second
	// diagKeep bounds the requests the recorder keeps; outagesKept the ended outages.
	diagKeep    = 4096
	outagesKept = 16
)

// holds reports whether o is an outage by now: enough failures over enough time.
func (o *Outage) holds(now time.Time) bool {
	return o.Failed >= outageMin && now.Sub(o.From) >= outageSpan
}

// untried reports whether nothing failed over the last part of ended outage o: its
// last failure came 2 s or more before the request that found the server back (the
// screen's load stopped on the errors, or requests hung for their timeout). When it
// came back in that gap is unknown, so that the outage is said from its first failure
// and "back by" that request, never as lasting all of it.
func (o *Outage) untried() bool { return !o.Last.IsZero() && o.To.Sub(o.Last) >= outageSpan }

// DiagRecorder keeps what the diagnosis needs of one endpoint's requests: the newest
// few thousand ended ones (DiagRequest) and first tokens (FirstToken, AddFirsts), the
// failures to reach the server in a row since the last answer, and the outages that
// ended. Add is cheap (a copy into a ring and a
// look at the request's chunk gaps); it is not safe for concurrent use.
type DiagRecorder struct {
	ring    []DiagRequest
	next    int
	full    bool
	streak  Outage
	ended   []Outage
	everOK  bool
	lastOK  time.Time
	answers int // answered requests since the newest ended outage
	oks     int // of those, successes
	firsts  diagRing[FirstToken]
}

// NewDiagRecorder returns an empty recorder.
func NewDiagRecorder() *DiagRecorder { return &DiagRecorder{ring: make([]DiagRequest, diagKeep)} }

// Add records an ended request (canceled ones are not the endpoint's: ignored).
func (r *DiagRecorder) Add(s *Sample) {
	if s.Err == ErrCanceled {
		return
	}
	d := DiagRequestOf(s)
	r.ring[r.next] = d
	r.next = (r.next + 1) % len(r.ring)
	r.full = r.full || r.next == 0
	switch {
	case d.unreachable():
		if r.streak.Failed == 0 {
			r.streak = Outage{From: d.End, Answered: r.everOK, LastOK: r.lastOK}
		}
		r.streak.Failed++
		r.streak.Last = d.End
		r.streak.Cause, r.streak.Msg = reachCause(&d), d.Msg
	case d.Err == ErrClient:
		// tpsmon's own failure says nothing of the server
	case d.Err == ErrNone || d.Answered && d.Send.After(r.streak.From):
		// The server answered a request sent since the streak began: it is up.
		if r.streak.Failed > 0 {
			if r.streak.holds(d.End) {
				r.streak.To = d.Send // the server took this request: it was up again by then
				if d.Send.Before(r.streak.From) {
					r.streak.To = d.End // sent before the failures began: it says so only as it ends
				}
				r.ended = append(r.ended, r.streak)
				if len(r.ended) > outagesKept {
					r.ended = slices.Delete(r.ended, 0, len(r.ended)-outagesKept)
				}
				r.answers, r.oks = 0, 0
			}
			r.streak = Outage{}
		}
		if d.Err == ErrNone {
			r.everOK, r.lastOK = true, d.End
		}
	}
	if d.Answered || d.Err == ErrNone {
		r.answers++
		if d.Err == ErrNone {
			r.oks++
		}
	}
}

// reachCause says in words what a request that did not reach the server met.
func reachCause(d *DiagRequest) string {
	m := strings.ToLower(d.Msg)
	switch {
	case d.Err == ErrTimeout:
		return "no answer within the timeout"
	case strings.Contains(m, "refused"):
		return "connections refused"
	case strings.Contains(m, "reset"):
		return "connections reset"
	case strings.Contains(m, "resolve"):
		return "the host name does not resolve"
	case strings.Contains(m, "closed the connection"):
		return "connections closed before an answer"
	case strings.Contains(m, "tls"):
		return "TLS handshakes fail"
	}
	return "connections fail"
}

// Since returns the requests that ended at or after from, oldest first (among the
// newest few thousand).
func (r *DiagRecorder) Since(from time.Time) []DiagRequest {
	var out []DiagRequest
	n := r.next
	if r.full {
		n = len(r.ring)
	}
	for k := range n {
		i := k
		if r.full {
			i = (r.next + k) % len(r.ring)
		}
		if !r.ring[i].End.Before(from) {
			out = append(out, r.ring[i])
		}
	}
	return out
}

// AddFirsts records the first tokens of a live tick: sends[i] is when the request of
// ttfts[i] was sent (model.Tick's FirstSends and FirstTokens). Nothing without sends.
func (r *DiagRecorder) AddFirsts(sends []time.Time, ttfts []time.Duration) {
	if len(sends) != len(ttfts) {
		return
	}
	for i := range sends {
		r.firsts.add(FirstToken{Send: sends[i], TTFT: ttfts[i]}, diagKeep)
	}
}

// FirstsSince returns the recorded first tokens that came at or after from, oldest
// first (among the newest few thousand).
func (r *DiagRecorder) FirstsSince(from time.Time) []FirstToken {
	var out []FirstToken
	r.firsts.each(func(f *FirstToken) {
		if !f.Send.Add(f.TTFT).Before(from) {
			out = append(out, *f)
		}
	})
	return out
}

// Outage is the outage going on at now: failures to reach the server in a row, enough
// of them over enough time (ok false when there is none).
func (r *DiagRecorder) Outage(now time.Time) (Outage, bool) {
	return r.streak, r.streak.holds(now)
}

// Ended is the outages that ended (the server answered again), oldest first, at most
// the last 16; with the answers and successes since the newest one ended.
func (r *DiagRecorder) Ended() (outages []Outage, answers, oks int) {
	return slices.Clone(r.ended), r.answers, r.oks
}

// Reset forgets the requests, their first tokens and the outages (the screen's clear);
// whether the server ever answered is kept.
func (r *DiagRecorder) Reset() {
	clear(r.ring)
	r.next, r.full = 0, false
	r.streak, r.ended = Outage{}, nil
	r.answers, r.oks = 0, 0
	r.firsts.reset()
}

// burst reports whether r's tokens all arrived in one burst (a buffering proxy).
func (r *DiagRequest) burst() bool {
	return r.Chunks >= burstChunks && r.E2E > 0 && float64(r.E2E-r.TTFT) <= burstSpan*float64(r.E2E) && r.TypicalGap < burstGap
}
