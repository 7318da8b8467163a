package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// fast is a quick configuration for format tests.
var fast = Config{Slots: 64, StepMs: 1}

func TestChatStreamFormat(t *testing.T) {
	inst, client := startSim(t, fast)
	r := send(context.Background(), t, client, inst, "/chat/completions",
		chatBody(`"max_tokens":5,"ignore_eos":true,"stream_options":{"include_usage":true}`))
	if r.status != 200 || r.readErr != nil {
		t.Fatalf("status %d, err %v", r.status, r.readErr)
	}
	// role, 5 tokens, usage, [DONE]
	if len(r.events) != 8 {
		t.Fatalf("%d events, want 8: %v", len(r.events), r.events)
	}
	role := decodeChunk(t, r.events[0].data)
	if d := role.Choices[0].Delta; d.Role == nil || *d.Role != "assistant" || d.Content == nil || *d.Content != "" {
		t.Errorf("first event is not role-only: %s", r.events[0].data)
	}
	for i, e := range r.events[:7] {
		c := decodeChunk(t, e.data)
		if c.ID != role.ID || !strings.HasPrefix(c.ID, "chatcmpl-") || c.Object != "chat.completion.chunk" ||
			c.Model != "m" || c.Created == 0 {
			t.Errorf("event %d: id/object/model/created = %q %q %q %d", i, c.ID, c.Object, c.Model, c.Created)
		}
		if i == 0 || i == 6 {
			continue
		}
		ch := c.Choices[0]
		if ch.Delta.Content == nil || *ch.Delta.Content == "" || ch.Delta.Role != nil {
			t.Errorf("event %d carries no content: %s", i, e.data)
		}
		if last := i == 5; (ch.FinishReason != nil) != last || (last && *ch.FinishReason != "length") {
			t.Errorf("event %d: finish_reason %v, want it (\"length\") only on the last token", i, ch.FinishReason)
		}
	}
	u := decodeChunk(t, r.events[6].data)
	if u.Choices == nil || len(u.Choices) != 0 || u.Usage == nil {
		t.Fatalf("usage event must have \"choices\":[] and usage: %s", r.events[6].data)
	}
	if u.Usage.CompletionTokens != 5 || u.Usage.PromptTokens < 1 || u.Usage.TotalTokens != u.Usage.PromptTokens+5 {
		t.Errorf("usage = %+v, want 5 completion tokens", *u.Usage)
	}
	if !r.done() {
		t.Errorf("no [DONE] at the end")
	}
}

func TestTokensPerChunk(t *testing.T) {
	for _, tc := range []struct{ k, n int }{{4, 1}, {4, 4}, {4, 10}, {3, 9}, {1, 7}} {
		t.Run(fmt.Sprintf("k=%d/n=%d", tc.k, tc.n), func(t *testing.T) {
			cfg := fast
			cfg.TokensPerChunk = tc.k
			inst, client := startSim(t, cfg)
			r := send(context.Background(), t, client, inst, "/chat/completions",
				chatBody(fmt.Sprintf(`"max_tokens":%d,"ignore_eos":true,"stream_options":{"include_usage":true}`, tc.n)))
			toks := r.tokenEvents(t)
			if want := (tc.n + tc.k - 1) / tc.k; len(toks) != want {
				t.Errorf("%d token events, want ceil(%d/%d) = %d", len(toks), tc.n, tc.k, want)
			}
			words := 0
			for i, e := range toks {
				w := len(strings.Fields(*decodeChunk(t, e.data).Choices[0].Delta.Content))
				if i < len(toks)-1 && w != tc.k {
					t.Errorf("event %d has %d tokens, want %d", i, w, tc.k)
				}
				words += w
			}
			u := decodeChunk(t, r.events[len(r.events)-2].data).Usage
			if u == nil || u.CompletionTokens != tc.n || words != tc.n {
				t.Errorf("tokens in events = %d, usage = %+v, want %d", words, u, tc.n)
			}
		})
	}
}

