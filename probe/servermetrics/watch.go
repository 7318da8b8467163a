package servermetrics

import (
	"context"
	"errors"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// DefaultEvery is how often Watch scrapes.
const DefaultEvery = time.Second

// Update is one report of Watch.
type Update struct {
	Sample model.ServerSample // the scrape, when Err is nil
	Err    error              // the failure (an *Error); sent only when the failure is new
	// Notice is set when the state changed, to be said once: the first good scrape
	// ("server metrics: vLLM at URL"), the first failure or a different one
	// ("server metrics: not available at URL: 404"), and the first good scrape after a
	// failure ("server metrics: back at URL"). Empty otherwise.
	Notice string
}

// Watch scrapes now and then every interval (0: DefaultEvery) until ctx ends. It sends
// every good scrape, and a failure only when it differs from the previous scrape's
// outcome, so that a server without metrics is said once, not once a second. The
// channel is closed when ctx ends. The scraper is Watch's until then.
func (s *Scraper) Watch(ctx context.Context, every time.Duration) <-chan Update {
	if every <= 0 {
		every = DefaultEvery
	}
	out := make(chan Update, 1)
	go func() {
		defer close(out)
		defer s.Close()
		t := time.NewTicker(every)
		defer t.Stop()
		st := watchState{url: s.url}
		for {
			smp, err := s.Scrape(ctx)
			if ctx.Err() != nil {
				return
			}
			if u, send := st.next(smp, err); send {
				select {
				case out <- u:
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// watchState remembers the last outcome so that each change is said once.
type watchState struct {
	url    string // display form
	last   *Error // the current failure, nil while scrapes succeed
	seenOK bool
}

// next turns one scrape's outcome into an update; send is false for a failure that
// repeats the previous one.
func (w *watchState) next(smp model.ServerSample, err error) (u Update, send bool) {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{URL: w.url, Kind: ErrUnreachable, Reason: oneLine(err.Error())}
		}
		if e.same(w.last) {
			return Update{}, false
		}
		w.last = e
		return Update{Err: e, Notice: e.Error()}, true
	}
	u = Update{Sample: smp}
	switch {
	case w.last != nil:
		u.Notice = "server metrics: back at " + w.url
	case !w.seenOK:
		u.Notice = "server metrics: " + smp.Kind + " at " + w.url
	}
	w.last, w.seenOK = nil, true
	return u, true
}
