package ui

import (
	"strconv"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/tpsmon/tpsmon/model"
)

// latStyle is the style of a latency against its limit: good at or under it, warn up to
// 25% over, bad beyond (a TTFT of 10.5 s against 2 s is bad, never plain text).
func latStyle(st Styles, v, limit time.Duration) lipgloss.Style {
	switch {
	case limit <= 0 || v <= limit:
		return st.Good
	case v <= limit+limit/4:
		return st.Warn
	default:
		return st.Bad
	}
}

// allSilent reports whether every open stream has gone without a token for more than
// model.SilentAfter: the server looks frozen, and a per-user 0.0 tok/s would hide it.
func allSilent(l model.Live) bool { return l.Silent > 0 && l.Silent >= l.Active }

// ttftHead is the TTFT series' value: p50 and p95, the p95 coloured against the target;
// with a reasoning model, the p95 of TTFT and of TTFO (first answer token) instead
// ("p95 33 ms  TTFO 2.28 s": it fits the stacked series' label column).
func (p *seriesPanel) ttftHead() string {
	st, live := p.st, p.live
	if !live.HasTTFT && !(live.Reasoning && live.HasTTFO) {
		return st.Faint.Render("—")
	}
	ttft := st.Faint.Render("—")
	if live.HasTTFT {
		ttft = latStyle(st, live.TTFTP95, p.ttftMax).Render(fmtMsVs(ms(live.TTFTP95), ms(p.ttftMax)))
	}
	if live.Reasoning {
		ttfo := st.Faint.Render("—")
		if live.HasTTFO {
			ttfo = st.Value.Render(fmtDur(live.TTFOP95))
		}
		return st.Faint.Render("p95 ") + ttft + st.Faint.Render("  TTFO ") + ttfo
	}
	return st.Faint.Render("p50 ") + st.Value.Render(fmtDur(live.TTFTP50)) + st.Faint.Render("  p95 ") + ttft
}

// spanOf is the time the buckets cover.
func spanOf(bs []model.Bucket) time.Duration {
	if len(bs) == 0 {
		return 0
	}
	return bs[len(bs)-1].Start.Add(bs[len(bs)-1].Width).Sub(bs[0].Start)
}

// scaleLabel labels a sparkline with its scale (the value of its top edge) and time
// span, e.g. "▲94.5 tok/s · 60 s"; unit "ms" is shown as a duration ("▲2.1 s · 60 s").
func scaleLabel(st Styles, unit string, span time.Duration) func(top float64) (string, lipgloss.Style) {
	return func(top float64) (string, lipgloss.Style) {
		s := "▲" + fmtRate(top) + " " + unit
		if unit == "ms" {
			s = "▲" + fmtMs(top)
		}
		if span >= time.Second {
			s += " · " + strconv.Itoa(int(span.Round(time.Second)/time.Second)) + " s"
		}
		return s, st.Faint
	}
}

// ms is d in float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// withRequests is levels without those no request ended in (a level passed through on
// the way to another, e.g. by pressing + several times), but with the level being measured.
func withRequests(levels []model.LevelStats) []model.LevelStats {
	out := levels[:0:0]
	for _, l := range levels {
		if l.Requests > 0 || l.Open {
			out = append(out, l)
		}
	}
	return out
}

// fmtLimit is a limit as it was likely written: "2 s" for whole seconds, else fmtDur.
func fmtLimit(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return strconv.Itoa(int(d/time.Second)) + " s"
	}
	return fmtDur(d)
}