func TestCompletionsStream(t *testing.T) {
	inst, client := startSim(t, fast)
	r := send(context.Background(), t, client, inst, "/completions",
		`{"model":"m","stream":true,"prompt":"Once upon a time","max_tokens":4,"ignore_eos":true,"stream_options":{"include_usage":true}}`)
	if r.status != 200 || !r.done() {
		t.Fatalf("status %d, done %v", r.status, r.done())
	}
	if len(r.events) != 6 { // 4 tokens, usage, [DONE]: no role event
		t.Fatalf("%d events, want 6", len(r.events))
	}
	for i, e := range r.events[:4] {
		c := decodeChunk(t, e.data)
		if c.Object != "text_completion" || !strings.HasPrefix(c.ID, "cmpl-") || c.Choices[0].Text == nil || *c.Choices[0].Text == "" {
			t.Errorf("event %d is not a text_completion token: %s", i, e.data)
		}
	}
	if u := decodeChunk(t, r.events[4].data).Usage; u == nil || u.CompletionTokens != 4 || u.PromptTokens != 4 {
		t.Errorf("usage = %+v, want 4 completion tokens and 4 prompt tokens (16 characters)", u)
	}
}

func TestReasoning(t *testing.T) {
	cfg := fast
	cfg.ReasoningTokens = 3
	inst, client := startSim(t, cfg)
	r := send(context.Background(), t, client, inst, "/chat/completions",
		chatBody(`"max_tokens":6,"ignore_eos":true,"stream_options":{"include_usage":true}`))
	toks := r.tokenEvents(t)
	if len(toks) != 6 {
		t.Fatalf("%d token events, want 6", len(toks))
	}
	for i, e := range toks {
		d := decodeChunk(t, e.data).Choices[0].Delta
		if think := i < 3; think != (d.Reasoning != nil) || think == (d.Content != nil) {
			t.Errorf("event %d: reasoning %v, content %v; want the first 3 as reasoning only", i, d.Reasoning, d.Content)
		}
	}
	if u := decodeChunk(t, r.events[len(r.events)-2].data).Usage; u == nil || u.CompletionTokens != 6 {
		t.Errorf("usage = %+v, want completion_tokens 6 (reasoning included)", u)
	}
}

// TestReasoningLeavesAnAnswer: when max_tokens is not well above ReasoningTokens, at
// most half of the answer is reasoning, so an answer (and a time to first answer
// token) still comes. Odd lengths give the answer the extra token.
func TestReasoningLeavesAnAnswer(t *testing.T) {
	cfg := fast
	cfg.ReasoningTokens = 128
	inst, client := startSim(t, cfg)
	for _, n := range []int{1, 2, 7, 128} {
		r := send(context.Background(), t, client, inst, "/chat/completions",
			chatBody(fmt.Sprintf(`"max_tokens":%d,"ignore_eos":true`, n)))
		toks := r.tokenEvents(t)
		if len(toks) != n {
			t.Fatalf("max_tokens %d: %d token events, want %d", n, len(toks), n)
		}
		thinking := 0
		for i, e := range toks {
			d := decodeChunk(t, e.data).Choices[0].Delta
			if d.Reasoning != nil && i != thinking {
				t.Errorf("max_tokens %d: event %d is reasoning after the answer began", n, i)
			}
			if d.Reasoning != nil {
				thinking++
			}
		}
		if want := n / 2; thinking != want {
			t.Errorf("max_tokens %d: %d reasoning events, want %d (half the answer, rounded down)", n, thinking, want)
		}
	}
}

