package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/tpsmon/tpsmon/model"
)

// Progress is the state of one endpoint during a bench, for progress lines.
type Progress struct {
	Endpoint    int
	Name        string
	Level       int // 1-based index of the level being held; 0 while draining
	Levels      int
	Concurrency int
	Elapsed     time.Duration // time into the drain
	Hold        time.Duration
	Warming     bool          // the level is warming up: its hold starts once it is steady
	Left        time.Duration // hold time left once it has started
	Steady      int           // steady completed requests of the level so far
	Need        int           // the level rule's minimum (model MinSteady)
	Live        model.Live
	Active      int     // requests in flight now
	Errors      int     // failed requests so far
	LevelChange bool    // this call announces a new level (or the drain)
	Draining    bool    // the ramp is over; waiting for in-flight requests
	Ended       RampEnd // set (Kind not NotEnded) when this endpoint's ramp ended before the others'
	Sharded     bool    // this run is one shard of the load (Config.Shard)
	Share       int     // Sharded: this shard's users at the level (Concurrency is the whole level's)
	Fixed       bool    // levels change on a fixed schedule (Config.StartAt): Left counts from the level's start
	// Late is set on the first level change of a run that started that long after
	// Config.StartAt (see Result.Late).
	Late time.Duration
	// Note, when set, is a line to say once (the server's metrics found, not available,
	// down or back; a diagnosis): the other fields are then unset but Endpoint and Name.
	Note    string
	NoteBad bool // Note is a warning
	Rate    bool // rate mode: Concurrency and Ended.Users are arrival rates (requests/s)
	// Trace is the trace a trace run replays: Concurrency is its window's number.
	Trace *model.ReportTrace
}

// word names a level of the progress: users, a rate, or a window of the trace.
func (p Progress) word(v int) string {
	if p.Trace != nil {
		return p.Trace.WindowWords(v)
	}
	return LevelWord(p.Rate, v)
}

// String is the progress line. A level change reads
// "sim: level 2/4: 4 users, held 15s and 20 requests once warm-up is over, 0 errors so far"; a live update
// "sim: level 2/4, 4 users, 12/20 requests, 3s left, 812 tok/s, 203.2 tok/s/user, TTFT p95 120ms, 0 errors".
func (p Progress) String() string {
	var b strings.Builder
	b.WriteString(p.Name)
	b.WriteString(": ")
	switch {
	case p.Ended.Kind != NotEnded && !p.Draining:
		fmt.Fprintf(&b, "ramp ended at %s", p.word(p.Ended.Users))
		if p.Ended.Kind == EndStopped {
			fmt.Fprintf(&b, ": %s", p.Ended.Stop)
		}
		fmt.Fprintf(&b, "; waiting for the other endpoints, %d in flight", p.Active)
	case p.Draining:
		fmt.Fprintf(&b, "ramp done, waiting for %d in-flight %s to finish (%s)", p.Active, plural(p.Active, "request"), roundDur(p.Elapsed))
	case p.LevelChange && p.Fixed:
		fmt.Fprintf(&b, "level %d/%d: %s%s, held exactly %s (fixed schedule), %d %s so far",
			p.Level, p.Levels, p.word(p.Concurrency), p.shareWords(), roundDur(p.Hold), p.Errors, plural(p.Errors, "error"))
		if p.Late > 0 {
			fmt.Fprintf(&b, "; started %s after the start time: this level is that much shorter", roundLatency(p.Late))
		}
		return b.String()
	case p.LevelChange:
		fmt.Fprintf(&b, "level %d/%d: %s%s, held %s", p.Level, p.Levels, p.word(p.Concurrency), p.shareWords(), roundDur(p.Hold))
		if p.Need > 0 {
			fmt.Fprintf(&b, " and %d %s", p.Need, plural(p.Need, "request"))
		}
		fmt.Fprintf(&b, " once warm-up is over, %d %s so far", p.Errors, plural(p.Errors, "error"))
		return b.String()
	default:
		fmt.Fprintf(&b, "level %d/%d, %s%s, %d/%d requests, ", p.Level, p.Levels, p.word(p.Concurrency), p.shareWords(), p.Steady, p.Need)
		if p.Warming && !p.Fixed {
			b.WriteString("warming up")
		} else {
			fmt.Fprintf(&b, "%s left", roundDur(p.Left))
		}
		fmt.Fprintf(&b, ", %.0f tok/s", p.Live.AggregateTPS)
		if p.Live.HasUser {
			fmt.Fprintf(&b, ", %.1f tok/s/user", p.Live.UserTPS)
		} else {
			b.WriteString(", - tok/s/user")
		}
		if p.Live.HasTTFT {
			fmt.Fprintf(&b, ", TTFT p95 %s", roundLatency(p.Live.TTFTP95))
		} else {
			b.WriteString(", TTFT p95 -")
		}
	}
	fmt.Fprintf(&b, ", %d %s", p.Errors, plural(p.Errors, "error"))
	return b.String()
}

// shareWords is " (this shard: 3)" for a shard, "" otherwise.
func (p Progress) shareWords() string {
	if !p.Sharded {
		return ""
	}
	return fmt.Sprintf(" (this shard: %d)", p.Share)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// roundDur rounds elapsed and hold times for progress lines.
func roundDur(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// report calls the progress callback with endpoint i's state at now.
func (b *bench) report(i int, change bool, now time.Time) {
	if b.progress == nil {
		return
	}
	e := b.e
	ep := e.eps[i]
	_, _, errs := ep.book.Totals()
	p := Progress{
		Endpoint: i, Name: ep.info.Name, Levels: len(e.cfg.Ramp.Levels), Hold: e.cfg.Ramp.Hold,
		Live: ep.book.Live(), Active: ep.ctl.Active(), Errors: countErrors(errs),
		LevelChange: change, Draining: b.draining, Rate: e.rate, Sharded: e.cfg.Shard != nil, Fixed: e.cfg.Ramp.Fixed,
		Trace: e.cfg.Trace,
	}
	if change && b.late > 0 {
		p.Late, b.late = b.late, 0 // said once, with the first level
	}
	if b.draining {
		p.Elapsed = now.Sub(b.since)
	} else if st, ok := e.Status(i, now); ok {
		p.Level, p.Concurrency, p.Share = st.Index+1, st.Users, e.cfg.share(st.Users)
		p.Warming, p.Left, p.Steady, p.Need = st.Warming, st.Left, st.Steady, st.Need
	} else {
		p.Ended = ep.end // its ramp ended before the others'
	}
	b.progress(p)
}
