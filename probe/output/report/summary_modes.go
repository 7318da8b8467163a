package report

import (
	"strconv"
	"strings"

	"github.com/tpsmon/tpsmon/model"
)

// Summaries is a live session's results as Markdown (the screen's quit summary and its
// snapshots): one Summary per mode the session measured (the engine's Reports: a users
// table and a rate table, each with its own settings, verdict and notes, never merged),
// each headed by its mode when there are several.
func Summaries(rs []*model.Report) string {
	if len(rs) == 1 {
		return Summary(rs[0])
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = summary(r, "tpsmon results: "+ModeTitle(&r.Settings))
	}
	return strings.Join(parts, "\n")
}

// ModeTitle names the mode of a report's levels: "users mode (levels are users)" or
// "rate mode (levels are arrival rates)".
func ModeTitle(s *model.ReportSettings) string {
	if s.Mode == "rate" {
		return "rate mode (levels are arrival rates)"
	}
	return "users mode (levels are users)"
}

// byHandWords is the ramp line of a session whose levels were all set by hand (no ramp
// ran), with rate mode's arrivals.
func byHandWords(s *model.ReportSettings) []string {
	if s.Mode != "rate" {
		return []string{"none (every level set by hand)"}
	}
	r := "none (every rate set by hand"
	if s.Arrival != "" {
		r += "; " + s.Arrival + " arrivals"
	}
	if s.MaxConcurrency > 0 {
		r += ", at most " + strconv.Itoa(s.MaxConcurrency) + " in flight"
	}
	return []string{r + ")"}
}
