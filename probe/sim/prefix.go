package sim

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// The prefix cache imitates vLLM's automatic prefix caching: a prompt is cut into
// blocks of prefixBlockTokens tokens (about 4 characters a token, as the prompt
// estimate), each block keyed by a hash of itself and every block before it. A new
// request's leading blocks found in the cache skip prefill; its full blocks are cached.
// At least the prompt's last token is always computed, as in vLLM. The cache holds
// Config.PrefixCacheTokens tokens in two generations (a cheap least-recently-used
// approximation): a hit moves a block to the current generation, and when the current
// one is full the older one is dropped. Prompts that differ from their first block on
// share nothing, so tpsmon's default prompts (each different from its first word) never
// hit; a shared prefix (tpsmon --prefix-tokens) does.
//
// A sequence's cached tokens are left out of its prompt in the scheduler: they cost no
// prefill (nor again after a preemption) and do not count in the KV cache it holds
// (Config.KVTokens): vLLM shares cached blocks between sequences, so a shared prefix is
// held once, not once per sequence. Usage still reports the whole prompt.

// prefixBlockTokens is the block size in tokens (vLLM's default block size).
const prefixBlockTokens = 16

// prefixBlockBytes is a block's size in prompt bytes (about 4 bytes a token).
const prefixBlockBytes = 4 * prefixBlockTokens

// prefixCache is safe for concurrent use; a nil *prefixCache caches nothing.
type prefixCache struct {
	seed     maphash.Seed
	capBlock int // blocks per generation

	mu        sync.Mutex
	cur, prev map[uint64]struct{}

	hits, looked atomic.Int64 // prompt tokens found cached, prompt tokens looked up
}

// newPrefixCache returns a cache of about tokens prompt tokens, nil when tokens <= 0.
func newPrefixCache(tokens int) *prefixCache {
	if tokens <= 0 {
		return nil
	}
	return &prefixCache{
		seed:     maphash.MakeSeed(),
		capBlock: max(tokens/prefixBlockTokens/2, 1),
		cur:      map[uint64]struct{}{},
		prev:     map[uint64]struct{}{},
	}
}

// cached returns how many of a prompt's promptTokens are cached (their prefill is
// skipped), given the prompt's text key, and caches the prompt's full blocks.
func (c *prefixCache) cached(key []byte, promptTokens int) int {
	if c == nil || promptTokens <= 1 {
		return 0
	}
	blocks := len(key) / prefixBlockBytes
	hashes := make([]uint64, blocks)
	var h maphash.Hash
	h.SetSeed(c.seed)
	for i := range hashes {
		_, _ = h.Write(key[i*prefixBlockBytes : (i+1)*prefixBlockBytes])
		hashes[i] = h.Sum64() // a hash of this block and every block before it
	}
	c.mu.Lock()
	hit := 0
	for hit < blocks && c.has(hashes[hit]) {
		hit++
	}
	for _, k := range hashes {
		c.put(k)
	}
	c.mu.Unlock()
	n := min(hit*prefixBlockTokens, promptTokens-1)
	c.hits.Add(int64(n))
	c.looked.Add(int64(promptTokens))
	return n
}

// has reports whether block k is cached, moving it to the current generation.
func (c *prefixCache) has(k uint64) bool {
	if _, ok := c.cur[k]; ok {
		return true
	}
	if _, ok := c.prev[k]; ok {
		c.put(k)
		return true
	}
	return false
}

// put caches block k in the current generation, dropping the older one when full.
func (c *prefixCache) put(k uint64) {
	if len(c.cur) >= c.capBlock {
		c.prev, c.cur = c.cur, make(map[uint64]struct{}, c.capBlock)
	}
	c.cur[k] = struct{}{}
}

// PrefixCache reports the prompt tokens found in the prefix cache (whose prefill was
// skipped) and the prompt tokens looked up, since start; both 0 when the cache is off.
func (s *Server) PrefixCache() (cached, prompt int64) {
	if s.cache == nil {
		return 0, 0
	}
	return s.cache.hits.Load(), s.cache.looked.Load()
}

// cachedPrompt is how many of a request's prompt tokens the prefix cache holds (0 when
// the cache is off), caching its blocks.
func (s *Server) cachedPrompt(req *request, a api, promptTokens int) int {
	if s.cache == nil {
		return 0
	}
	return s.cache.cached(promptKey(req, a), promptTokens)
}