func TestAnswerLength(t *testing.T) {
	inst, client := startSim(t, fast)
	run := func(extra string, n int) (finish map[string]int, lengths map[int]int) {
		finish, lengths = map[string]int{}, map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				r := send(context.Background(), t, client, inst, "/chat/completions", chatBody(extra))
				toks := r.tokenEvents(t)
				if len(toks) == 0 || !r.done() {
					t.Errorf("no tokens or no [DONE] (status %d)", r.status)
					return
				}
				f := decodeChunk(t, toks[len(toks)-1].data).Choices[0].FinishReason
				mu.Lock()
				defer mu.Unlock()
				if f != nil {
					finish[*f]++
				}
				lengths[len(toks)]++
			})
		}
		wg.Wait()
		return finish, lengths
	}
	// Without ignore_eos about a quarter stop early: none stopping in 40 has p = 1e-5.
	finish, lengths := run(`"max_tokens":8`, 40)
	if finish["stop"] == 0 || finish["length"] == 0 || finish["stop"]+finish["length"] != 40 {
		t.Errorf("finish reasons %v: want some stop and some length", finish)
	}
	if lengths[8] != finish["length"] {
		t.Errorf("lengths %v: every \"length\" answer must have max_tokens tokens (%v)", lengths, finish)
	}
	for _, extra := range []string{`"max_tokens":8,"ignore_eos":true`, `"max_tokens":8,"min_tokens":8`, `"max_completion_tokens":8,"max_tokens":2,"min_tokens":9`} {
		finish, lengths := run(extra, 12)
		if finish["length"] != 12 || lengths[8] != 12 {
			t.Errorf("%s: finish %v, lengths %v; want 12 answers of exactly 8 tokens, \"length\"", extra, finish, lengths)
		}
	}
	finish, lengths = run(`"max_tokens":8,"min_tokens":6`, 40)
	for n := range lengths {
		if n < 6 || n > 8 {
			t.Errorf("min_tokens 6: an answer has %d tokens", n)
		}
	}
	_ = finish
}

