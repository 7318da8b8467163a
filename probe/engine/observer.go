package engine

import (
	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
)

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

// NoticeObserver is an Observer that also hears what the engine announces: the
// Notices Step and HandleServer return (a level marked short, a ramp's end and why, the
// server's metrics found or lost...), as they return them. The time series records
// them, so that replay says what the live screen said.
type NoticeObserver interface {
	Observer
	ObserveNotice(e *Engine, n Notice)
}

// announce hands ns to the observers that hear notices, and returns ns.
func (e *Engine) announce(ns ...Notice) []Notice {
	for _, o := range e.cfg.Observers {
		if no, ok := o.(NoticeObserver); ok {
			for _, n := range ns {
				no.ObserveNotice(e, n)
			}
		}
	}
	return ns
}

// Say hands what the live screen's status line says of its own (a key's effect, the
// ramp's start, an endpoint stopped for refused answers) to the observers that hear
// notices, as a notice of the whole run: the time series records it, so that replay
// says it again. The screen shows it itself. shorter are its shorter forms, longest first,
// for a narrow status line.
func (e *Engine) Say(text string, warning bool, shorter ...string) {
	e.announce(Notice{Kind: ScreenSaid, Endpoint: -1, Text: text, Warning: warning, Shorter: shorter})
}

// Shown reports whether the live screen's status line says n: a level's start shows in
// the header and the level table instead, a diagnosis on the diagnosis line, but for an
// outage's start and end (which the status line's counts would otherwise leave to be
// guessed).
func (n Notice) Shown() bool {
	switch n.Kind {
	case LevelStarted:
		return false
	case Diagnosed:
		return n.Rule == model.DiagDown || n.Rule == model.DiagBack
	}
	return true
}
