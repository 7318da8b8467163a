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
	Need        int           // the level rule's floor of steady requests (MinFloor, or MinSteady on a fixed schedule)
	Walk        LevelProgress // the walk's whole view of the level (what it waits for, the estimate)
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
// "sim: level 2/4: 4 users, held at least 15s and 6 requests once warm-up is over, until
// decided at 95%, 0 errors so far"; a live update "sim: level 2/4, 4 users, 12 requests,
// waiting for TTFT p95 to be decided at 95%: about 60 more requests, about 25s, 812 tok/s,
// 203.2 tok/s/user, TTFT p95 120ms, 0 errors".
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
		fmt.Fprintf(&b, "ramp done, waiting for %s to finish", model.Plural(p.Active, "in-flight request"))
		if p.Elapsed >= time.Second { // "(0 ms)" at the start read as a wait of nothing
			fmt.Fprintf(&b, " (%s so far)", dur(p.Elapsed))
		}
	case p.LevelChange && p.Fixed:
		fmt.Fprintf(&b, "level %d/%d: %s%s, held exactly %s (fixed schedule), %s so far",
			p.Level, p.Levels, p.word(p.Concurrency), p.shareWords(), dur(p.Hold), model.Plural(p.Errors, "error"))
		if p.Late > 0 {
			fmt.Fprintf(&b, "; started %s after the start time: this level is that much shorter", model.Millis(ms(p.Late)))
		}
		return b.String()
	case p.LevelChange:
		b.WriteString(p.levelName(": "))
		fmt.Fprintf(&b, ", held at least %s", dur(p.Hold))
		if p.Need > 0 {
			fmt.Fprintf(&b, " and %s", model.Plural(p.Need, "request"))
		}
		fmt.Fprintf(&b, " once warm-up is over, until decided at 95%%, %s so far", model.Plural(p.Errors, "error"))
		return b.String()
	default:
		b.WriteString(p.levelName(", "))
		fmt.Fprintf(&b, ", %s, %s", model.Plural(p.Steady, "request"), p.Walk.Waits())
		fmt.Fprintf(&b, ", %.0f tok/s", p.Live.AggregateTPS)
		if p.Live.HasUser {
			fmt.Fprintf(&b, ", %.1f tok/s/user", p.Live.UserTPS)
		} else {
			b.WriteString(", - tok/s/user")
		}
		if p.Live.HasTTFT {
			fmt.Fprintf(&b, ", TTFT p95 %s", model.Millis(ms(p.Live.TTFTP95)))
		} else {
			b.WriteString(", TTFT p95 -")
		}
	}
	fmt.Fprintf(&b, ", %s", model.Plural(p.Errors, "error"))
	return b.String()
}

// levelName names the level: "level 2/6<sep>4 users", "refining the capacity: 24 users
// (between 16 and 32)" or "confirming the capacity at 16 users".
func (p Progress) levelName(sep string) string {
	l := p.Walk
	switch {
	case l.Confirm:
		return "confirming the capacity at " + p.word(p.Concurrency) + p.shareWords()
	case l.Refined && l.Hi > 0:
		return fmt.Sprintf("refining the capacity: %s (between %d and %d)", p.word(p.Concurrency), l.Lo, l.Hi)
	}
	return fmt.Sprintf("level %d/%d%s%s%s", p.Level, p.Levels, sep, p.word(p.Concurrency), p.shareWords())
}

// shareWords is " (this shard: 3)" for a shard, "" otherwise.
func (p Progress) shareWords() string {
	if !p.Sharded {
		return ""
	}
	return fmt.Sprintf(" (this shard: %d)", p.Share)
}

// dur says an elapsed, hold or estimated time for progress lines, rounded (roundDur), by
// the one rule for ms and s (model.Duration): "30 s", "2.5 s".
func dur(d time.Duration) string { return model.Duration(roundDur(d)) }

