package model

import "time"

// GoodputTarget is the per-request SLO of goodput: a request meets it when it
// succeeded, its TTFT <= TTFTMax and its own per-user tok/s >= UserTPSMin. A request
// whose tok/s is not defined (fewer than 2 tokens: nothing streamed after the first)
// is judged on TTFT alone.
type GoodputTarget struct {
	TTFTMax    time.Duration
	UserTPSMin float64
}

// Met reports whether the request met the target.
func (g GoodputTarget) Met(s *Sample) bool {
	if !s.OK() {
		return false
	}
	ttft, ok := s.TTFT()
	if !ok || ttft > g.TTFTMax {
		return false
	}
	if tps, ok := s.UserTPS(); ok && tps < g.UserTPSMin {
		return false
	}
	return true
}

// Goodput counts, over a level's steady requests, those that met the per-request SLO.
// The level book feeds it every steady ended request (failed ones too: they did not
// meet it); canceled and client failures are not judged (not the endpoint's doing).
type Goodput struct {
	Target      GoodputTarget
	judged, met int
}

// NewGoodput returns an empty accumulator for target.
func NewGoodput(target GoodputTarget) Goodput { return Goodput{Target: target} }

// Add judges one ended request.
func (g *Goodput) Add(s *Sample) {
	if s.Err == ErrCanceled || s.Err == ErrClient {
		return
	}
	g.judged++
	if g.Target.Met(s) {
		g.met++
	}
}

// GoodputStats is a level's goodput: Met of Judged requests met the per-request SLO;
// Share = Met / Judged (0 when none was judged); Rate = Met / the level's steady window,
// in requests/s (0 without a window).
type GoodputStats struct {
	Judged int     `json:"judged"`
	Met    int     `json:"met"`
	Share  float64 `json:"share"`
	Rate   float64 `json:"rate"`
}

// Stats is the goodput over a steady window.
func (g *Goodput) Stats(window time.Duration) GoodputStats {
	st := GoodputStats{Judged: g.judged, Met: g.met}
	if g.judged > 0 {
		st.Share = float64(g.met) / float64(g.judged)
	}
	if sec := window.Seconds(); sec > 0 {
		st.Rate = float64(g.met) / sec
	}
	return st
}
