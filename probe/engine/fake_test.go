package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tpsmon/tpsmon/model"
	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
)

// fakeStreamer streams tokens events gap apart, then ends with err (none: success).
// When failFrom > 0, requests sent while failFrom or more are in flight fail with
// http_500 after their tokens (an endpoint that breaks under load).
type fakeStreamer struct {
	tokens   int
	gap      time.Duration
	err      model.ErrorKind
	failFrom int32
	inflight atomic.Int32
}

func (f *fakeStreamer) Stream(ctx context.Context, p *probe.Progress) model.Sample {
	n := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	s := model.Sample{Send: time.Now()}
	p.Send.Store(probe.Mono())
	t := time.NewTimer(f.gap)
	defer t.Stop()
	for i := 0; i < f.tokens; i++ {
		select {
		case <-ctx.Done():
			s.Err, s.ErrMsg, s.End = model.ErrCanceled, "canceled", time.Now()
			return s
		case <-t.C:
			t.Reset(f.gap)
		}
		now := time.Now()
		if i == 0 {
			s.First, s.FirstAnswer = now, now
			p.First.Store(probe.Mono())
		}
		s.Last = now
		s.Chunks++
		p.Chunks.Add(1)
	}
	s.Tokens, s.Usage, s.Finish, s.Status, s.End = s.Chunks, true, "stop", 200, time.Now()
	if f.err != model.ErrNone || (f.failFrom > 0 && n >= f.failFrom) {
		s.Err, s.ErrMsg, s.Status, s.Finish = model.HTTPError(500), "HTTP 500: boom from the fake", 500, ""
		if f.err != model.ErrNone {
			s.Err = f.err
		}
	}
	return s
}

func fakes(byName map[string]*fakeStreamer) NewStreamerFunc {
	return func(ep client.Endpoint, conns int) (probe.Streamer, error) {
		s, ok := byName[ep.Name]
		if !ok {
			return nil, errors.New("no fake named " + ep.Name)
		}
		return s, nil
	}
}

// runBench runs cfg as tpsmon bench does: Start, Run, Close.
func runBench(ctx context.Context, cfg Config, progress func(Progress)) (*Result, error) {
	e, err := Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	return e.Run(ctx, progress)
}

// progressLog collects progress calls (Run calls progress from one goroutine, the
// test reads after Run returned).
type progressLog struct {
	mu    sync.Mutex
	calls []Progress
}

func (l *progressLog) add(p Progress) {
	l.mu.Lock()
	l.calls = append(l.calls, p)
	l.mu.Unlock()
}

// fakeCtl is a pool at the edge: it records what the engine asked.
type fakeCtl struct {
	conc, active int
	paused       bool
	stopped      bool
	sets         []int
}

func (f *fakeCtl) SetConcurrency(n int) {
	if n != f.conc {
		f.sets = append(f.sets, n)
	}
	f.conc = n
}
func (f *fakeCtl) Concurrency() int { return f.conc }
func (f *fakeCtl) Active() int      { return f.active }
func (f *fakeCtl) Pause()           { f.paused = true }
func (f *fakeCtl) Resume()          { f.paused = false }
func (f *fakeCtl) Paused() bool     { return f.paused }
func (f *fakeCtl) Stop()            { f.stopped = true }
