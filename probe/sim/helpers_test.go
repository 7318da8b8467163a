package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startSim starts a simulator on 127.0.0.1 and an HTTP client of its own; both are
// closed when the test ends.
func startSim(t *testing.T, cfg Config) (*Instance, *http.Client) {
	t.Helper()
	if cfg.Model == "" {
		cfg.Model = "m"
	}
	inst, err := Start(context.Background(), "", cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 2048}
	t.Cleanup(func() {
		if err := inst.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		tr.CloseIdleConnections()
	})
	return inst, &http.Client{Transport: tr}
}

// sseEvent is one data line of a stream and when the test read it.
type sseEvent struct {
	at   time.Time
	data string
}

// result is what a plain SSE reader saw of one request.
type result struct {
	sent    time.Time
	status  int
	body    []byte // non-200 bodies
	events  []sseEvent
	readErr error // error ending the body (nil at a clean EOF)
}

// tokenEvents returns the events that carry tokens (content, reasoning or text).
func (r *result) tokenEvents(t *testing.T) []sseEvent {
	t.Helper()
	var out []sseEvent
	for _, e := range r.events {
		if e.data == "[DONE]" {
			continue
		}
		c := decodeChunk(t, e.data)
		if len(c.Choices) == 0 {
			continue
		}
		ch := c.Choices[0]
		if (ch.Delta.Content != nil && *ch.Delta.Content != "") || (ch.Delta.Reasoning != nil && *ch.Delta.Reasoning != "") ||
			(ch.Text != nil && *ch.Text != "") {
			out = append(out, e)
		}
	}
	return out
}

func (r *result) done() bool {
	return len(r.events) > 0 && r.events[len(r.events)-1].data == "[DONE]"
}

// chunk is the test's own decoding of a stream event.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      *string `json:"role"`
			Content   *string `json:"content"`
			Reasoning *string `json:"reasoning"`
		} `json:"delta"`
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

func decodeChunk(t *testing.T, data string) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("event is not JSON: %v: %s", err, data)
	}
	return c
}

// chatBody is a streaming chat request for model m with the given extra JSON fields.
func chatBody(extra string) string {
	b := `{"model":"m","stream":true,"messages":[{"role":"user","content":"Say something long."}]`
	if extra != "" {
		b += "," + extra
	}
	return b + "}"
}

// send posts body to path and reads the whole answer with a plain line reader (no JSON
// decoding while reading), stamping each data line as it arrives.
func send(ctx context.Context, t *testing.T, c *http.Client, inst *Instance, path, body string) *result {
	t.Helper()
	r := &result{}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, inst.URL+path, strings.NewReader(body))
	if err != nil {
		t.Error(err) // may run on a goroutine of the test: no Fatal
		return r
	}
	req.Header.Set("Content-Type", "application/json")
	r.sent = time.Now()
	resp, err := c.Do(req)
	if err != nil {
		r.readErr = err
		return r
	}
	defer resp.Body.Close()
	r.status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		r.body, _ = io.ReadAll(resp.Body)
		return r
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q, want text/event-stream", ct)
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if d, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data: ")); ok {
			r.events = append(r.events, sseEvent{at: time.Now(), data: string(d)})
		}
		if err != nil {
			if err != io.EOF {
				r.readErr = err
			}
			return r
		}
	}
}

// getJSON fetches path from the simulator's root (not /v1) into v.
func getJSON(t *testing.T, c *http.Client, inst *Instance, method, path string, v any) int {
	t.Helper()
	url := strings.TrimSuffix(inst.URL, "/v1") + path
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("%s %s: body is not JSON: %v", method, path, err)
	}
	return resp.StatusCode
}

// apiError is an OpenAI-style error body.
type apiError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Param   any    `json:"param"`
		Code    int    `json:"code"`
	} `json:"error"`
}

func decodeError(t *testing.T, r *result) apiError {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, r.body)
	}
	if e.Error.Message == "" || e.Error.Code != r.status {
		t.Errorf("error body %s: want a message and code %d", r.body, r.status)
	}
	return e
}
