package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPrefixCacheBlocks(t *testing.T) {
	c := newPrefixCache(10000)
	shared := strings.Repeat("p", 10*prefixBlockBytes) // 10 blocks, 160 tokens
	a := []byte(shared + strings.Repeat("a", 3*prefixBlockBytes))
	b := []byte(shared + strings.Repeat("b", 3*prefixBlockBytes))
	if n := c.cached(a, 208); n != 0 {
		t.Fatalf("first prompt: %d tokens cached, want 0", n)
	}
	if n := c.cached(b, 208); n != 160 {
		t.Errorf("second prompt with the same 10-block prefix: %d tokens cached, want 160", n)
	}
	if n := c.cached(a, 208); n != 207 {
		t.Errorf("the same prompt again: %d cached, want 207 (the last token is always computed)", n)
	}
	other := []byte("x" + shared) // differs from its first byte on: shares no block
	if n := c.cached(other, 160); n != 0 {
		t.Errorf("a prompt differing at its first byte: %d cached, want 0", n)
	}
	if hits, looked := c.hits.Load(), c.looked.Load(); hits != 367 || looked != 784 {
		t.Errorf("counted %d of %d tokens cached, want 367 of 784", hits, looked)
	}
	var off *prefixCache
	if newPrefixCache(0) != nil || off.cached(a, 208) != 0 {
		t.Errorf("a cache of 0 tokens caches")
	}
}

func TestPrefixCacheEvicts(t *testing.T) {
	c := newPrefixCache(4 * prefixBlockTokens) // 2 blocks per generation
	p := func(i int) []byte { return []byte(strings.Repeat(fmt.Sprint(i%10), prefixBlockBytes)) }
	c.cached(p(1), 16)
	for i := 2; i < 8; i++ { // six other one-block prompts push block 1 out
		c.cached(p(i), 16)
	}
	if n := c.cached(p(1), 17); n != 0 {
		t.Errorf("an evicted block is still cached (%d tokens)", n)
	}
	c.cached(p(8), 16)
	if n := c.cached(p(8), 17); n != 16 {
		t.Errorf("a block just cached was lost: %d tokens", n)
	}
}

// TestPrefixCacheSkipsPrefill: with 2 ms of prefill per prompt token, a 400-token prompt
// costs 800 ms before its first token; a second prompt sharing all but its last block
// costs about 32 ms of prefill, and without the cache it pays the whole prefill again.
func TestPrefixCacheSkipsPrefill(t *testing.T) {
	prefix := strings.Repeat("lorem ipsum dolor sit amet ", 57) // 1539 bytes: 24 blocks
	body := func(tail string) string {
		return `{"model":"m","stream":true,"max_tokens":2,"ignore_eos":true,"stream_options":{"include_usage":true},` +
			`"messages":[{"role":"user","content":"` + prefix + tail + `"}]}`
	}
	ttft := func(cacheTokens int) (first, second time.Duration, prompt int) {
		inst, client := startSim(t, Config{Slots: 4, StepMs: 1, PrefillMsPerToken: 2, PrefixCacheTokens: cacheTokens})
		for i, tail := range []string{"first request's own tail", "second request, another tail"} {
			r := send(context.Background(), t, client, inst, "/chat/completions", body(tail))
			tok := r.tokenEvents(t)
			if r.status != 200 || len(tok) == 0 {
				t.Fatalf("request %d: status %d, %d token events", i, r.status, len(tok))
			}
			if u := decodeChunk(t, r.events[len(r.events)-2].data).Usage; u != nil {
				prompt = u.PromptTokens
			}
			if i == 0 {
				first = tok[0].at.Sub(r.sent)
			} else {
				second = tok[0].at.Sub(r.sent)
			}
		}
		return first, second, prompt
	}
	first, second, prompt := ttft(100000)
	if first < 700*time.Millisecond {
		t.Errorf("first request's TTFT %v, want its whole prefill (~800 ms)", first)
	}
	if second > 300*time.Millisecond {
		t.Errorf("second request's TTFT %v with its prefix cached, want well under the 800 ms prefill", second)
	}
	if prompt < 390 {
		t.Errorf("usage reports %d prompt tokens: cached tokens are still prompt tokens", prompt)
	}
	_, uncached, _ := ttft(0)
	if uncached < 700*time.Millisecond {
		t.Errorf("without the cache the second request's TTFT is %v, want the whole prefill", uncached)
	}
}

// TestPerRequestLengths: each request gets the answer length it asks for and is
// charged the prompt length it sends.
func TestPerRequestLengths(t *testing.T) {
	inst, client := startSim(t, Config{Slots: 8, StepMs: 0.2})
	prev := 0
	for _, tc := range []struct{ words, maxTokens int }{{5, 3}, {50, 17}, {400, 64}} {
		content := strings.TrimSpace(strings.Repeat("word ", tc.words))
		r := send(context.Background(), t, client, inst, "/chat/completions",
			fmt.Sprintf(`{"model":"m","stream":true,"max_tokens":%d,"ignore_eos":true,"stream_options":{"include_usage":true},`+
				`"messages":[{"role":"user","content":%q}]}`, tc.maxTokens, content))
		if n := len(r.tokenEvents(t)); n != tc.maxTokens {
			t.Errorf("max_tokens %d: %d token events", tc.maxTokens, n)
		}
		u := decodeChunk(t, r.events[len(r.events)-2].data).Usage
		if u == nil || u.CompletionTokens != tc.maxTokens || u.PromptTokens <= prev {
			t.Errorf("%d words, max_tokens %d: usage %+v (previous prompt %d tokens)", tc.words, tc.maxTokens, u, prev)
			continue
		}
		prev = u.PromptTokens
	}
}
