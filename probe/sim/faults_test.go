package sim

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestAuthKey: with an API key every /v1 route wants it (401 as vLLM's --api-key
// answers), /metrics does not; the right key is served.
func TestAuthKey(t *testing.T) {
	cfg := fast
	cfg.AuthKey = "sk-test"
	inst, client := startSim(t, cfg)
	r := send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":3`))
	if r.status != http.StatusUnauthorized || !strings.Contains(string(r.body), "Unauthorized") {
		t.Errorf("no key: status %d %s, want 401 Unauthorized", r.status, r.body)
	}
	var models map[string]any
	if code := getJSON(t, client, inst, http.MethodGet, "/v1/models", &models); code != http.StatusUnauthorized {
		t.Errorf("/v1/models without the key: %d, want 401", code)
	}
	req, _ := http.NewRequest(http.MethodGet, strings.TrimSuffix(inst.URL, "/v1")+"/metrics", nil)
	if resp, err := client.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("/metrics without a key: %v %v, want 200", resp, err)
	} else {
		resp.Body.Close()
	}
	req, _ = http.NewRequest(http.MethodPost, inst.URL+"/chat/completions", strings.NewReader(chatBody(`"max_tokens":3`)))
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := client.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("with the key: %v %v, want 200", resp, err)
	}
	resp.Body.Close()
	if st := inst.Server.Stats(); st.Errors["http_401"] != 2 || st.Requests != 2 {
		t.Errorf("stats %+v: want 2 requests (the completions), 2 HTTP 401", st)
	}
}

// TestRefuse: every completion request gets the status asked for, in a real server's
// words (a 429 with its Retry-After), while /v1/models still answers.
func TestRefuse(t *testing.T) {
	for _, tc := range []struct {
		status int
		kind   string
		words  string
	}{
		{401, "http_401", "Unauthorized"},
		{403, "http_403", "no access"},
		{404, "http_404", "does not exist"},
		{429, "http_429", "rate limit"},
		{500, "http_500", "server error"},
		{503, "http_503", "unavailable"},
		{502, "http_other", "HTTP 502"},
	} {
		cfg := fast
		cfg.Refuse, cfg.RetryAfter = tc.status, 1500*time.Millisecond
		inst, client := startSim(t, cfg)
		req, _ := http.NewRequest(http.MethodPost, inst.URL+"/chat/completions", strings.NewReader(chatBody(`"max_tokens":3`)))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r := &result{status: resp.StatusCode}
		r.body = readAll(resp)
		if r.status != tc.status || !strings.Contains(string(r.body), tc.words) {
			t.Errorf("refuse %d: got %d %s, want the status and %q", tc.status, r.status, r.body, tc.words)
		}
		if ra := resp.Header.Get("Retry-After"); (tc.status == 429) != (ra == "2") {
			t.Errorf("refuse %d: Retry-After %q (want 2, rounded up from 1.5 s, on a 429 only)", tc.status, ra)
		}
		var models map[string]any
		if code := getJSON(t, client, inst, http.MethodGet, "/v1/models", &models); code != 200 {
			t.Errorf("refuse %d: /v1/models %d, want 200", tc.status, code)
		}
		if st := inst.Server.Stats(); st.Errors[tc.kind] != 1 || st.Requests != 1 {
			t.Errorf("refuse %d: stats %+v, want 1 request, 1 %s", tc.status, st, tc.kind)
		}
	}
	if err := (Config{Refuse: 200}).Validate(); err == nil || !strings.Contains(err.Error(), "refuse") {
		t.Errorf("Refuse 200 validates: %v", err)
	}
}

func readAll(resp *http.Response) []byte {
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return []byte(b.String())
		}
	}
}

