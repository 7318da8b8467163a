package probe

// SetConcurrency sets the target number of concurrent streams. Growing starts workers at
// once; shrinking lets surplus workers finish their current request (never cancels it).
// A change opens a new segment (level); 0 closes the segment and opens none. While
// paused it only sets the target that Resume will use. Negative n means 0.
func (p *Pool) SetConcurrency(n int) { p.SetLevel(n, n) }

// SetLevel is SetConcurrency(n) with the segments it opens recorded under label users
// instead of n (label < 1 means n): a shard of a run holds its share n of a level and
// records it under the whole level's users, so that the shards' results line up. A
// change of n or of the label opens a new segment, also when n stays the same (two
// levels whose shares are equal are still two levels).
func (p *Pool) SetLevel(n, label int) {
	n = max(n, 0)
	if label < 1 {
		label = n
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n == p.target && label == p.label {
		return
	}
	p.target, p.label = n, label
	if p.running && !p.stopped && !p.paused {
		p.beginLocked(n > 0, Mono())
		p.spawnLocked()
	}
}

// Concurrency is the target concurrency.
func (p *Pool) Concurrency() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.target
}

// Active is the number of requests in flight.
func (p *Pool) Active() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.active)
}

// Pause stops sending new requests (in-flight ones finish) and closes the segment.
func (p *Pool) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused {
		return
	}
	p.paused = true
	if p.running && !p.stopped {
		p.beginLocked(false, Mono())
	}
}

// Resume sends again at the target concurrency, in a new segment.
func (p *Pool) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused {
		return
	}
	p.paused = false
	if p.running && !p.stopped && p.target > 0 {
		p.beginLocked(true, Mono())
		p.spawnLocked()
	}
}

// Paused reports whether the pool is paused.
func (p *Pool) Paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paused
}
