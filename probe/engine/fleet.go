package engine

import (
	"context"
	"fmt"

	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/client"
)

// NewStreamerFunc builds the Streamer of one endpoint, sized for conns concurrent streams.
type NewStreamerFunc func(ep client.Endpoint, conns int) (probe.Streamer, error)

// DefaultNewStreamer builds a client.Client: what NewFleet uses when given no NewStreamerFunc.
func DefaultNewStreamer(ep client.Endpoint, conns int) (probe.Streamer, error) {
	c, err := client.New(ep, conns)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Fleet is one running probe.Pool per endpoint, with their events merged on one channel.
type Fleet struct {
	Pools     []*probe.Pool
	events    <-chan probe.Event
	cancel    context.CancelFunc
	streamers []probe.Streamer
}

// idleCloser is a Streamer with a connection pool to close when done (a Client).
type idleCloser interface{ CloseIdleConnections() }

// FleetOptions configures NewFleet.
type FleetOptions struct {
	Conns       int             // HTTP connections per endpoint (at least 1)
	NewStreamer NewStreamerFunc // nil means DefaultNewStreamer
	PoolOptions []probe.Option  // passed to every probe.NewPool
}

// EndpointError is an endpoint whose Streamer could not be built.
type EndpointError struct {
	Name string
	Err  error
}

func (e *EndpointError) Error() string { return fmt.Sprintf("endpoint %s: %v", e.Name, e.Err) }
func (e *EndpointError) Unwrap() error { return e.Err }

// NewFleet builds one Streamer and one Pool per endpoint (Endpoint index = position in
// eps), runs the pools under a child of ctx, and merges their events. Every pool starts
// at concurrency 0.
func NewFleet(ctx context.Context, eps []client.Endpoint, opt FleetOptions) (*Fleet, error) {
	if len(eps) == 0 {
		return nil, fieldErr(FieldEndpoints, "", "no endpoint to measure")
	}
	newStreamer := opt.NewStreamer
	if newStreamer == nil {
		newStreamer = DefaultNewStreamer
	}
	conns := max(opt.Conns, 1)
	streamers := make([]probe.Streamer, len(eps))
	for i, ep := range eps {
		s, err := newStreamer(ep, conns)
		if err != nil {
			return nil, &EndpointError{Name: client.EndpointLabel(ep), Err: err}
		}
		streamers[i] = s
	}
	runCtx, cancel := context.WithCancel(ctx)
	f := &Fleet{cancel: cancel, streamers: streamers}
	for i, s := range streamers {
		f.Pools = append(f.Pools, probe.NewPool(i, s, opt.PoolOptions...))
	}
	f.events = probe.RunAll(runCtx, f.Pools)
	return f, nil
}

// Events is the merged event channel of every pool, closed once every pool has ended.
func (f *Fleet) Events() <-chan probe.Event { return f.events }

// Stop asks every pool to end: no new requests; in-flight ones finish. It does not block.
func (f *Fleet) Stop() { probe.StopAll(f.Pools) }

// Cut cancels the requests in flight (they end as model.ErrCanceled) and stops the pools.
func (f *Fleet) Cut() {
	f.Stop()
	f.cancel()
}

// Close cuts every request, stops reading events, waits until every pool has ended and
// closes the streamers' idle connections. It is idempotent; call it when done with the
// Fleet, also after the event channel closed.
func (f *Fleet) Close() {
	f.Cut()
	for range f.events {
	}
	for _, s := range f.streamers {
		if c, ok := s.(idleCloser); ok {
			c.CloseIdleConnections()
		}
	}
}
