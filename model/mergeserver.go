package model

// The server's view of merged reports (measurement contract, "Results of several
// processes"): kept only when every file names the same metrics URL; the gauges'
// means weighted by the scrapes, the maxima's max, the server's tok/s the scrapes'
// weighted mean, and the preemptions from the longest view (shards) or summed (whole
// runs). The received tok/s and the cross-check are read from the merged level.

// sameServer is endpoint i's metrics URL when every file names the same one; ok is
// false when one names none (a tpsmon that did not write it, or no scrapes) or two
// differ (two servers, e.g. each shard's own simulator).
func sameServer(files []MergeFile, i int) (url string, ok bool) {
	url = files[0].Report.Endpoints[i].ServerMetrics
	if url == "" {
		return "", false
	}
	for _, f := range files[1:] {
		if f.Report.Endpoints[i].ServerMetrics != url {
			return "", false
		}
	}
	return url, true
}

// anyServer reports whether some file has a server's view of endpoint i.
func anyServer(files []MergeFile, i int) bool {
	for _, f := range files {
		for _, l := range f.Report.Endpoints[i].Levels {
			if l.Server != nil {
				return true
			}
		}
	}
	return false
}

// weighted is a mean weighted by scrapes over the views that have the figure.
type weighted struct{ sum, w float64 }

// add counts v (when present) with weight w.
func (m *weighted) add(v *float64, w float64) {
	if v != nil && w > 0 {
		m.sum += *v * w
		m.w += w
	}
}

// mean is the weighted mean, nil when no view had the figure.
func (m *weighted) mean() *float64 {
	if m.w <= 0 {
		return nil
	}
	x := m.sum / m.w
	return &x
}

// mergeServer combines the views of one server over one level (nil when none). The
// shards of one run scraped one server over about the same window: their views are
// samples of the same figures, never summed. Gauges (waiting, running, KV use) are
// the mean over every view's scrapes (each view's mean weighted by its scrape count),
// waiting max the largest; the server's tok/s likewise (a scrape is about a second:
// the weighted mean is the rate over every interval scraped). Preemptions are a count
// over a view's window: for shards, the count of the view with the most scrapes (the
// longest window; a mean would cut it to the shorter windows, a sum count each
// preemption once per shard); for whole runs, which ran at other times, the sum.
// Scrapes is the total, the number the means are over.
func mergeServer(views []*ServerLevel, shards bool) *ServerLevel {
	if len(views) == 0 {
		return nil
	}
	var wait, run, kv, gen, prefix weighted
	out := ServerLevel{}
	var pre *float64
	preScrapes := -1
	for _, v := range views {
		w := float64(v.Scrapes)
		out.Scrapes += v.Scrapes
		wait.add(v.WaitingMean, w)
		run.add(v.RunningMean, w)
		kv.add(v.KVMeanPct, w)
		gen.add(v.GenTPS, w)
		prefix.add(v.PrefixHitPct, w)
		if v.WaitingMax != nil && (out.WaitingMax == nil || *v.WaitingMax > *out.WaitingMax) {
			x := *v.WaitingMax
			out.WaitingMax = &x
		}
		switch {
		case v.Preemptions == nil:
		case !shards && pre != nil:
			*pre += *v.Preemptions
		case !shards || v.Scrapes > preScrapes || (v.Scrapes == preScrapes && *v.Preemptions > *pre):
			x := *v.Preemptions
			pre, preScrapes = &x, v.Scrapes
		}
	}
	out.WaitingMean, out.RunningMean, out.KVMeanPct, out.GenTPS = wait.mean(), run.mean(), kv.mean(), gen.mean()
	out.Preemptions, out.PrefixHitPct = pre, prefix.mean()
	return out.Report()
}
