package model

import (
	"errors"
	"fmt"
)

// GapsJSON is a level's pooled chunk gaps (ChunkGaps) as results.json carries them, so
// that the chunk gaps of several processes can be merged exactly: the non-empty
// buckets of the GapSketch layout (whole microseconds, SubBuckets buckets per power of
// two, exact below SubBuckets us) as [index, count] pairs by index, and their total.
type GapsJSON struct {
	Unit       string      `json:"unit"`        // UnitMicros
	SubBuckets int         `json:"sub_buckets"` // buckets per power of two (16)
	Count      uint64      `json:"count"`
	Buckets    [][2]uint64 `json:"buckets"`
}

// trafficHists adds the lengths' and chunk gaps' histograms to hs.
func (l *level) trafficHists(hs *ReportHists) {
	if l.traffic == nil {
		return
	}
	in, out, gaps := l.traffic.Lengths.in.JSON(), l.traffic.Lengths.out.JSON(), l.traffic.Gaps.JSON()
	in.Unit, out.Unit = UnitTokens, UnitTokens // whole tokens, held in a rate histogram (lengths.go)
	hs.InputTokens, hs.OutputTokens, hs.ChunkGaps = &in, &out, &gaps
	l.traffic.Turns.json(hs)
}

// UnitTokens is the recording unit of the lengths' histograms: whole tokens.
const UnitTokens = "tokens"

// errNoTraffic says a level carries no lengths or chunk gaps histograms.
var errNoTraffic = errors.New("no lengths or chunk gaps histograms")

// addTraffic merges one report's lengths and chunk gaps into the level; errNoTraffic
// when the report carries none (written by a tpsmon that did not record them).
func (m *mergeLevel) addTraffic(hs *ReportHists) error {
	if hs.InputTokens == nil || hs.OutputTokens == nil || hs.ChunkGaps == nil {
		return errNoTraffic
	}
	t := m.l.traffic
	for _, p := range []struct {
		name string
		into *Hist
		j    HistJSON
	}{{"input_tokens", t.Lengths.in, *hs.InputTokens}, {"output_tokens", t.Lengths.out, *hs.OutputTokens}} {
		if p.j.Unit != UnitTokens {
			return fmt.Errorf("hist.%s: unit %q, want %q", p.name, p.j.Unit, UnitTokens)
		}
		p.j.Unit = UnitMilliRates // the Hist that holds them (lengths.go)
		h, err := HistFromJSON(p.j)
		if err == nil {
			err = p.into.Merge(h)
		}
		if err != nil {
			return fmt.Errorf("hist.%s: %w", p.name, err)
		}
	}
	if err := t.Gaps.MergeJSON(*hs.ChunkGaps); err != nil {
		return fmt.Errorf("hist.chunk_gap: %w", err)
	}
	return t.Turns.merge(hs)
}

// forgetTraffic blanks a merged level's lengths and chunk gaps, figures and
// histograms, when some report's level carried no histograms of them: figures over a
// part of the requests would read as the whole level's.
func forgetTraffic(rl *ReportLevel) {
	rl.Lengths, rl.ChunkGaps = LengthStats{}, GapStats{}
	if rl.Hist != nil {
		rl.Hist.InputTokens, rl.Hist.OutputTokens, rl.Hist.ChunkGaps = nil, nil, nil
	}
}

// MergeNotes are what Merge(files) leaves out and why, one sentence each, for the user:
// the lengths and chunk gaps of files without their histograms, the client wait of
// files without its histogram, and the server's view
// when the files did not scrape one server. Nothing when nothing is left out.
func MergeNotes(files []MergeFile) []string {
	var notes []string
	if len(files) == 0 {
		return nil
	}
	for _, f := range files {
		if name, ok := lacksTraffic(f.Report); ok {
			notes = append(notes, fmt.Sprintf("%s: endpoint %q carries no lengths or chunk gaps histograms (written by an older tpsmon): "+
				"the merged levels show no lengths nor chunk gaps", f.Name, name))
		}
	}
	for _, f := range files {
		if name, ok := lacksWait(f.Report); ok {
			notes = append(notes, fmt.Sprintf("%s: endpoint %q carries no client-wait histogram (written by an older tpsmon): "+
				"the merged levels show no client wait nor late requests", f.Name, name))
		}
	}
	for i, e := range files[0].Report.Endpoints {
		if _, ok := sameServer(files, i); ok || !anyServer(files, i) {
			continue
		}
		notes = append(notes, fmt.Sprintf("endpoint %q: the files do not all name one server's metrics URL (server_metrics): "+
			"the merged report has no server's view", e.Name))
	}
	return notes
}

// lacksTraffic is the name of the first endpoint of r with a level without lengths or
// chunk gaps histograms.
func lacksTraffic(r *Report) (string, bool) {
	for _, e := range r.Endpoints {
		for _, l := range e.Levels {
			if h := l.Hist; h != nil && (h.InputTokens == nil || h.OutputTokens == nil || h.ChunkGaps == nil) {
				return e.Name, true
			}
		}
	}
	return "", false
}
