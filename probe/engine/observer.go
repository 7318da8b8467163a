package engine

import "github.com/tpsmon/tpsmon/probe"

// Observer sees what the engine records: Handle calls Observe for every pool event
// (a finished request's Sample, a live Tick, a Segment update) once the endpoint's book
// and ramp have taken it, so reads of e (Book, Control, Status, Info) include it.
// Observe runs on the engine's goroutine (bench's loop, or the screen's Update): it must
// be cheap and must not block; it must not keep ev or what it points to.
type Observer interface {
	Observe(e *Engine, ev *probe.Event)
}

// ObserverFunc is a function as an Observer.
type ObserverFunc func(e *Engine, ev *probe.Event)

// Observe calls f(e, ev).
func (f ObserverFunc) Observe(e *Engine, ev *probe.Event) { f(e, ev) }