func TestRequestErrors(t *testing.T) {
	cases := []struct {
		name, path, body string
		status           int
		msg, typ         string
	}{
		{"unknown model", "/chat/completions", `{"model":"x","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			404, "The model `x` does not exist.", "NotFoundError"},
		{"malformed JSON", "/chat/completions", `{"model":"m",`, 400, "not valid JSON", "BadRequestError"},
		{"not streaming", "/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			400, `only simulates streaming`, "BadRequestError"},
		{"no messages", "/chat/completions", `{"model":"m","stream":true}`, 400, "messages", "BadRequestError"},
		{"no prompt", "/completions", `{"model":"m","stream":true}`, 400, "prompt", "BadRequestError"},
		{"zero max_tokens", "/completions", `{"model":"m","stream":true,"prompt":"a","max_tokens":0}`, 400, "max_tokens", "BadRequestError"},
	}
	inst, client := startSim(t, fast)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := send(context.Background(), t, client, inst, tc.path, tc.body)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d (%s)", r.status, tc.status, r.body)
			}
			e := decodeError(t, r)
			if !strings.Contains(e.Error.Message, tc.msg) || e.Error.Type != tc.typ {
				t.Errorf("error %+v, want a %s containing %q", e.Error, tc.typ, tc.msg)
			}
		})
	}
	var st Stats
	getJSON(t, client, inst, http.MethodGet, "/sim/stats", &st)
	if st.Errors["http_404"] != 1 || st.Errors["http_400"] != 5 || st.Requests != 6 {
		t.Errorf("stats %+v: want 6 requests, 1 http_404, 5 http_400", st)
	}
}

func TestErrorRate(t *testing.T) {
	cfg := fast
	cfg.ErrorRate = 1
	inst, client := startSim(t, cfg)
	r := send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":3`))
	if r.status != 500 {
		t.Fatalf("status %d, want 500", r.status)
	}
	if e := decodeError(t, r); e.Error.Type != "InternalServerError" {
		t.Errorf("error %+v", e.Error)
	}
}

func TestQueueLimit429(t *testing.T) {
	cfg := Config{Slots: 1, MaxQueue: 1, StepMs: 1}
	inst, client := startSim(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	long := chatBody(`"max_tokens":100000,"ignore_eos":true`)

	// A holds the slot; B waits in the queue. Both are accepted once their headers arrive.
	open := func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, inst.URL+"/chat/completions", strings.NewReader(long))
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("accepted request: %v %v", resp, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
	}
	open()
	open()
	r := send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":3`))
	if r.status != 429 {
		t.Fatalf("status %d with a full queue, want 429", r.status)
	}
	if e := decodeError(t, r); e.Error.Type != "RateLimitError" {
		t.Errorf("error %+v", e.Error)
	}
	if st := inst.Server.Stats(); st.Queue != 1 || st.Active != 1 || st.Errors["http_429"] != 1 {
		t.Errorf("stats: queue %d active %d 429s %d, want 1 1 1", st.Queue, st.Active, st.Errors["http_429"])
	}
}

func TestDrop(t *testing.T) {
	cfg := fast
	cfg.DropRate = 1
	cfg.TokensPerChunk = 2
	inst, client := startSim(t, cfg)
	for range 5 {
		r := send(context.Background(), t, client, inst, "/chat/completions",
			chatBody(`"max_tokens":20,"ignore_eos":true,"stream_options":{"include_usage":true}`))
		if r.status != 200 {
			t.Fatalf("status %d", r.status)
		}
		if r.done() || r.readErr == nil {
			t.Errorf("a dropped stream must end in a cut (read error), not [DONE]: err %v", r.readErr)
		}
		for _, e := range r.events {
			if c := decodeChunk(t, e.data); len(c.Choices) == 0 || c.Choices[0].FinishReason != nil {
				t.Errorf("a dropped stream sent a finish_reason or usage: %s", e.data)
			}
		}
	}
	if st := inst.Server.Stats(); st.Errors["dropped"] != 5 || st.Completed != 0 {
		t.Errorf("stats %+v: want 5 dropped", st)
	}
}

func TestStall(t *testing.T) {
	cfg := Config{Slots: 4, StepMs: 2, StallRate: 1, StallMs: 150}
	inst, client := startSim(t, cfg)
	r := send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":10,"ignore_eos":true`))
	toks := r.tokenEvents(t)
	if len(toks) != 10 || !r.done() {
		t.Fatalf("%d tokens, done %v: a stalled stream must still finish", len(toks), r.done())
	}
	var gap time.Duration
	for i := 1; i < len(toks); i++ {
		gap = max(gap, toks[i].at.Sub(toks[i-1].at))
	}
	if gap < 100*time.Millisecond {
		t.Errorf("largest gap %v, want a stall of about 150 ms", gap)
	}
}

// TestDisconnectFreesSlot: a client that goes away mid-stream gives its only slot to the
// next request. Without that, the next request would wait for 100,000 tokens.
func TestDisconnectFreesSlot(t *testing.T) {
	inst, client := startSim(t, Config{Slots: 1, StepMs: 1})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, inst.URL+"/chat/completions",
		strings.NewReader(chatBody(`"max_tokens":100000,"ignore_eos":true`)))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	if _, err := resp.Body.Read(buf); err != nil { // the stream has started
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()

	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	r := send(ctx2, t, client, inst, "/chat/completions", chatBody(`"max_tokens":5,"ignore_eos":true`))
	if !r.done() {
		t.Fatalf("the next request did not finish (err %v): the slot was not freed", r.readErr)
	}
	inst.Close() // the handlers have returned: their counts are final
	st := inst.Server.Stats()
	if st.Errors["canceled"] != 1 || st.Completed != 1 {
		t.Errorf("stats %+v: want 1 canceled and 1 completed", st)
	}
}

func TestModels(t *testing.T) {
	inst, client := startSim(t, fast)
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		} `json:"data"`
	}
	if code := getJSON(t, client, inst, http.MethodGet, "/v1/models", &list); code != 200 {
		t.Fatalf("status %d", code)
	}
	if list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != "m" || list.Data[0].Object != "model" {
		t.Errorf("models = %+v", list)
	}
	var e apiError
	if code := getJSON(t, client, inst, http.MethodGet, "/v1/chat/completions", &e); code != 405 || e.Error.Message == "" {
		t.Errorf("GET on a POST route: %d %+v", code, e)
	}
	if code := getJSON(t, client, inst, http.MethodGet, "/nope", &e); code != 404 || !strings.Contains(e.Error.Message, "/nope") {
		t.Errorf("unknown route: %d %+v", code, e)
	}
}