// roundDur rounds elapsed and hold times for progress lines: to the second from 10 s,
// to 0.1 s below.
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
		p.Warming, p.Left, p.Steady, p.Need, p.Walk = st.Warming, st.Left, st.Steady, st.Need, st
	} else {
		p.Ended = ep.end // its ramp ended before the others'
	}
	b.progress(p)
}

// Waits says what the level waits for (two things named, the others counted) and an
// estimate of the time left, e.g. "waiting for TTFT p95 to be decided at 95%: about 19
// more requests, about 30s", "warming up
// (the previous level's requests are ending)", "3s of hold left", or on a fixed schedule
// "12/20 requests, 3s left".
func (p LevelProgress) Waits() string {
	if p.Fixed {
		return fmt.Sprintf("%d/%d requests, %s left", p.Steady, p.Need, dur(p.Left))
	}
	if p.Warming {
		return "warming up (the previous level's requests are ending)"
	}
	if p.Held {
		return "held"
	}
	var what []string
	if p.Steady < p.Need {
		what = append(what, "its floor of "+model.Plural(p.Need, "request"))
	}
	for _, c := range p.Curve {
		what = append(what, c+" to ±5%")
	}
	if len(p.Waiting) > 0 {
		what = append(what, model.TermsWords(p.Waiting)+" to be decided at 95%")
	}
	if len(what) == 0 {
		return dur(p.Left) + " of hold left"
	}
	if len(what) > 2 { // the estimate must stay on a terminal's line: name two, count the rest
		what = append(what[:2:2], fmt.Sprintf("%d more", len(what)-2))
	}
	s := "waiting for " + strings.Join(what, ", ") + ": "
	switch {
	case p.More < 0:
		return s + "no estimate (a figure sits on its target); at most " + dur(p.MaxLeft) + " more"
	case p.ETA < 0:
		return s + "about " + model.Plural(p.More, "more request")
	case p.ETA > p.MaxLeft:
		return s + "about " + model.Plural(p.More, "more request") + ", more than the " + dur(p.MaxLeft) + " left before the maximum hold"
	case p.More == 0:
		return s + "about " + dur(p.ETA)
	}
	return s + "about " + model.Plural(p.More, "more request") + ", about " + dur(p.ETA)
}

// Brief is Waits for a narrow line (the screen's header): "warming up", "held", "3s of
// hold left", "waiting for TTFT p95 at 95%, ~19 more, ~30s". It names the first thing
// the level waits for (its floor, then a criterion, then a curve figure) and counts the
// others: "waiting for 8 requests and 2 figures, ~7 more, ~20s".
func (p LevelProgress) Brief() string {
	switch {
	case p.Fixed:
		return fmt.Sprintf("%d/%d requests, %s left", p.Steady, p.Need, dur(p.Left))
	case p.Warming:
		return "warming up"
	case p.Held:
		return "held"
	}
	var what []string
	if p.Steady < p.Need {
		what = append(what, model.Plural(p.Need, "request"))
	}
	for _, t := range p.Waiting {
		what = append(what, model.TermWords(t)+" at 95%")
	}
	for _, c := range p.Curve {
		what = append(what, c+" ±5%")
	}
	if len(what) == 0 {
		return dur(p.Left) + " of hold left"
	}
	s := "waiting for " + what[0]
	if len(what) > 1 {
		s += " and " + model.Plural(len(what)-1, "figure")
	}
	switch {
	case p.More < 0:
		return s + ", at most " + dur(p.MaxLeft)
	case p.ETA < 0:
		return s + fmt.Sprintf(", ~%d more", p.More)
	case p.ETA > p.MaxLeft:
		return s + fmt.Sprintf(", ~%d more: past the maximum hold in %s", p.More, dur(p.MaxLeft))
	case p.More == 0:
		return s + ", ~" + dur(p.ETA)
	}
	return s + fmt.Sprintf(", ~%d more, ~%s", p.More, dur(p.ETA))
}

// ms is d in float milliseconds, as model's word helpers take times.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
