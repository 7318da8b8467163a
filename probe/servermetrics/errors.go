package servermetrics

import (
	"errors"
	"syscall"
)

// ErrKind says why a scrape failed.
type ErrKind int

// The kinds of scrape failure.
const (
	ErrUnreachable   ErrKind = iota + 1 // no connection (refused, DNS, TLS)
	ErrTimeout                          // no complete answer within the timeout
	ErrStatus                           // an HTTP status other than 200 (Error.Status)
	ErrNotMetrics                       // an HTML page or text that is not Prometheus'
	ErrTooLarge                         // the answer is over the size cap
	ErrUnknownServer                    // Prometheus text without a known server's metrics
	ErrCanceled                         // the caller's context ended
)

// Error is a failed scrape: the URL (without user info or query) and a one-line reason.
// It never holds a header's value.
type Error struct {
	URL    string
	Kind   ErrKind
	Reason string // e.g. "404", "connection refused", "no answer within 2s"
	Status int    // the HTTP status with ErrStatus
}

// Error says "server metrics: not available at URL: reason".
func (e *Error) Error() string {
	return "server metrics: not available at " + e.URL + ": " + e.Reason
}

// same reports whether two failures would say the same thing.
func (e *Error) same(o *Error) bool {
	return e != nil && o != nil && e.Kind == o.Kind && e.Reason == o.Reason && e.URL == o.URL
}

func isRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