func TestSimStats(t *testing.T) {
	inst, client := startSim(t, Config{Slots: 8, StepMs: 2})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":10,"ignore_eos":true`))
		})
	}
	wg.Wait()
	// Over HTTP: the counts a client cannot race (a handler may still be finishing its
	// bookkeeping after the client read [DONE]).
	var st Stats
	if code := getJSON(t, client, inst, http.MethodGet, "/sim/stats", &st); code != 200 {
		t.Fatalf("status %d", code)
	}
	if st.Requests != 3 || st.Model != "m" || st.TokensSent < 27 || len(st.Errors) != int(numErrKinds) {
		t.Errorf("GET /sim/stats = %+v, want 3 requests and the error kinds", st)
	}
	if code := getJSON(t, client, inst, http.MethodPost, "/sim/reset", &st); code != 200 || st.Requests != 0 || st.TTFT.Count != 0 {
		t.Errorf("after reset: %d %+v", code, st)
	}
	wg.Go(func() {
		send(context.Background(), t, client, inst, "/chat/completions", chatBody(`"max_tokens":10,"ignore_eos":true`))
	})
	wg.Wait()

	inst.Close() // every handler has returned: the counts are final
	st = inst.Server.Stats()
	if st.Requests != 1 || st.Completed != 1 || st.TokensSent != 10 || st.Active != 0 || st.Queue != 0 {
		t.Errorf("stats = %+v, want 1 request, 1 completed, 10 tokens, nothing active", st)
	}
	// A first token needs at least one 2 ms step; seconds would be absurd.
	if tt := st.TTFT; tt.Count != 1 || tt.P50 < 1.5 || tt.P99 > 5000 || tt.P50 > tt.P95 || tt.P95 > tt.P99 || tt.Mean <= 0 {
		t.Errorf("ttft = %+v", tt)
	}
}

func TestCloseEndsStreams(t *testing.T) {
	inst, err := Start(context.Background(), "", Config{Model: "m", Slots: 2, StepMs: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, inst.URL+"/chat/completions",
		strings.NewReader(chatBody(`"max_tokens":100000,"ignore_eos":true`)))
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for range 3 { // role event, blank line, first token: the stream is decoding
		if _, err := br.ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
	}
	if err := inst.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	rest, _ := io.ReadAll(br)
	if bytes.Contains(rest, []byte("[DONE]")) {
		t.Errorf("a stream open at Close ended with [DONE]")
	}
	if err := inst.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestStartStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	inst, err := Start(ctx, "", Config{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(inst.URL, "http://127.0.0.1:") || !strings.HasSuffix(inst.URL, "/v1") {
		t.Errorf("URL %q: want http://127.0.0.1:<port>/v1", inst.URL)
	}
	cancel()
	if err := inst.Close(); err != nil { // waits for the server to stop
		t.Errorf("Close: %v", err)
	}
	if _, err := http.Get(inst.URL + "/models"); err == nil {
		t.Errorf("the simulator still answers after its context ended")
	}
}

// TestBaseURL: an unspecified listen address (tpsmon sim --addr :8000) is reached through
// 127.0.0.1. The test builds addresses; it never listens beyond loopback.
func TestBaseURL(t *testing.T) {
	for _, tc := range []struct {
		addr *net.TCPAddr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8000}, "http://127.0.0.1:8000/v1"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8000}, "http://127.0.0.1:8000/v1"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 9}, "http://127.0.0.1:9/v1"},
		{&net.TCPAddr{Port: 9}, "http://127.0.0.1:9/v1"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 9}, "http://[::1]:9/v1"},
	} {
		if got := baseURL(tc.addr); got != tc.want {
			t.Errorf("baseURL(%v) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

func TestStartRejectsBadConfig(t *testing.T) {
	if _, err := Start(context.Background(), "", Config{ErrorRate: 2}); err == nil || !strings.Contains(err.Error(), "error_rate") {
		t.Errorf("Start with error_rate 2: %v", err)
	}
	if _, err := Start(context.Background(), "256.0.0.1:1", Config{}); err == nil || !strings.Contains(err.Error(), "256.0.0.1:1") {
		t.Errorf("Start on a bad address: %v", err)
	}
}
