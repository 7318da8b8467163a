package model

import "time"

// totals is what one endpoint's requests added up to since start or Reset: requests,
// successes, errors by kind, token sources and the last error; and, kept by Reset, the
// tokens-per-chunk ratio learned from the successful requests that reported usage.
type totals struct {
	// Tokens-per-chunk ratio, over successful samples that reported usage (kept by reset).
	usageTokens, usageChunks int64

	requests, success int
	errors            map[ErrorKind]int
	srcUsage, srcChk  int // successful samples by token source
	lastErr           string
	lastErrAt         time.Time
	lastOKAt          time.Time // end of the newest success
}

func newTotals() totals { return totals{errors: map[ErrorKind]int{}} }

// reset forgets everything but the tokens-per-chunk ratio.
func (t *totals) reset() {
	t.requests, t.success = 0, 0
	clear(t.errors)
	t.srcUsage, t.srcChk = 0, 0
	t.lastErr, t.lastErrAt, t.lastOKAt = "", time.Time{}, time.Time{}
}

// add counts a sample that was neither canceled nor forgotten in the totals, the token
// sources, the tokens-per-chunk ratio and the last error.
func (t *totals) add(s *Sample) {
	t.requests++
	if !s.OK() {
		t.errors[s.Err]++
		// Newest failure wins, unless a success ended after it.
		if !s.End.Before(t.lastErrAt) && !s.End.Before(t.lastOKAt) {
			t.lastErr, t.lastErrAt = s.ErrMsg, s.End
			if t.lastErr == "" {
				t.lastErr = string(s.Err)
			}
		}
		return
	}
	t.success++
	if s.Usage {
		t.srcUsage++
		// A usage count of 0 or less after token-bearing events contradicts the
		// stream: it would drag the ratio down (or below 0), so it is left out.
		if s.Chunks > 0 && s.Tokens > 0 {
			t.usageTokens += int64(s.Tokens)
			t.usageChunks += int64(s.Chunks)
		}
	} else {
		t.srcChk++
	}
	if s.End.After(t.lastOKAt) {
		t.lastOKAt = s.End
	}
	if t.lastErr != "" && s.End.After(t.lastErrAt) {
		t.lastErr, t.lastErrAt = "", time.Time{}
	}
}

func tokenSource(usage, chunks int) string {
	switch {
	case usage > 0 && chunks > 0:
		return SourceMixed
	case usage > 0:
		return SourceUsage
	case chunks > 0:
		return SourceChunks
	}
	return ""
}

// tokensPerChunk is Tracker.TokensPerChunk.
func (t *totals) tokensPerChunk() float64 {
	if t.usageChunks == 0 || t.usageTokens == 0 {
		return 1
	}
	return float64(t.usageTokens) / float64(t.usageChunks)
}
