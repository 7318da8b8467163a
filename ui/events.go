package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tpsmon/tpsmon/probe"
	"github.com/tpsmon/tpsmon/probe/engine"
)

// tickMsg is the render tick.
type tickMsg time.Time

// tickEvery is the render tick (8 Hz).
const tickEvery = time.Second / 8

func tickCmd() tea.Cmd {
	return tea.Tick(tickEvery, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// eventsMsg carries the pool events that were waiting, at most drainMax of them.
type eventsMsg struct {
	events []probe.Event
	closed bool
}

// drainMax bounds the events handled by one Update.
const drainMax = 1024

// waitEvents waits (in its own goroutine) for the next event, then takes whatever else
// is already waiting without blocking, up to drainMax. It is re-armed after each batch.
func waitEvents(ctx context.Context, ch <-chan probe.Event) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		var evs []probe.Event
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-ch:
			if !ok {
				return eventsMsg{closed: true}
			}
			evs = append(evs, ev)
		}
		for len(evs) < drainMax {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{events: evs, closed: true}
				}
				evs = append(evs, ev)
			default:
				return eventsMsg{events: evs}
			}
		}
		return eventsMsg{events: evs}
	}
}

// serverMsg carries one report of the engine's server metrics scrapers.
type serverMsg struct {
	update engine.ServerUpdate
	ch     <-chan engine.ServerUpdate
	closed bool
}

// waitServer waits (in its own goroutine) for the next scraper report; it is re-armed
// after each.
func waitServer(ctx context.Context, ch <-chan engine.ServerUpdate) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case <-ctx.Done():
			return nil
		case u, ok := <-ch:
			return serverMsg{update: u, ch: ch, closed: !ok}
		}
	}
}

// onServer hands a scraper report to the engine (the same goroutine as every other
// event) and says its notice once.
func (m *root) onServer(msg serverMsg) tea.Cmd {
	if msg.closed {
		return nil
	}
	if n, ok := m.eng.HandleServer(msg.update); ok {
		m.show(n.Bad(), n.String())
	}
	m.refresh(false)
	return waitServer(m.ctx, msg.ch)
}
