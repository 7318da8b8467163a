package client

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// TestClientKeepsRetryAfter: a 429 (or 503) with Retry-After keeps the wait the server
// asked for in the sample, in seconds or as an HTTP date; none, or one unreadable, is 0.
func TestClientKeepsRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		status int
		header string
		want   time.Duration
	}{
		{429, "2", 2 * time.Second},
		{503, "30", 30 * time.Second},
		{429, "", 0},
		{429, "soon", 0},
		{429, "-5", 0},
	} {
		ep := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.header != "" {
				w.Header().Set("Retry-After", tc.header)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			_, _ = io.WriteString(w, `{"error":{"message":"slow down"}}`)
		})
		s, _ := stream(t, ep)
		if s.Status != tc.status || s.RetryAfter != tc.want {
			t.Errorf("%d Retry-After %q: status %d, RetryAfter %v; want %v", tc.status, tc.header, s.Status, s.RetryAfter, tc.want)
		}
	}
}

func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	if d := retryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now); d != 90*time.Second {
		t.Errorf("an HTTP date 90 s ahead: %v", d)
	}
	if d := retryAfter(now.Add(-time.Minute).Format(http.TimeFormat), now); d != 0 {
		t.Errorf("a date in the past: %v", d)
	}
	if d := retryAfter("999999999", now); d != maxRetryAfter {
		t.Errorf("a huge wait: %v, want it bounded at %v", d, maxRetryAfter)
	}
}