// TestQueueFullRetryAfter: the 429 of a full queue carries Retry-After too.
func TestQueueFullRetryAfter(t *testing.T) {
	cfg := Config{Slots: 1, StepMs: 50, MaxQueue: 1, RetryAfter: 2 * time.Second}
	inst, client := startSim(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for range 2 { // one decodes, one waits
		wg.Go(func() {
			send(ctx, t, client, inst, "/chat/completions", chatBody(`"max_tokens":200,"ignore_eos":true`))
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for inst.Server.Stats().Queue < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	req, _ := http.NewRequest(http.MethodPost, inst.URL+"/chat/completions", strings.NewReader(chatBody(`"max_tokens":3`)))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readAll(resp)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("full queue: %d Retry-After %q, want 429 and 2", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	cancel()
	wg.Wait()
}

// TestStreamError: a stream ends mid-way with vLLM's in-band error event and [DONE],
// after some tokens and without a finish_reason.
func TestStreamError(t *testing.T) {
	cfg := fast
	cfg.StreamErrorRate, cfg.TokensPerChunk = 1, 4
	inst, client := startSim(t, cfg)
	for range 5 {
		r := send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":20,"ignore_eos":true`))
		if r.status != 200 || !r.done() || r.readErr != nil {
			t.Fatalf("status %d, done %v, err %v: want 200 ending with [DONE]", r.status, r.done(), r.readErr)
		}
		last := r.events[len(r.events)-2].data
		if !strings.HasPrefix(last, `{"error":{`) || !strings.Contains(last, `"code":500`) {
			t.Errorf("the event before [DONE] is %s, want an error object", last)
		}
		words := 0
		for _, e := range r.tokenEvents(t) {
			words += len(strings.Fields(*decodeChunk(t, e.data).Choices[0].Delta.Content))
		}
		if words == 0 || words >= 20 {
			t.Errorf("%d tokens before the error, want some and not all 20", words)
		}
		for _, e := range r.events[:len(r.events)-2] {
			if c := decodeChunk(t, e.data); len(c.Choices) > 0 && c.Choices[0].FinishReason != nil {
				t.Errorf("a failed stream sent a finish_reason: %s", e.data)
			}
		}
	}
	if st := inst.Server.Stats(); st.Errors["stream_error"] != 5 || st.Completed != 0 {
		t.Errorf("stats %+v: want 5 stream errors", st)
	}
}

// TestBufferAnswers: a buffering proxy holds the headers and every event until the
// answer is complete: the first byte comes after the whole generation, and every token
// arrives in the same instant.
func TestBufferAnswers(t *testing.T) {
	cfg := Config{Slots: 4, StepMs: 10, BufferAnswers: true}
	inst, client := startSim(t, cfg)
	r := send(context.Background(), t, client, inst, "/chat/completions",
		chatBody(`"max_tokens":20,"ignore_eos":true,"stream_options":{"include_usage":true}`))
	if r.status != 200 || !r.done() {
		t.Fatalf("status %d done %v", r.status, r.done())
	}
	toks := r.tokenEvents(t)
	if len(toks) != 20 {
		t.Fatalf("%d token events, want 20", len(toks))
	}
	first, spread := toks[0].at.Sub(r.sent), toks[len(toks)-1].at.Sub(toks[0].at)
	if first < 150*time.Millisecond || spread > 20*time.Millisecond {
		t.Errorf("first token after %v, tokens spread over %v: want the whole answer (20 steps of 10 ms) held, then at once", first, spread)
	}
	if st := inst.Server.Stats(); st.Completed != 1 || st.TokensSent != 20 {
		t.Errorf("stats %+v", st)
	}
}

// TestProxyLimit: a proxy in front lets ProxyLimit requests through at a time; the
// others wait where the server's /metrics does not see them.
func TestProxyLimit(t *testing.T) {
	cfg := Config{Slots: 8, StepMs: 5, ProxyLimit: 1}
	inst, client := startSim(t, cfg)
	var wg sync.WaitGroup
	res := make([]*result, 3)
	for k := range res {
		wg.Go(func() {
			res[k] = send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":20,"ignore_eos":true`))
		})
	}
	time.Sleep(30 * time.Millisecond)
	if st := inst.Server.Stats(); st.Active > 1 || st.Queue > 0 {
		t.Errorf("server sees %d active, %d waiting behind a proxy of 1, want at most 1 and 0", st.Active, st.Queue)
	}
	wg.Wait()
	var ttft []time.Duration
	for _, r := range res {
		if !r.done() {
			t.Fatalf("a request did not complete: %d %v", r.status, r.readErr)
		}
		ttft = append(ttft, r.tokenEvents(t)[0].at.Sub(r.sent))
	}
	late := 0
	for _, d := range ttft {
		if d > 90*time.Millisecond { // waited for at least one whole answer (20 steps of 5 ms)
			late++
		}
	}
	if late < 2 {
		t.Errorf("TTFTs %v: want two requests waiting for the proxy", ttft)
	}
}

// TestOtherUsers: another client keeps the server busy: its slots and generated
// tokens show in the stats and /metrics while no client of the simulator receives them.
func TestOtherUsers(t *testing.T) {
	cfg := Config{Slots: 8, StepMs: 2, OtherUsers: 3}
	inst, client := startSim(t, cfg)
	deadline := time.Now().Add(5 * time.Second)
	for inst.Server.Stats().Active < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	st := inst.Server.Stats()
	if st.Active != 3 || st.Requests != 0 || st.TokensSent != 0 {
		t.Errorf("stats %+v: want 3 sequences of another client, no request, no token sent", st)
	}
	if gen := inst.Server.sched.kv.generated.Load(); gen < 30 {
		t.Errorf("generated %d tokens, want the other client's", gen)
	}
	r := send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":5,"ignore_eos":true`))
	if !r.done() {
		t.Errorf("a request beside the other client: %d %v", r.status, r.readErr)
	}
}

// TestOutage: the server goes down after DownAfter (open streams cut, connections
// refused) and comes back on the same address DownFor later.
func TestOutage(t *testing.T) {
	cfg := Config{Slots: 4, StepMs: 10, DownAfter: 200 * time.Millisecond, DownFor: 300 * time.Millisecond}
	inst, client := startSim(t, cfg)
	start := time.Now()
	r := send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":100,"ignore_eos":true`))
	if r.done() || r.readErr == nil && r.status == 200 && len(r.events) > 0 && r.events[len(r.events)-1].data == "[DONE]" {
		t.Errorf("a stream open when the server went down completed")
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 400*time.Millisecond {
		t.Errorf("the stream ended after %v, want it cut at about 200 ms", d)
	}
	client.CloseIdleConnections()
	r = send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":3`))
	if !errors.Is(r.readErr, syscall.ECONNREFUSED) {
		t.Errorf("while down: status %d err %v, want connection refused", r.status, r.readErr)
	}
	time.Sleep(time.Until(start.Add(600 * time.Millisecond)))
	r = send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":3`))
	if !r.done() {
		t.Errorf("after the outage: status %d err %v, want the server back", r.status, r.readErr)
	}
}
