package output

import (
	"errors"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// Output is one output of a run.
type Output interface {
	// Observe sees every event the engine records, as the run goes (engine.Observer).
	engine.Observer
	// End is the run's last word, called once: a file output writes itself from rep; a
	// live one stops (a file closes, a server stops). rep is nil when the run made no
	// report (the live screen, which writes its own). wrote says what was written, for
	// the user ("results.json", "run.jsonl (312 lines)"), "" when nothing was.
	End(rep *model.Report) (wrote string, err error)
}

// Named is an output with the name the user asked for it by (a flag and its file:
// "--out results.json"), for the messages about it.
type Named struct {
	Name string
	Output
}

// Set is a run's outputs, ended in the order they were added.
type Set []Named

// Observers are the outputs as the engine's observers (engine.Config.Observers).
func (s Set) Observers() []engine.Observer {
	out := make([]engine.Observer, len(s))
	for i := range s {
		out[i] = s[i].Output
	}
	return out
}

// Observe hands ev to every output.
func (s Set) Observe(e *engine.Engine, ev *probe.Event) {
	for i := range s {
		s[i].Observe(e, ev)
	}
}

// End ends every output, each even when an earlier one failed: say gets what each
// wrote, and the error joins the failures, each named ("--out results.json: cannot
// write the results: ..."). Ending a Set twice ends nothing the second time.
func (s *Set) End(rep *model.Report, say func(wrote string)) error {
	var errs []error
	for _, o := range *s {
		wrote, err := o.End(rep)
		switch {
		case err != nil:
			errs = append(errs, &Error{Name: o.Name, Err: err})
		case wrote != "":
			say(wrote)
		}
	}
	*s = nil
	return errors.Join(errs...)
}

// Error is an output's failure, named.
type Error struct {
	Name string
	Err  error
}

func (e *Error) Error() string { return e.Name + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }
