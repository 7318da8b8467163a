// Package probe generates load against OpenAI-compatible streaming endpoints: a worker
// pool per endpoint whose concurrency changes live (closed loop: users; rate mode: an
// open loop of arrivals, see probe/arrival), and the collector that turns the streams in
// flight into per-second ticks and level segments. The pool sends its requests through
// a Streamer (probe/client's Client, or a fake in tests) and knows nothing of HTTP.
// Everything it measures leaves as model values on one channel (Event).
package probe
